import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { PendingReread, RereadStore } from '../../ocr/pages/reread.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { ifConditionHolds, record, type Db } from './table.ts';

/** A pending reread outlives any that is still wanted (rereadPendingMs): DynamoDB removes it a day after it was asked. */
const ttlSeconds = 24 * 3600;

/** The pending rereads (lib/ocr/pages/reread.ts): one item per page, beside it in its BookText's partition. */
export function dynamoRereadStore(db: Db): RereadStore {
  const TableName = db.tableName;
  return {
    async claim(reread, staleBefore) {
      const Item = { ...entities.pageReread.item(reread), ttl: Math.floor(Date.parse(reread.requestedAt) / 1000) + ttlSeconds };
      // Taken when none is pending, or the pending one is older than staleBefore (lost).
      const taken = await ifConditionHolds(() =>
        db.client.send(
          new PutCommand({
            TableName,
            Item,
            ConditionExpression: 'attribute_not_exists(pk) OR requestedAt < :stale',
            ExpressionAttributeValues: { ':stale': staleBefore },
          }),
        ),
      );
      if (taken) return reread;
      const { Item: pending } = await db.client.send(new GetCommand({ TableName, Key: keys.pageReread(reread.bookTextId, reread.pageNumber), ConsistentRead: true }));
      // Settled between the two calls: try once more.
      return pending ? record<PendingReread>(pending) : this.claim(reread, staleBefore);
    },

    settle: (bookTextId, pageNumber, rereadId) =>
      ifConditionHolds(() =>
        db.client.send(
          new DeleteCommand({
            TableName,
            Key: keys.pageReread(bookTextId, pageNumber),
            ConditionExpression: 'rereadId = :id',
            ExpressionAttributeValues: { ':id': rereadId },
          }),
        ),
      ),
  };
}
