import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UsageLog, UsageStore } from '../../billing/usage.ts';
import { keys } from './keys.ts';
import { contentionPause, isContention, type Db } from './table.ts';

const maxAttempts = 20;

export function dynamoUsageStore(db: Db): UsageStore {
  const TableName = db.tableName;
  return {
    async record(userId, periodStart, pages, build) {
      const periodKey = keys.usagePeriod(userId, periodStart);
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        if (attempt > 0) await contentionPause(attempt);
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
                      ':entity': 'UsagePeriod',
                      ...(usedBefore === undefined ? {} : { ':before': usedBefore }),
                    },
                  },
                },
                {
                  Put: {
                    TableName,
                    Item: { ...keys.usageLog(userId, log.createdAt, log.usageId), entity: 'UsageLog', ...log },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
              ],
            }),
          );
          return log;
        } catch (error) {
          if (!isContention(error)) throw error;
        }
      }
      throw new Error('Usage could not be recorded: too many concurrent updates');
    },

    async settle(log) {
      await db.client.send(
        new UpdateCommand({
          TableName,
          Key: keys.usageLog(log.userId, log.createdAt, log.usageId),
          UpdateExpression: 'SET paymentStatus = :status, invoiceId = :invoice, invoiceError = :error',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':status': log.paymentStatus, ':invoice': log.invoiceId ?? null, ':error': log.invoiceError ?? null },
        }),
      );
    },
  };
}
