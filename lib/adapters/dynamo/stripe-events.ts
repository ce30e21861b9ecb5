import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ProcessedEvents } from '../../billing/webhook.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import type { Db } from './table.ts';

/** Stripe stops retrying an event after 3 days; a month covers that and manual resends. */
const keepSeconds = 30 * 24 * 60 * 60;

/** Stripe webhook events already applied, one item each, deleted by the table's TTL. */
export function dynamoProcessedEvents(db: Db, now: () => Date = () => new Date()): ProcessedEvents {
  const TableName = db.tableName;
  return {
    async seen(eventId) {
      const { Item } = await db.client.send(
        new GetCommand({ TableName, Key: keys.stripeEvent(eventId), ConsistentRead: true, ProjectionExpression: 'pk' }),
      );
      return Item !== undefined;
    },
    async remember(eventId, type) {
      const at = now();
      try {
        await db.client.send(
          new PutCommand({
            TableName,
            Item: entities.stripeEvent.item({ eventId, type, processedAt: at.toISOString(), ttl: Math.floor(at.getTime() / 1000) + keepSeconds }),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        // A concurrent delivery of the same event remembered it first: nothing to add.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },
  };
}
