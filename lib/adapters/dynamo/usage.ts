import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { UsageLog, UsageStore } from '../../billing/usage.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { policies, retry } from '../../retry.ts';
import { failedConditions, isContention, record, type Db } from './table.ts';

/** The usage log's item: keyed by its job; while `pending` also in the outbox index (entities.ts). */
export const usageItem = entities.usageLog.item;

/** A user's completions all move the period's one counter; a result must not be lost to them, hence 20 tries. */
const periodContention = { ...policies.contention, attempts: 20, retryable: isContention, gaveUp: 'Usage could not be recorded: too many concurrent updates' };

/** Index of the log's Put in the transaction below. */
const logAction = 1;

export function dynamoUsageStore(db: Db): UsageStore {
  const TableName = db.tableName;
  const forJob = async (jobId: string) => {
    const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.jobUsage(jobId), ConsistentRead: true }));
    return Item ? record<UsageLog>(Item) : undefined;
  };
  return {
    forJob,

    async record({ userId, jobId, periodStart, pages }, build) {
      const periodKey = keys.usagePeriod(userId, periodStart);
      return retry(async () => {
        const { Item } = await db.client.send(new GetCommand({ TableName, Key: periodKey, ConsistentRead: true }));
        const usedBefore = Item ? Number(Item.pagesUsed ?? 0) : undefined;
        const log: UsageLog = build(usedBefore ?? 0);
        try {
          await db.client.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Update: {
                    TableName,
                    Key: periodKey,
                    UpdateExpression: 'SET pagesUsed = :after, userId = :user, periodStart = :start, entity = :entity',
                    // Moves only from the count just read: a racing result makes this one retry.
                    ConditionExpression: usedBefore === undefined ? 'attribute_not_exists(pk)' : 'pagesUsed = :before',
                    ExpressionAttributeValues: {
                      ':after': (usedBefore ?? 0) + pages,
                      ':user': userId,
                      ':start': periodStart,
                      ':entity': entities.usagePeriod.name,
                      ...(usedBefore === undefined ? {} : { ':before': usedBefore }),
                    },
                  },
                },
                // The job's one log, and with it the invoicing task when there is overage (the outbox).
                { Put: { TableName, Item: usageItem(log), ConditionExpression: 'attribute_not_exists(pk)' } },
              ],
            }),
          );
          return log;
        } catch (error) {
          // Another completion of the job recorded it first: that log is the answer, nothing is counted.
          if (failedConditions(error)?.includes(logAction)) {
            const recorded = await forJob(jobId);
            if (recorded) return recorded;
          }
          throw error;
        }
      }, periodContention);
    },
  };
}
