import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../lib/adapters/aws/clients.ts';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { ledgerBilling } from '../../lib/adapters/billing/ledger.ts';
import { dynamoInvoiceOutbox } from '../../lib/adapters/dynamo/billing-outbox.ts';
import { dynamoOwedUsageStore } from '../../lib/adapters/dynamo/owed-usage.ts';
import { ensureTable } from '../../lib/adapters/dynamo/ensure-table.ts';
import type { Db } from '../../lib/adapters/dynamo/table.ts';
import { dynamoUsageStore } from '../../lib/adapters/dynamo/usage.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import type { Billing } from '../../lib/billing/billing.ts';
import { invoicePending, invoicingSchedule } from '../../lib/billing/invoicing.ts';
import { calendarMonth } from '../../lib/billing/subscriptions.ts';
import { parseTierCatalogue } from '../../lib/billing/tiers.ts';
import { newObjectId } from '../../lib/ids.ts';
import { recordFinalResult } from '../../lib/ocr/jobs/callbacks.ts';
import { seed } from '../../infra/local/seed.ts';
import { testStores } from '../support/stores.ts';

/**
 * Page usage and its invoice when the payment provider is slow (issue 12, finding 6): a completion
 * never waits for the provider, and however often one job's completion arrives (a retry after a
 * timeout, a duplicate delivery, racing copies) its pages are counted and invoiced once; the billing
 * worker settles every pending log. Each test has a table of its own: the worker takes every pending
 * invoice of its table.
 */
const tierCatalogue = parseTierCatalogue(undefined);

async function world() {
  const db: Db = { client: dynamoDocumentClient(), tableName: `maktaba-test-billing-${randomUUID().slice(0, 8)}` };
  await ensureTable(new DynamoDBClient({}), db.tableName);
  const stores = testStores(db);
  const ledger = ledgerBilling(db);
  const usage = dynamoUsageStore(db);
  const callbackDeps = (billing: Billing = ledger) => ({
    ...stores,
    usage,
    owedUsage: dynamoOwedUsageStore(db),
    uploads: s3Objects(s3Client(), process.env.UPLOADS_BUCKET!),
    tierCatalogue,
    // Only the code before the fix invoiced from the callback: it is handed the provider too.
    billing: async () => billing,
    now: () => new Date(),
  });
  const worker = (billing: Billing, at = new Date()) =>
    invoicePending({ outbox: dynamoInvoiceOutbox(db), users: stores.users, billing: async () => billing }, { now: () => at, hasTime: () => true });

  let users = 0;
  /** A basic member (100 credits) who has used 98 pages this month. */
  const member = async () => {
    const key = `m${++users}`;
    const out = await seed(stores, { users: [{ key, username: key, subscription: { tier: 'basic', status: 'active', pagesUsed: 98 } }] }, {
      now: new Date(),
      tierCatalogue,
      issueToken: async () => 'unused',
    });
    return out.users[key]!.userId;
  };
  const pagesUsed = (userId: string) => stores.subscriptions.pagesUsed(userId, calendarMonth(new Date()).start);
  return { ledger, usage, callbackDeps, worker, member, pagesUsed };
}

/** A provider that starts creating the invoice (the ledger records it) and then never answers. */
function hangingProvider(ledger: Billing) {
  let called!: () => void;
  const reached = new Promise<'waiting on the provider'>((resolve) => (called = () => resolve('waiting on the provider')));
  const billing: Billing = {
    async invoiceOverage(charge) {
      await ledger.invoiceOverage(charge);
      called();
      return new Promise(() => undefined);
    },
  };
  return { billing, reached };
}

const failingProvider: Billing = {
  invoiceOverage: async () => {
    throw new Error('api_error: Stripe is down');
  },
};

const completion = (userId: string) => ({ jobId: randomUUID(), fileId: newObjectId(), userId, status: 'completed' as const, pageCount: 5 });
const minutesLater = (minutes: number) => new Date(Date.now() + minutes * 60_000);

describe('a completion and its invoice', () => {
  it('answers without waiting for the payment provider', async () => {
    const w = await world();
    const userId = await w.member();
    const provider = hangingProvider(w.ledger);
    const answer = recordFinalResult(w.callbackDeps(provider.billing), completion(userId));
    expect(await Promise.race([answer.then(() => 'answered'), provider.reached])).toBe('answered');
    expect((await answer).usageInfo).toEqual({
      freePages: 2,
      overagePages: 3,
      overageChargeCents: 6,
      totalPagesUsed: 103,
      remainingCredits: 0,
      paymentStatus: 'pending',
    });
  });

  it('counts and invoices a job once when its completion is retried after the first call died mid-way', async () => {
    const w = await world();
    const userId = await w.member();
    const body = completion(userId);
    const provider = hangingProvider(w.ledger);
    // The first call is abandoned where it stands (on AWS: the function timed out), then retried.
    await Promise.race([provider.reached, recordFinalResult(w.callbackDeps(provider.billing), body)]);
    const retried = await recordFinalResult(w.callbackDeps(), body);
    expect(retried.usageInfo).toMatchObject({ freePages: 2, overagePages: 3, totalPagesUsed: 103 });
    expect(await w.pagesUsed(userId)).toBe(103);

    // The worker's first attempt dies after the provider made the invoice; the next, once due, settles it.
    await Promise.race([provider.reached, w.worker(provider.billing)]);
    expect(await w.worker(w.ledger)).toMatchObject({ invoiced: 0 });
    expect(await w.worker(w.ledger, minutesLater(invoicingSchedule.retryDelayMs(1) / 60_000))).toMatchObject({ invoiced: 1 });
    expect(await w.ledger.invoices(userId)).toMatchObject([{ jobId: body.jobId, pages: 3, amountCents: 6 }]);
    expect(await w.usage.forJob(body.jobId)).toMatchObject({ paymentStatus: 'invoiced', attempts: 2, invoiceId: expect.any(String) });
    // A completion arriving later still finds the job's one usage, now invoiced.
    expect((await recordFinalResult(w.callbackDeps(), body)).usageInfo).toMatchObject({ totalPagesUsed: 103, paymentStatus: 'invoiced' });
    expect(await w.pagesUsed(userId)).toBe(103);
  });

  it('counts and invoices a job once when copies of its completion race', async () => {
    const w = await world();
    const userId = await w.member();
    const body = completion(userId);
    const answers = await Promise.all(Array.from({ length: 6 }, () => recordFinalResult(w.callbackDeps(), body)));
    expect(new Set(answers.map((a) => a.usageInfo?.totalPagesUsed))).toEqual(new Set([103]));
    expect(await w.pagesUsed(userId)).toBe(103);
    // Overlapping worker runs take each attempt once.
    const runs = await Promise.all([w.worker(w.ledger), w.worker(w.ledger), w.worker(w.ledger)]);
    expect(runs.reduce((sum, r) => sum + r.invoiced, 0)).toBe(1);
    expect((await w.ledger.invoices(userId)).map((i) => i.amountCents)).toEqual([6]);
  });
});

describe('the billing worker', () => {
  it('retries with backoff, reports the oldest wait, and settles invoice_failed after the last attempt', async () => {
    const w = await world();
    const body = completion(await w.member());
    await recordFinalResult(w.callbackDeps(), body);
    let at = new Date();
    const first = await w.worker(failingProvider, at);
    expect(first).toMatchObject({ invoiced: 0, failed: 0, retrying: 1 });
    for (let attempt = 1; attempt < invoicingSchedule.maxAttempts; attempt++) {
      // Not due before its backoff has passed.
      expect(await w.worker(failingProvider, new Date(at.getTime() + invoicingSchedule.retryDelayMs(attempt) - 1000))).toMatchObject({ retrying: 0 });
      at = new Date(at.getTime() + invoicingSchedule.retryDelayMs(attempt));
      const run = await w.worker(failingProvider, at);
      expect(run.oldestPendingSeconds).toBeGreaterThanOrEqual(Math.floor((at.getTime() - Date.now()) / 1000));
      expect(run).toMatchObject(attempt + 1 < invoicingSchedule.maxAttempts ? { retrying: 1 } : { failed: 1, retrying: 0 });
    }
    expect(await w.usage.forJob(body.jobId)).toMatchObject({ paymentStatus: 'invoice_failed', attempts: invoicingSchedule.maxAttempts });
    // Settled: no longer pending, so nothing is tried again and nothing is reported waiting.
    expect(await w.worker(w.ledger, minutesLater(24 * 60))).toEqual({ invoiced: 0, failed: 0, withoutCustomer: 0, retrying: 0, oldestPendingSeconds: 0 });
    // Every attempt fell within the 24 hours Stripe keeps an idempotency key.
    expect((at.getTime() - Date.now()) / 3_600_000).toBeLessThan(24);
  });

  it('settles a log whose last attempt died unsettled as invoice_failed', async () => {
    const w = await world();
    const body = completion(await w.member());
    await recordFinalResult(w.callbackDeps(), body);
    const provider = hangingProvider(w.ledger);
    let at = new Date();
    for (let attempt = 1; attempt < invoicingSchedule.maxAttempts; attempt++) {
      await w.worker(failingProvider, at);
      at = new Date(at.getTime() + invoicingSchedule.retryDelayMs(attempt));
    }
    await Promise.race([provider.reached, w.worker(provider.billing, at)]);
    at = new Date(at.getTime() + invoicingSchedule.retryDelayMs(invoicingSchedule.maxAttempts));
    expect(await w.worker(w.ledger, at)).toMatchObject({ failed: 1 });
    expect(await w.usage.forJob(body.jobId)).toMatchObject({ paymentStatus: 'invoice_failed' });
  });

  it('leaves logs with nothing owed out of the outbox', async () => {
    const w = await world();
    const userId = await w.member();
    const answer = await recordFinalResult(w.callbackDeps(), { ...completion(userId), pageCount: 2 });
    expect(answer.usageInfo).toMatchObject({ overagePages: 0, paymentStatus: 'not_required' });
    expect(await w.worker(w.ledger)).toEqual({ invoiced: 0, failed: 0, withoutCustomer: 0, retrying: 0, oldestPendingSeconds: 0 });
    expect(await w.ledger.invoices(userId)).toEqual([]);
  });
});
