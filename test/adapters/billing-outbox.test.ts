import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { dynamoInvoiceOutbox } from '../../lib/adapters/dynamo/billing-outbox.ts';
import { dynamoUsageStore, usageItem } from '../../lib/adapters/dynamo/usage.ts';
import type { UsageLog } from '../../lib/billing/usage.ts';

/** The outbox and usage-store requests as DynamoDB receives them. */
const dynamo = mockClient(DynamoDBDocumentClient);
const db = { client: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), tableName: 'maktaba' };

const log: UsageLog = {
  usageId: '65a1b2c3d4e5f60718293a4b',
  userId: 'u1',
  jobId: 'job-1',
  periodStart: '2026-01-01T00:00:00.000Z',
  pages: 5,
  freePages: 2,
  overagePages: 3,
  overageChargeCents: 6,
  totalPagesUsed: 103,
  remainingCredits: 0,
  paymentStatus: 'pending',
  attempts: 0,
  nextAttemptAt: '2026-01-05T10:00:00.000Z',
  createdAt: '2026-01-05T10:00:00.000Z',
};

const canceled = (...codes: string[]) =>
  new TransactionCanceledException({ message: 'canceled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });

describe('usage log item', () => {
  it('is keyed by its job, and sits in the pending-invoice index only while pending', () => {
    expect(usageItem(log)).toMatchObject({ pk: 'OCRJOB#job-1', sk: 'USAGE', entity: 'UsageLog', gsi1pk: 'INVOICING#PENDING', gsi1sk: '2026-01-05T10:00:00.000Z#job-1' });
    expect(usageItem({ ...log, paymentStatus: 'not_required' })).not.toHaveProperty('gsi1pk');
  });
});

describe('DynamoDB usage store', () => {
  beforeEach(() => dynamo.reset());

  it('counts the pages and writes the log (with its invoicing task) in one transaction, only if the job has none', async () => {
    dynamo.on(GetCommand).resolves({ Item: { pagesUsed: 98 } });
    dynamo.on(TransactWriteCommand).resolves({});
    await expect(dynamoUsageStore(db).record({ userId: 'u1', jobId: 'job-1', periodStart: log.periodStart, pages: 5 }, () => log)).resolves.toEqual(log);
    const [update, put] = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(update!.Update).toMatchObject({ ConditionExpression: 'pagesUsed = :before', ExpressionAttributeValues: { ':before': 98, ':after': 103 } });
    expect(put!.Put).toMatchObject({ Item: usageItem(log), ConditionExpression: 'attribute_not_exists(pk)' });
  });

  it('answers the log already recorded when another completion of the job wrote it first, counting nothing', async () => {
    const recorded = { ...usageItem({ ...log, usageId: 'first' }) };
    dynamo.on(GetCommand, { Key: { pk: 'USER#u1', sk: `USAGE#${log.periodStart}` } }).resolves({ Item: { pagesUsed: 98 } });
    dynamo.on(GetCommand, { Key: { pk: 'OCRJOB#job-1', sk: 'USAGE' } }).resolves({ Item: recorded });
    dynamo.on(TransactWriteCommand).rejects(canceled('ConditionalCheckFailed', 'ConditionalCheckFailed'));
    const answer = await dynamoUsageStore(db).record({ userId: 'u1', jobId: 'job-1', periodStart: log.periodStart, pages: 5 }, () => log);
    expect(answer).toMatchObject({ usageId: 'first' });
    expect(answer).not.toHaveProperty('pk');
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('tries again when only the period count moved under it', async () => {
    dynamo.on(GetCommand).resolves({ Item: { pagesUsed: 98 } });
    dynamo.on(TransactWriteCommand).rejectsOnce(canceled('ConditionalCheckFailed', 'None')).resolves({});
    await dynamoUsageStore(db).record({ userId: 'u1', jobId: 'job-1', periodStart: log.periodStart, pages: 5 }, () => log);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });
});

describe('DynamoDB invoice outbox', () => {
  beforeEach(() => dynamo.reset());
  const outbox = dynamoInvoiceOutbox(db);

  it('reads one bounded page of pending logs from the sparse index, oldest first, as records', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [usageItem(log)] });
    await expect(outbox.pending(100)).resolves.toEqual([log]);
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input).toEqual({
      TableName: 'maktaba',
      IndexName: 'gsi1',
      KeyConditionExpression: '#ipk = :pk',
      ExpressionAttributeNames: { '#ipk': 'gsi1pk' },
      ExpressionAttributeValues: { ':pk': 'INVOICING#PENDING' },
      Limit: 100,
    });
  });

  it('claims an attempt only from the attempts it read, and says when another run took it', async () => {
    dynamo.on(UpdateCommand).resolvesOnce({}).rejectsOnce(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    await expect(outbox.claim(log, '2026-01-05T10:01:00.000Z')).resolves.toBe(true);
    await expect(outbox.claim(log, '2026-01-05T10:01:00.000Z')).resolves.toBe(false);
    expect(dynamo.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({
      Key: { pk: 'OCRJOB#job-1', sk: 'USAGE' },
      UpdateExpression: 'SET attempts = :next, nextAttemptAt = :retryAt',
      ConditionExpression: 'paymentStatus = :pending AND attempts = :seen',
      ExpressionAttributeValues: { ':next': 1, ':seen': 0, ':retryAt': '2026-01-05T10:01:00.000Z' },
    });
  });

  it('settles out of the index: an invoice over a pending or failed log, a failure only over its own pending attempt', async () => {
    dynamo.on(UpdateCommand).resolves({});
    await outbox.settle({ ...log, attempts: 2 }, { paymentStatus: 'invoiced', invoiceId: 'in_1' }, '2026-01-05T10:05:00.000Z');
    await outbox.settle({ ...log, attempts: 8 }, { paymentStatus: 'invoice_failed' }, '2026-01-05T12:05:00.000Z');
    const [invoiced, failed] = dynamo.commandCalls(UpdateCommand).map((c) => c.args[0].input);
    expect(invoiced).toMatchObject({
      UpdateExpression: 'SET paymentStatus = :status, settledAt = :at, invoiceId = :invoice REMOVE nextAttemptAt, #ipk, #isk',
      ExpressionAttributeNames: { '#ipk': 'gsi1pk', '#isk': 'gsi1sk' },
      ConditionExpression: 'paymentStatus IN (:pending, :failed)',
      ExpressionAttributeValues: { ':status': 'invoiced', ':invoice': 'in_1', ':pending': 'pending', ':failed': 'invoice_failed' },
    });
    expect(failed).toMatchObject({
      UpdateExpression: 'SET paymentStatus = :status, settledAt = :at REMOVE nextAttemptAt, #ipk, #isk',
      ConditionExpression: 'paymentStatus = :pending AND attempts = :attempts',
      ExpressionAttributeValues: { ':status': 'invoice_failed', ':attempts': 8 },
    });
  });
});
