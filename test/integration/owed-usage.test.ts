import { randomUUID } from 'node:crypto';
import { DynamoDBClient, InternalServerError } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../lib/adapters/aws/clients.ts';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { ledgerBilling } from '../../lib/adapters/billing/ledger.ts';
import { dynamoInvoiceOutbox } from '../../lib/adapters/dynamo/billing-outbox.ts';
import { ensureTable } from '../../lib/adapters/dynamo/ensure-table.ts';
import { dynamoOwedUsageStore } from '../../lib/adapters/dynamo/owed-usage.ts';
import type { Db } from '../../lib/adapters/dynamo/table.ts';
import { dynamoUsageStore } from '../../lib/adapters/dynamo/usage.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { calendarMonth } from '../../lib/billing/subscriptions.ts';
import { parseTierCatalogue } from '../../lib/billing/tiers.ts';
import { newObjectId } from '../../lib/ids.ts';
import { metadataView } from '../../lib/ocr/book-text.ts';
import { recordFinalResult, usageErrorText } from '../../lib/ocr/jobs/callbacks.ts';
import { runBillingWorker } from '../../functions/billing-worker/handler.ts';
import { seed } from '../../infra/local/seed.ts';
import { testStores } from '../support/stores.ts';

/**
 * Issue 29 through the real SDK against DynamoDB Local: a completed job is always billed once. The
 * table's client is wrapped so a test can fail the usage write, or every call after the completion's
 * write (DynamoDB killed mid-burst); the billing worker's run then bills what is owed, once.
 */
const tierCatalogue = parseTierCatalogue(undefined);

type Send = DynamoDBDocumentClient['send'];
const entitiesOf = (command: unknown): unknown[] =>
  command instanceof TransactWriteCommand
    ? (command.input.TransactItems ?? []).map((item) => item.Put?.Item?.entity ?? item.Update?.ExpressionAttributeValues?.[':entity'])
    : [];
const down = () => new InternalServerError({ message: 'Internal server error', $metadata: { httpStatusCode: 500 } });

async function world() {
  const real = dynamoDocumentClient();
  const faults = { usageWrites: 0, afterCompletion: false, isDown: false };
  const realSend = real.send.bind(real) as (...args: unknown[]) => Promise<unknown>;
  const client = Object.create(real) as DynamoDBDocumentClient;
  // Fails what the test asks: a usage log's transaction, or everything once a completion's write has committed.
  client.send = (async (command: unknown, ...rest: unknown[]) => {
    if (faults.isDown) throw down();
    const entities = entitiesOf(command);
    if (faults.usageWrites > 0 && entities.includes('UsageLog')) {
      faults.usageWrites--;
      throw down();
    }
    const out = await realSend(command, ...rest);
    if (faults.afterCompletion && entities.includes('OwedUsage')) faults.isDown = true;
    return out;
  }) as unknown as Send;

  const db: Db = { client, tableName: `maktaba-test-owed-${randomUUID().slice(0, 8)}` };
  await ensureTable(new DynamoDBClient({}), db.tableName);
  const stores = testStores(db);
  const usage = dynamoUsageStore(db);
  const ledger = ledgerBilling({ client: real, tableName: db.tableName });
  // Completions two minutes ago: past the reconciler's grace when the worker runs now.
  const completedAt = () => new Date(Date.now() - 2 * 60_000);
  const callbackDeps = () => ({
    ...stores,
    usage,
    owedUsage: dynamoOwedUsageStore(db),
    uploads: s3Objects(s3Client(), process.env.UPLOADS_BUCKET!),
    tierCatalogue,
    now: completedAt,
  });
  const workerDeps = {
    ocrJobs: stores.ocrJobs,
    owedUsage: dynamoOwedUsageStore(db),
    usage,
    users: stores.users,
    subscriptions: stores.subscriptions,
    tierCatalogue,
    outbox: dynamoInvoiceOutbox(db),
    billing: async () => ledger,
  };
  const worker = () => runBillingWorker(workerDeps, { getRemainingTimeInMillis: () => Number.MAX_SAFE_INTEGER });

  /** A basic member (100 credits) who has used 98 pages this month. */
  const member = async () => {
    const out = await seed(stores, { users: [{ key: 'm', username: `m${randomUUID().slice(0, 6)}`, subscription: { tier: 'basic', status: 'active', pagesUsed: 98 } }] }, {
      now: new Date(),
      tierCatalogue,
      issueToken: async () => 'unused',
    });
    return out.users.m!.userId;
  };
  const pagesUsed = (userId: string) => stores.subscriptions.pagesUsed(userId, calendarMonth(new Date()).start);
  return { faults, stores, usage, ledger, callbackDeps, worker, member, pagesUsed };
}

const completion = (userId: string) => ({ jobId: randomUUID(), fileId: newObjectId(), userId, status: 'completed' as const, pageCount: 5 });
const billed = { freePages: 2, overagePages: 3, overageChargeCents: 6, totalPagesUsed: 103, remainingCredits: 0 };

describe('a completed job is billed once (issue 29)', () => {
  it('bills a job completed just before DynamoDB went down (no usage, no usageError) on the next worker run, and nothing on the one after', async () => {
    const w = await world();
    const userId = await w.member();
    const body = completion(userId);
    w.faults.afterCompletion = true;
    // A 500 (the index's reads failed) or a 201 without usage, as most of the incident's were.
    const answer = await recordFinalResult(w.callbackDeps(), body).catch(() => undefined);
    expect(answer?.usageInfo ?? null).toBeNull();
    expect(w.faults.isDown).toBe(true);
    w.faults.isDown = false;
    w.faults.afterCompletion = false;

    // The incident's state: completed, with neither a usage log nor a usageError.
    const book = (await w.stores.ocr.byJobId(body.jobId))!;
    expect(book.status).toBe('completed');
    expect(metadataView(book).usageError).toBeUndefined();
    expect(await w.usage.forJob(body.jobId)).toBeUndefined();

    const first = await w.worker();
    expect(first.owed).toEqual({ billed: 1, failed: 0, oldestOwedSeconds: expect.any(Number) });
    expect(first.owed?.oldestOwedSeconds).toBeGreaterThanOrEqual(119);
    // The overage it recorded is invoiced in the same run.
    expect(first).toMatchObject({ invoiced: 1 });
    expect(await w.usage.forJob(body.jobId)).toMatchObject({ ...billed, pages: 5, paymentStatus: 'invoiced' });
    expect(metadataView((await w.stores.ocr.byJobId(body.jobId))!).usageInfo).toMatchObject(billed);
    expect(await w.pagesUsed(userId)).toBe(103);

    const second = await w.worker();
    expect(second.owed).toEqual({ billed: 0, failed: 0, oldestOwedSeconds: 0 });
    expect(second).toMatchObject({ invoiced: 0 });
    expect(await w.pagesUsed(userId)).toBe(103);
    expect((await w.ledger.invoices(userId)).map((i) => i.amountCents)).toEqual([6]);
  });

  it('answers 201 without usage when only the usage write fails, and a retried result answers the real usageInfo, counted once', async () => {
    const w = await world();
    const userId = await w.member();
    const body = completion(userId);
    // The usage transaction is retried on contention only: one failure fails the call.
    w.faults.usageWrites = 1;
    const answer = await recordFinalResult(w.callbackDeps(), body);
    expect(answer).toMatchObject({ status: 'completed', usageInfo: null });
    expect(metadataView((await w.stores.ocr.byJobId(body.jobId))!).usageError).toBe(usageErrorText);

    const retried = await recordFinalResult(w.callbackDeps(), body);
    expect(retried.usageInfo).toEqual({ ...billed, paymentStatus: 'pending' });
    const book = metadataView((await w.stores.ocr.byJobId(body.jobId))!);
    expect(book.usageInfo).toEqual(retried.usageInfo);
    expect(book.usageError).toBeUndefined();
    expect(await w.pagesUsed(userId)).toBe(103);
    // Settled by the retry: the worker finds nothing owed, and invoices the overage once.
    expect(await w.worker()).toMatchObject({ owed: { billed: 0, oldestOwedSeconds: 0 }, invoiced: 1 });
    expect(await w.pagesUsed(userId)).toBe(103);
  });

  it('counts once when the worker and copies of the completion race for an owed job', async () => {
    const w = await world();
    const userId = await w.member();
    const body = completion(userId);
    w.faults.usageWrites = 1;
    await recordFinalResult(w.callbackDeps(), body);
    const [, ...answers] = await Promise.all([w.worker(), ...Array.from({ length: 4 }, () => recordFinalResult(w.callbackDeps(), body))]);
    for (const a of answers) expect(a.usageInfo).toMatchObject(billed);
    expect(await w.pagesUsed(userId)).toBe(103);
    expect((await w.worker()).owed).toMatchObject({ billed: 0, oldestOwedSeconds: 0 });
  });
});
