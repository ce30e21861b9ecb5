import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { batchPut } from '../../lib/adapters/dynamo/books.ts';
import { dynamoNotificationStore } from '../../lib/adapters/dynamo/notifications.ts';
import { dynamoLedger } from '../../ocr-worker/adapters/dynamo-ledger.ts';
import { batchGet } from '../../lib/adapters/dynamo/table.ts';
import { policies } from '../../lib/retry.ts';

/** Batches as DynamoDB receives them; the backoff's waits run on fake timers. */
const dynamo = mockClient(DynamoDBDocumentClient);
const db = { client: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), tableName: 'maktaba' };
const key = (n: number) => ({ pk: `K#${n}`, sk: 'S' });

/** Settles a call whose retries wait on timers. */
async function settle<T>(call: Promise<T>): Promise<T> {
  const settled = call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await vi.runAllTimersAsync();
  const outcome = await settled;
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

describe('DynamoDB batches', () => {
  beforeEach(() => {
    dynamo.reset();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('reads the keys a BatchGetItem left unprocessed again', async () => {
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { maktaba: [{ ...key(1), n: 1 }] }, UnprocessedKeys: { maktaba: { Keys: [key(2)] } } })
      .resolvesOnce({ Responses: { maktaba: [{ ...key(2), n: 2 }] } });
    await expect(settle(batchGet(db, [key(1), key(2)]))).resolves.toEqual([{ n: 1 }, { n: 2 }]);
    expect(dynamo.commandCalls(BatchGetCommand).at(1)?.args[0].input.RequestItems).toEqual({ maktaba: { Keys: [key(2)] } });
  });

  it('fails clearly, not with part of the items, when keys stay unprocessed', async () => {
    dynamo.on(BatchGetCommand).resolves({ Responses: { maktaba: [] }, UnprocessedKeys: { maktaba: { Keys: [key(1)] } } });
    await expect(settle(batchGet(db, [key(1)]))).rejects.toThrow(/unprocessed after 9 attempts/);
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(policies.unprocessedItems.attempts);
  });

  it('writes the items a BatchWriteItem left unprocessed again, within the same cap', async () => {
    const put = { PutRequest: { Item: key(1) } };
    dynamo.on(BatchWriteCommand).resolves({ UnprocessedItems: { maktaba: [put] } });
    await expect(settle(batchPut(db, [key(1)]))).rejects.toThrow(/unprocessed after 9 attempts/);
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(9);
  });

  it("bounds the OCR worker ledger's reads of done pages the same way", async () => {
    dynamo.on(BatchGetCommand).resolves({ Responses: { ledger: [] }, UnprocessedKeys: { ledger: { Keys: [{ jobId: 'j', item: 'page#00001' }] } } });
    await expect(settle(dynamoLedger(db.client, 'ledger').donePages('j', [1]))).rejects.toThrow(/unprocessed after 9 attempts/);
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(9);
  });
});

describe('marking a notification read', () => {
  beforeEach(() => {
    dynamo.reset();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  const canceled = (code: string) =>
    new TransactionCanceledException({ message: 'canceled', $metadata: {}, CancellationReasons: [{ Code: code }, { Code: 'None' }] });

  it('fails when it keeps colliding, rather than answering the notification unread', async () => {
    dynamo.on(TransactWriteCommand).rejects(canceled('TransactionConflict'));
    dynamo.on(GetCommand).resolves({ Item: { notificationId: 'n1', isRead: false } });
    await expect(settle(dynamoNotificationStore(db).markRead('u1', 'n1', '2026-01-01T00:00:00.000Z'))).rejects.toThrow('Inbox is too busy');
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(12);
  });

  it('answers a notification already read (its condition failed) as it is, without retrying', async () => {
    dynamo.on(TransactWriteCommand).rejects(canceled('ConditionalCheckFailed'));
    dynamo.on(GetCommand).resolves({ Item: { notificationId: 'n1', isRead: true } });
    await expect(settle(dynamoNotificationStore(db).markRead('u1', 'n1', '2026-01-01T00:00:00.000Z'))).resolves.toMatchObject({ isRead: true });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });
});
