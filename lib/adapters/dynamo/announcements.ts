import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Announcement, AnnouncementShard, AnnouncementStore, Audience } from '../../notifications/announcements.ts';
import { entities } from './entities.ts';
import { keys, userListShards } from './keys.ts';
import { ifConditionHolds, oldestBefore, record, type Db } from './table.ts';

/** Announcements and their fan-out's progress, one shard record per user partition (keys.ts). */
export function dynamoAnnouncements(db: Db): AnnouncementStore {
  const TableName = db.tableName;
  return {
    async create(announcement, shards, at) {
      const shardRecords: AnnouncementShard[] = Array.from({ length: shards }, (_, shard) => ({
        announcementId: announcement.announcementId,
        shard,
        step: 0,
        after: null,
        nextSent: true,
        done: false,
        notified: 0,
        updatedAt: at,
      }));
      await db.client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName, Item: entities.announcement.item(announcement), ConditionExpression: 'attribute_not_exists(pk)' } },
            ...shardRecords.map((s) => ({ Put: { TableName, Item: entities.announcementShard.item(s) } })),
          ],
        }),
      );
    },

    async get(announcementId) {
      const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.announcement(announcementId) }));
      return Item ? record<Announcement>(Item) : undefined;
    },

    async shard(announcementId, shard) {
      const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.announcementShard(announcementId, shard), ConsistentRead: true }));
      return Item ? record<AnnouncementShard>(Item) : undefined;
    },

    advance(shard, next, at) {
      const open = keys.openAnnouncementShard(at, shard.announcementId, shard.shard);
      return ifConditionHolds(() =>
        db.client.send(
          new UpdateCommand({
            TableName,
            Key: keys.announcementShard(shard.announcementId, shard.shard),
            UpdateExpression: `SET step = :next, #after = :after, done = :done, notified = :notified, nextSent = :false, updatedAt = :at${next.done ? ' REMOVE gsi2pk, gsi2sk' : ', gsi2pk = :gsi2pk, gsi2sk = :gsi2sk'}`,
            ConditionExpression: 'step = :step AND done = :false',
            ExpressionAttributeNames: { '#after': 'after' },
            ExpressionAttributeValues: {
              ':step': shard.step,
              ':next': shard.step + 1,
              ':after': next.after,
              ':done': next.done,
              ':notified': next.notified,
              ':false': false,
              ':at': at,
              ...(next.done ? {} : { ':gsi2pk': open.gsi2pk, ':gsi2sk': open.gsi2sk }),
            },
          }),
        ),
      );
    },

    async markSent(announcementId, shard, step, at) {
      const open = keys.openAnnouncementShard(at, announcementId, shard);
      await ifConditionHolds(() =>
        db.client.send(
          new UpdateCommand({
            TableName,
            Key: keys.announcementShard(announcementId, shard),
            UpdateExpression: 'SET nextSent = :true, updatedAt = :at, gsi2sk = :gsi2sk',
            ConditionExpression: 'step = :step AND done = :false',
            ExpressionAttributeValues: { ':true': true, ':false': false, ':step': step, ':at': at, ':gsi2sk': open.gsi2sk },
          }),
        ),
      );
    },

    stalled: (before, limit) => oldestBefore<AnnouncementShard>(db, keys.openAnnouncementsIndex, before, limit),
  };
}

/** Every user, from the user partitions of gsi1 (keys.userListed): one bounded query per page. */
export function dynamoAudience(db: Db): Audience {
  return {
    shards: userListShards,
    async page(shard, after, limit) {
      const ids: string[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const out = await db.client.send(
          new QueryCommand({
            TableName: db.tableName,
            IndexName: 'gsi1',
            KeyConditionExpression: after === null ? 'gsi1pk = :pk' : 'gsi1pk = :pk AND gsi1sk > :after',
            ExpressionAttributeValues: { ':pk': keys.userListIndex(shard), ...(after === null ? {} : { ':after': after }) },
            ProjectionExpression: 'userId',
            Limit: limit - ids.length,
            ExclusiveStartKey,
          }),
        );
        ids.push(...(out.Items ?? []).map((item) => String(item.userId)));
        ExclusiveStartKey = out.LastEvaluatedKey;
      } while (ExclusiveStartKey && ids.length < limit);
      return ids;
    },
  };
}
