import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { ledgerBilling } from '../../lib/adapters/billing/ledger.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { newObjectId } from '../../lib/ids.ts';
import { metadataView, textKey } from '../../lib/ocr/book-text.ts';
import { billingWorkerDeps, runBillingWorker } from '../../functions/billing-worker/handler.ts';
import { startApi, seedAccounts } from '../support/api.ts';
import { testDb, testStores } from '../support/stores.ts';

/** The worker callbacks (docs/SPEC.md 4.1, state table 3.1) and page credits (section 1), through HTTP. */
const stores = testStores();
const ledger = ledgerBilling(testDb());
const uploads = s3Objects(s3Client(), process.env.UPLOADS_BUCKET!);
let api: Awaited<ReturnType<typeof startApi>>;
let editor: string;
let admin: { userId: string; token: string };
let member: { userId: string; token: string };

let userCount = 0;
/** A fresh user with a subscription, so each usage test starts from its own count. */
async function user(options: { role?: string; subscription?: { tier: string; status: string; pagesUsed?: number } } = {}) {
  const key = `u${++userCount}`;
  const out = await seedAccounts(
    stores,
    { users: [{ key, username: key, role: options.role ?? 'member', ...(options.subscription ? { subscription: options.subscription } : {}) }] },
  );
  return out.users[key]!;
}

const job = (userId: string) => ({ jobId: randomUUID(), fileId: newObjectId(), userId });
const page = (body: object, token = editor) => api.call('POST', '/ocr/result/page', { token, body });
const result = (body: object, token = editor) => api.call('POST', '/ocr/result', { token, body });
const stored = async (jobId: string) => (await stores.ocr.byJobId(jobId))!;
/** One run of the billing worker, as its schedule runs it (against the ledger, as `npm start` does). */
const runWorker = () => runBillingWorker(billingWorkerDeps(), { getRemainingTimeInMillis: () => Number.MAX_SAFE_INTEGER });

beforeAll(async () => {
  api = await startApi();
  editor = (await user({ role: 'editor' })).token;
  admin = await user({ role: 'admin' });
  member = await user({ subscription: { tier: 'basic', status: 'active' } });
});
afterAll(() => api?.close());

describe('callback access', () => {
  it('needs a token (401) and the editor or admin role (403), answered in plain text', async () => {
    const body = job(member.userId);
    expect(await api.call('POST', '/ocr/result', { body })).toMatchObject({ status: 401, body: 'Unauthorized: No token provided' });
    expect(await page({ ...body, pageNumber: 1 }, 'not-a-token')).toMatchObject({ status: 403, body: 'Forbidden: Invalid token' });
    expect(await result(body, member.token)).toMatchObject({ status: 403, body: 'Forbidden: You do not have the required permissions' });
    expect((await result({ ...body, status: 'processing' }, admin.token)).status).toBe(201);
  });

  it('answers 400 when jobId, fileId, userId (or a page number) is missing', async () => {
    const body = job(member.userId);
    for (const missing of ['jobId', 'fileId', 'userId'] as const) {
      const { [missing]: _, ...rest } = body;
      expect(await result(rest)).toMatchObject({ status: 400, body: { success: false, message: `Missing required fields: ${missing}` } });
      expect((await page({ ...rest, pageNumber: 1 })).status).toBe(400);
    }
    expect(await page(body)).toMatchObject({ status: 400, body: { message: 'Missing required fields: pageNumber' } });
    expect(await stores.ocr.byJobId(body.jobId)).toBeUndefined();
  });
});

describe('page results', () => {
  it('creates an orphan BookText (ar, processing, private) and accepts page 0', async () => {
    const body = job(member.userId);
    expect(await page({ ...body, pageNumber: 0, text: 'الصفحة صفر' })).toMatchObject({ status: 200, body: { success: true } });
    const book = await stored(body.jobId);
    expect(book).toMatchObject({ status: 'processing', language: 'ar', visibility: 'private', userId: member.userId, fileId: body.fileId });
    const pages = await stores.ocr.pages(book.bookTextId);
    expect(pages).toMatchObject([{ pageNumber: 0, text: 'الصفحة صفر', storageKey: null, isAIGenerated: true }]);
  });

  it('upserts each page by number, updates pageCount only when truthy, and writes progress', async () => {
    const body = job(member.userId);
    await page({ ...body, pageNumber: 2, text: 'first', pageCount: 7, pagesProcessed: 1, storageKey: 'pages/2.png' });
    await page({ ...body, pageNumber: 2, text: 'second', pageCount: 0, pagesProcessed: 2 });
    const book = await stored(body.jobId);
    expect(book.pageCount).toBe(7);
    expect(book.pagesProcessed).toBe(2);
    expect(book.lastPageUpdate).toMatch(/^\d{4}-\d\d-\d\dT/);
    const pages = await stores.ocr.pages(book.bookTextId);
    expect(pages).toHaveLength(1);
    expect(pages[0]).toMatchObject({ pageNumber: 2, text: 'second', storageKey: null });
    // A late report of less progress does not lower it.
    await page({ ...body, pageNumber: 1, pagesProcessed: 1 });
    expect((await stored(body.jobId)).pagesProcessed).toBe(2);
  });

  it('keeps one error per page: a new error for a page replaces the old, and only status failed records one', async () => {
    const body = job(member.userId);
    await page({ ...body, pageNumber: 1, status: 'failed', error: 'blurred' });
    await page({ ...body, pageNumber: 3, status: 'failed', error: 'torn' });
    await page({ ...body, pageNumber: 1, status: 'failed', error: 'still blurred' });
    await page({ ...body, pageNumber: 4, error: 'ignored without status failed' });
    const errors = Object.values((await stored(body.jobId)).pageErrors).sort((a, b) => a.pageNumber - b.pageNumber);
    expect(errors.map(({ pageNumber, error }) => ({ pageNumber, error }))).toEqual([
      { pageNumber: 1, error: 'still blurred' },
      { pageNumber: 3, error: 'torn' },
    ]);
  });

  it('moves a job in any state to processing', async () => {
    const body = job(member.userId);
    await result({ ...body, status: 'failed', error: 'worker crashed' });
    await page({ ...body, pageNumber: 1 });
    expect((await stored(body.jobId)).status).toBe('processing');
  });

  it('loses nothing when many pages of one new job arrive at once', async () => {
    const body = job(member.userId);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, n) => page({ ...body, pageNumber: n, text: `page ${n}`, pagesProcessed: n + 1 })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const book = await stored(body.jobId);
    const pages = await stores.ocr.pages(book.bookTextId);
    expect(pages.map((p) => p.pageNumber)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(pages.map((p) => p.text)).toEqual(Array.from({ length: 40 }, (_, n) => `page ${n}`));
    // Out-of-order progress reports never lower the count.
    expect(book.pagesProcessed).toBe(40);
  });
});

describe('final results', () => {
  it('sets the supplied status, completedAt on completed, processingTime and error, and upserts pages', async () => {
    const body = job(member.userId);
    const res = await result({
      ...body,
      status: 'completed',
      extractedText: 'نص كامل',
      processingTime: 1234,
      pages: [{ pageNumber: 2, text: 'two' }, { pageNumber: 1, text: 'one', storageKey: 'img/1.png', isAIGenerated: false }],
    });
    expect(res).toMatchObject({ status: 201, body: { message: expect.any(String), status: 'completed' } });
    const book = await stored(body.jobId);
    expect(res.body.bookTextId).toBe(book.bookTextId);
    expect(book).toMatchObject({ status: 'completed', extractedText: 'نص كامل', processingTime: 1234, pageCount: 0 });
    expect(book.completedAt).toEqual(book.updatedAt);
    const pages = await stores.ocr.pages(book.bookTextId);
    expect(pages).toMatchObject([
      { pageNumber: 1, text: 'one', storageKey: 'img/1.png', isAIGenerated: false },
      { pageNumber: 2, text: 'two', storageKey: null, isAIGenerated: true },
    ]);

    await result({ ...body, status: 'failed', error: 'late failure' });
    expect(await stored(body.jobId)).toMatchObject({ status: 'failed', error: 'late failure', extractedText: 'نص كامل' });
  });

  it('creates an orphan with the supplied status and metadata, and keeps language and pageCount when omitted', async () => {
    const body = job(member.userId);
    await result({ ...body, status: 'submission_failed', metadata: { source: 'rescan' }, language: 'en', pageCount: 3 });
    expect(await stored(body.jobId)).toMatchObject({ status: 'submission_failed', language: 'en', pageCount: 3, metadata: { source: 'rescan' } });
    await result({ ...body, status: 'processing' });
    expect(await stored(body.jobId)).toMatchObject({ status: 'processing', language: 'en', pageCount: 3 });
  });

  it('merges metadata only when extractedText is also given', async () => {
    const body = job(member.userId);
    await result({ ...body, status: 'processing', metadata: { a: 1 } });
    await result({ ...body, metadata: { b: 2 } });
    expect((await stored(body.jobId)).metadata).toEqual({ a: 1 });
    await result({ ...body, extractedText: 'text', metadata: { b: 2, a: 3 } });
    expect((await stored(body.jobId)).metadata).toEqual({ a: 3, b: 2 });
  });

  it('keeps text over 10,000 characters in storage with a 1,000-character preview', async () => {
    const body = job(member.userId);
    const long = 'بسم الله '.repeat(1500);
    await result({ ...body, status: 'processing', extractedText: long });
    const book = await stored(body.jobId);
    expect(book.extractedText).toBe(long.slice(0, 1000));
    const key = textKey(body.jobId, book.storedText!.version);
    expect(metadataView(book)).toMatchObject({ textStorageKey: key, textLength: long.length });
    expect(key).toMatch(new RegExp(`^ocr-results/${body.jobId}/[0-9a-f]{24}\\.txt$`));
    expect(await uploads.getText(key)).toBe(long);

    const exactly = 'x'.repeat(10_000);
    await result({ ...body, extractedText: exactly });
    const short = await stored(body.jobId);
    expect(short.extractedText).toBe(exactly);
    expect(metadataView(short).textStorageKey).toBeUndefined();
    expect(await uploads.list(`ocr-results/${body.jobId}/`)).toEqual([]);
  });

  it('answers 500 for a status outside the state table, and stores nothing', async () => {
    const body = job(member.userId);
    const res = await result({ ...body, status: 'done' });
    expect(res).toMatchObject({ status: 500, body: { success: false, message: 'Error saving OCR result' } });
    expect(await stores.ocr.byJobId(body.jobId)).toBeUndefined();
  });
});

describe('page credits on completion', () => {
  const complete = (userId: string, pages: number, extra: object = {}) =>
    result({ ...job(userId), status: 'completed', pageCount: pages, ...extra });

  it('takes pages from the credits first and invoices the rest at 2 cents a page, through the billing worker', async () => {
    const u = await user({ subscription: { tier: 'basic', status: 'active', pagesUsed: 95 } });
    const res = await complete(u.userId, 10);
    const usageInfo = { freePages: 5, overagePages: 5, overageChargeCents: 10, totalPagesUsed: 105, remainingCredits: 0 };
    // The callback never waits for the payment provider: the invoice is the worker's.
    expect(res.body.usageInfo).toEqual({ ...usageInfo, paymentStatus: 'pending' });
    expect(metadataView((await stores.ocr.get(res.body.bookTextId))!).usageInfo).toEqual(res.body.usageInfo);
    await runWorker();
    expect(await ledger.invoices(u.userId)).toMatchObject([{ pages: 5, amountCents: 10, status: 'open' }]);
    // The book shows where its invoice stands.
    expect(metadataView((await stores.ocr.get(res.body.bookTextId))!).usageInfo).toEqual({ ...usageInfo, paymentStatus: 'invoiced' });
  });

  it('charges nothing when the pages fit the credits exactly', async () => {
    const u = await user({ subscription: { tier: 'basic', status: 'active', pagesUsed: 90 } });
    expect((await complete(u.userId, 10)).body.usageInfo).toEqual({
      freePages: 10,
      overagePages: 0,
      overageChargeCents: 0,
      totalPagesUsed: 100,
      remainingCredits: 0,
      paymentStatus: 'not_required',
    });
    expect((await complete(u.userId, 1)).body.usageInfo).toMatchObject({ freePages: 0, overagePages: 1, overageChargeCents: 2, totalPagesUsed: 101 });
    await runWorker();
    expect(await ledger.invoices(u.userId)).toHaveLength(1);
  });

  it('counts pages from pageCount, else the pages sent, else the stored pageCount; none when zero', async () => {
    const u = await user({ subscription: { tier: 'pro', status: 'active' } });
    expect((await complete(u.userId, 0, { pages: [{ pageNumber: 1 }, { pageNumber: 2 }] })).body.usageInfo).toMatchObject({ totalPagesUsed: 2 });
    const body = job(u.userId);
    await page({ ...body, pageNumber: 1, pageCount: 4 });
    expect((await result({ ...body, status: 'completed' })).body.usageInfo).toMatchObject({ totalPagesUsed: 6, remainingCredits: 494 });
    expect((await complete(u.userId, 0)).body.usageInfo).toBeNull();
  });

  it("records a job's usage on its first completed call only: a repeated completion answers the same usage", async () => {
    const u = await user({ subscription: { tier: 'basic', status: 'active' } });
    const body = { ...job(u.userId), pageCount: 3 };
    expect((await result({ ...body, status: 'processing' })).body.usageInfo).toBeNull();
    const first = (await result({ ...body, status: 'completed' })).body.usageInfo;
    expect(first).toMatchObject({ totalPagesUsed: 3, remainingCredits: 97 });
    // A retry after a timeout, or a duplicate delivery, must not count (or invoice) the job's pages again.
    expect((await result({ ...body, status: 'completed' })).body.usageInfo).toEqual(first);
    const next = (await result({ ...job(u.userId), status: 'completed', pageCount: 3 })).body.usageInfo;
    expect(next).toMatchObject({ totalPagesUsed: 6 });
  });

  it('counts and invoices a job once when copies of its completion race', async () => {
    const u = await user({ subscription: { tier: 'basic', status: 'active', pagesUsed: 98 } });
    const body = { ...job(u.userId), status: 'completed', pageCount: 5 };
    const answers = await Promise.all(Array.from({ length: 6 }, () => result(body)));
    expect(answers.every((a) => a.status === 201)).toBe(true);
    expect(new Set(answers.map((a) => JSON.stringify(a.body.usageInfo)))).toEqual(
      new Set([JSON.stringify({ freePages: 2, overagePages: 3, overageChargeCents: 6, totalPagesUsed: 103, remainingCredits: 0, paymentStatus: 'pending' })]),
    );
    await Promise.all([runWorker(), runWorker()]);
    expect(await ledger.invoices(u.userId)).toMatchObject([{ jobId: body.jobId, pages: 3, amountCents: 6 }]);
    expect((await result(body)).body.usageInfo).toMatchObject({ totalPagesUsed: 103, paymentStatus: 'invoiced' });
  });

  it('never charges editors and admins', async () => {
    const u = await user({ role: 'editor' });
    expect((await complete(u.userId, 5000)).body.usageInfo).toEqual({
      freePages: 5000,
      overagePages: 0,
      overageChargeCents: 0,
      totalPagesUsed: 5000,
      remainingCredits: null,
      paymentStatus: 'not_required',
    });
    expect(await ledger.invoices(u.userId)).toEqual([]);
  });

  it('invoices every page of a user without an active subscription', async () => {
    const u = await user({ subscription: { tier: 'basic', status: 'canceled' } });
    expect((await complete(u.userId, 3)).body.usageInfo).toMatchObject({ freePages: 0, overagePages: 3, overageChargeCents: 6 });
  });

  it('still succeeds when usage cannot be recorded, storing usageError', async () => {
    const res = await complete(newObjectId(), 4);
    expect(res).toMatchObject({ status: 201, body: { status: 'completed', usageInfo: null } });
    const book = await stores.ocr.get(res.body.bookTextId);
    // Our words only: the cause (here a missing user; on AWS possibly an SDK error naming a role) is logged.
    expect(metadataView(book!).usageError).toBe('Page usage could not be recorded');
    expect(JSON.stringify(book)).not.toContain('not found');
  });

  it('never spends more credits than exist when completions race for the last ones', async () => {
    const u = await user({ subscription: { tier: 'basic', status: 'active', pagesUsed: 90 } });
    const answers = await Promise.all(Array.from({ length: 8 }, () => complete(u.userId, 5)));
    const infos = answers.map((a) => a.body.usageInfo);
    expect(infos.reduce((sum, i) => sum + i.freePages, 0)).toBe(10);
    expect(infos.reduce((sum, i) => sum + i.overagePages, 0)).toBe(30);
    expect(infos.map((i) => i.totalPagesUsed).sort((a, b) => a - b)).toEqual([95, 100, 105, 110, 115, 120, 125, 130]);
    await runWorker();
    const invoices = await ledger.invoices(u.userId);
    expect(invoices.reduce((sum, i) => sum + i.amountCents, 0)).toBe(60);
  });
});
