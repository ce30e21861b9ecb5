import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { User, UserStore } from '../../auth/users.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { batchGet, record, type Db } from './table.ts';

export function dynamoUserStore(db: Db): UserStore {
  return {
    async get(userId) {
      const { Item } = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.user(userId) }));
      return Item ? record<User>(Item) : undefined;
    },

    async getMany(userIds) {
      const users = await batchGet<User>(db, [...new Set(userIds)].map((id) => keys.user(id)));
      return new Map(users.map((user) => [user.userId, user]));
    },

    async put(user) {
      await db.client.send(new PutCommand({ TableName: db.tableName, Item: entities.user.item(user) }));
    },

    async delete(userId) {
      const { Attributes } = await db.client.send(
        new DeleteCommand({ TableName: db.tableName, Key: keys.user(userId), ReturnValues: 'ALL_OLD' }),
      );
      return Attributes !== undefined;
    },
  };
}
