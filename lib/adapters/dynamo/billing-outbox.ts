import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { InvoiceOutbox } from '../../billing/invoicing.ts';
import type { UsageLog } from '../../billing/usage.ts';
import { keys } from './keys.ts';
import { tableSchema } from './schema.ts';
import { ifConditionHolds, oldestIn, type Db } from './table.ts';

/** The index that lists pending usage logs (keys.pendingInvoice); the billing worker's grant names it. */
export const outboxIndex = 'gsi1';
const index = tableSchema.indexes.find((i) => i.name === outboxIndex)!;
const indexNames = { '#ipk': index.partitionKey, '#isk': index.sortKey };

/**
 * The outbox of overage invoices: the `pending` usage logs, found through a sparse index that holds
 * them only while pending. Claims and settlements are conditional on what the worker read, so runs
 * that overlap never both take one attempt, and a settled log is never reopened.
 */
export function dynamoInvoiceOutbox(db: Db): InvoiceOutbox {
  const TableName = db.tableName;
  return {
    // One bounded page: a run works on at most `limit` logs, the oldest.
    pending: (limit) => oldestIn<UsageLog>(db, outboxIndex, keys.pendingInvoiceIndex, limit),

    claim: (log, retryAt) =>
      ifConditionHolds(() =>
        db.client.send(
          new UpdateCommand({
            TableName,
            Key: keys.jobUsage(log.jobId),
            UpdateExpression: 'SET attempts = :next, nextAttemptAt = :retryAt',
            ConditionExpression: 'paymentStatus = :pending AND attempts = :seen',
            ExpressionAttributeValues: { ':next': log.attempts + 1, ':retryAt': retryAt, ':pending': 'pending', ':seen': log.attempts },
          }),
        ),
      ),

    settle: (log, outcome, at) =>
      ifConditionHolds(() =>
        db.client.send(
          new UpdateCommand({
            TableName,
            Key: keys.jobUsage(log.jobId),
            UpdateExpression: `SET paymentStatus = :status, settledAt = :at${outcome.paymentStatus === 'invoiced' ? ', invoiceId = :invoice' : ''} REMOVE nextAttemptAt, #ipk, #isk`,
            ExpressionAttributeNames: indexNames,
            // An invoice made by a late attempt wins over an earlier failure; a failure never reopens or overrides a settled log.
            ConditionExpression:
              outcome.paymentStatus === 'invoiced' ? 'paymentStatus IN (:pending, :failed)' : 'paymentStatus = :pending AND attempts = :attempts',
            ExpressionAttributeValues: {
              ':status': outcome.paymentStatus,
              ':at': at,
              ':pending': 'pending',
              ...(outcome.paymentStatus === 'invoiced' ? { ':invoice': outcome.invoiceId, ':failed': 'invoice_failed' } : { ':attempts': log.attempts }),
            },
          }),
        ),
      ),
  };
}
