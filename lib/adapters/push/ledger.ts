import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { logger } from '../../log.ts';
import { tokenHash } from '../../notifications/devices.ts';
import type { Push } from '../../notifications/push.ts';
import { entities, type PushRecord } from '../dynamo/entities.ts';
import { keys } from '../dynamo/keys.ts';
import { queryAll, type Db } from '../dynamo/table.ts';

/** The wire shape of a recorded push (the CLI's `push sent USER_ID`, docs/local-runtime-and-cli.md). */
export type SentPush = Pick<PushRecord, 'token' | 'platform' | 'type' | 'title' | 'body' | 'data' | 'sentAt'>;

/**
 * The local runtime's stand-in for SNS mobile push: every push is recorded in the table, in its
 * recipient's partition, instead of being sent; `push sent USER_ID` lists them. Registration gives
 * each token an endpoint id of its own, as SNS gives an endpoint ARN.
 */
export function ledgerPush(db: Db, now: () => Date = () => new Date()): Push & { sent(userId: string): Promise<SentPush[]> } {
  return {
    async register({ userId, platform, token }) {
      const endpointId = `local:${platform}:${tokenHash(token).slice(0, 16)}`;
      logger.info('push endpoint registered', { userId, platform, endpointId });
      return endpointId;
    },
    async send(device, message) {
      const record: PushRecord = {
        userId: device.userId,
        token: device.token,
        platform: device.platform,
        notificationId: message.notificationId,
        type: message.type,
        title: message.title,
        body: message.body,
        data: message.data,
        sentAt: now().toISOString(),
      };
      await db.client.send(new PutCommand({ TableName: db.tableName, Item: entities.pushRecord.item(record) }));
      logger.info('push recorded', { platform: device.platform, notificationId: message.notificationId });
      return 'sent';
    },
    /** Oldest first: the sort key starts with the time it was sent. */
    async sent(userId) {
      const records = await queryAll<PushRecord>(db, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':prefix': keys.pushRecordPrefix },
      });
      return records.map(({ token, platform, type, title, body, data, sentAt }) => ({ token, platform, type, title, body, data, sentAt }));
    },
  };
}
