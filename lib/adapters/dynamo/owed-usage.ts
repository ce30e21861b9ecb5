import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { OwedUsage, OwedUsageStore } from '../../billing/owed-usage.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { tableSchema } from './schema.ts';
import { oldestIn, type Db } from './table.ts';

/** The index that lists owed usages (keys.owedUsageListed): gsi1, as the outbox, so the billing worker's one index grant covers both. */
export const owedUsageIndex = 'gsi1';
const index = tableSchema.indexes.find((i) => i.name === owedUsageIndex)!;

/**
 * The owed marker's write, for the transaction that completes the job (ocr-jobs.ts). An Update, not
 * a Put: a repeated completion keeps the first `since`, so the marker's age (and its alarm) counts
 * from when the job was first completed.
 */
export function oweUsage(TableName: string, owed: OwedUsage) {
  const item = entities.owedUsage.item(owed);
  const names = { '#ipk': index.partitionKey, '#isk': index.sortKey };
  return {
    Update: {
      TableName,
      Key: keys.owedUsage(owed.jobId),
      UpdateExpression:
        'SET entity = :entity, jobId = :job, bookTextId = :bookText, userId = :user, pages = :pages, ' +
        '#since = if_not_exists(#since, :since), #ipk = :ipk, #isk = if_not_exists(#isk, :isk)',
      ExpressionAttributeNames: { ...names, '#since': 'since' },
      ExpressionAttributeValues: {
        ':entity': item.entity,
        ':job': owed.jobId,
        ':bookText': owed.bookTextId,
        ':user': owed.userId,
        ':pages': owed.pages,
        ':since': owed.since,
        ':ipk': item[index.partitionKey],
        ':isk': item[index.sortKey],
      },
    },
  };
}

export function dynamoOwedUsageStore(db: Db): OwedUsageStore {
  const TableName = db.tableName;
  return {
    async oldest(limit) {
      // One bounded page of the sparse index: only markers are in its partition, oldest first.
      const markers = await oldestIn<OwedUsage>(db, owedUsageIndex, keys.owedUsageIndex, limit);
      return markers.map(({ jobId, bookTextId, userId, pages, since }) => ({ jobId, bookTextId, userId, pages, since }));
    },

    async settle(jobId) {
      // Only after the job's usage log exists: a completion owed again later finds that log and counts nothing.
      await db.client.send(new DeleteCommand({ TableName, Key: keys.owedUsage(jobId) }));
    },
  };
}
