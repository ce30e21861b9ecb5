import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { tokenHash, type DeviceStore, type DeviceToken } from '../../notifications/devices.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { queryAll, record, type Db } from './table.ts';

export function dynamoDeviceStore(db: Db): DeviceStore {
  const TableName = db.tableName;
  return {
    async get(userId, token) {
      const { Item } = await db.client.send(
        new GetCommand({ TableName, Key: keys.deviceToken(userId, tokenHash(token)), ConsistentRead: true }),
      );
      return Item ? record<DeviceToken>(Item) : undefined;
    },

    async put(device) {
      await db.client.send(
        new PutCommand({
          TableName,
          Item: entities.deviceToken.item(device),
        }),
      );
    },

    async deactivate(userId, token, at) {
      try {
        await db.client.send(
          new UpdateCommand({
            TableName,
            Key: keys.deviceToken(userId, tokenHash(token)),
            UpdateExpression: 'SET active = :false, updatedAt = :at',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':false': false, ':at': at },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },

    /** A user's devices are few; the query reads only that user's DEVICE# items. */
    listActive: (userId) =>
      queryAll<DeviceToken>(db, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: 'active = :true',
        ExpressionAttributeValues: { ':pk': keys.user(userId).pk, ':prefix': keys.deviceTokenPrefix, ':true': true },
      }),

    /** Few accounts ever share a phone; the query reads only this token's records. */
    activeHolders: (token) =>
      queryAll<DeviceToken>(db, {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        FilterExpression: 'active = :true',
        ExpressionAttributeValues: { ':pk': keys.deviceHolderIndex(tokenHash(token)), ':true': true },
      }),
  };
}
