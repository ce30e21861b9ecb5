import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { User, UserStore } from '../../auth/users.ts';
import { keys } from './keys.ts';
import { pause, record, type Db } from './table.ts';

export function dynamoUserStore(db: Db): UserStore {
  return {
    async get(userId) {
      const { Item } = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.user(userId) }));
      return Item ? record<User>(Item) : undefined;
    },

    async getMany(userIds) {
      const found = new Map<string, User>();
      for (let i = 0; i < userIds.length; i += 100) {
        let pending: Record<string, unknown>[] | undefined = userIds.slice(i, i + 100).map((id) => keys.user(id));
        for (let attempt = 0; pending?.length; attempt++) {
          if (attempt > 0) await pause(Math.min(1000, 25 * 2 ** attempt));
          const out: BatchGetCommandOutput = await db.client.send(
            new BatchGetCommand({ RequestItems: { [db.tableName]: { Keys: pending } } }),
          );
          for (const item of out.Responses?.[db.tableName] ?? []) {
            const user = record<User>(item);
            found.set(user.userId, user);
          }
          pending = out.UnprocessedKeys?.[db.tableName]?.Keys;
        }
      }
      return found;
    },

    async put(user) {
      await db.client.send(new PutCommand({ TableName: db.tableName, Item: { ...keys.user(user.userId), entity: 'User', ...user } }));
    },

    async delete(userId) {
      const { Attributes } = await db.client.send(
        new DeleteCommand({ TableName: db.tableName, Key: keys.user(userId), ReturnValues: 'ALL_OLD' }),
      );
      return Attributes !== undefined;
    },
  };
}
