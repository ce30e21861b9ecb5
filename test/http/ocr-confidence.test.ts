import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peekQueue } from '../../infra/local/embedded/sqs.ts';
import { newObjectId } from '../../lib/ids.ts';
import { newBookText } from '../../lib/ocr/book-text.ts';
import { maxUncertainRanges, newPage } from '../../lib/ocr/pages/page.ts';
import { startApi, seedUsers, type Account } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

/**
 * Confidence (issue 33; docs/interface.md, "Confidence"): the worker reports how sure its engine was
 * of each page and which words it doubted; readers see it on every page, least confident first when
 * asked; an edit of a page's text drops the marks that indexed the old text.
 */
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let ed: Account, owner: Account, stranger: Account;

beforeAll(async () => {
  api = await startApi();
  ({ ed, owner, stranger } = await seedUsers(stores, [
    { key: 'ed', username: 'ed', role: 'editor' },
    { key: 'owner', username: 'owner', subscription: { tier: 'pro', status: 'active' } },
    { key: 'stranger', username: 'stranger', subscription: { tier: 'pro', status: 'active' } },
  ]));
}, 120_000);
afterAll(() => api?.close());

const page = (body: object) => api.call('POST', '/ocr/result/page', { token: ed.token, body });

/** A job of `owner`'s with pages reported as the worker reports them. */
async function reportedJob(pages: { text: string; confidence?: number | null; uncertain?: [number, number][] }[]) {
  const ids = { jobId: randomUUID(), fileId: newObjectId(), userId: owner.userId };
  for (const [i, p] of pages.entries()) expect((await page({ ...ids, pageNumber: i + 1, pageCount: pages.length, ...p })).status).toBe(200);
  const bookTextId = (await stores.ocr.byJobId(ids.jobId))!.bookTextId;
  return { ...ids, bookTextId };
}

const readBook = async (bookTextId: string, query = '', token = owner.token) => {
  const res = await api.call('GET', `/ocr/books/${bookTextId}${query}`, { token });
  expect(res.status).toBe(200);
  return res.body.book as { totalPages: number; pages: { pageNumber: number; text: string; confidence: number | null; uncertain: [number, number][] }[] };
};

describe('a page’s confidence and uncertain words', () => {
  it('are shown on the job’s text and the book read as the worker reported them; a page without them shows null and none', async () => {
    const text = 'إنما الأعمال بالنيات';
    const job = await reportedJob([{ text, confidence: 62.5, uncertain: [[5, 12]] }, { text: 'text layer' }]);

    const jobText = await api.call('GET', `/ocr/text/${job.jobId}`, { token: owner.token });
    expect(jobText.status).toBe(200);
    expect(jobText.body.data.pages).toMatchObject([
      { pageNumber: 1, text, confidence: 62.5, uncertain: [[5, 12]] },
      { pageNumber: 2, confidence: null, uncertain: [] },
    ]);
    const book = await readBook(job.bookTextId);
    expect(book.pages.map(({ pageNumber, confidence, uncertain }) => ({ pageNumber, confidence, uncertain }))).toEqual([
      { pageNumber: 1, confidence: 62.5, uncertain: [[5, 12]] },
      { pageNumber: 2, confidence: null, uncertain: [] },
    ]);
    // The range marks a whole word of the text, as a client underlines it.
    expect(text.slice(5, 12)).toBe('الأعمال');
  });

  it('a page reported again replaces its reading whole', async () => {
    const job = await reportedJob([{ text: 'one two', confidence: 40, uncertain: [[0, 3]] }]);
    await page({ jobId: job.jobId, fileId: job.fileId, userId: job.userId, pageNumber: 1, text: 'one two' });
    expect((await readBook(job.bookTextId)).pages[0]).toMatchObject({ confidence: null, uncertain: [] });
  });

  it('refuses with 400 a confidence out of 0..100 and ranges that are malformed, outside the text, out of order, or too many', async () => {
    const ids = { jobId: randomUUID(), fileId: newObjectId(), userId: owner.userId, pageNumber: 1, text: 'abc def' };
    const refused = [
      { confidence: 101 },
      { confidence: -1 },
      { confidence: 'high' },
      { uncertain: [[0, 8]] },
      { uncertain: [[3, 3]] },
      { uncertain: [[4, 7], [0, 3]] },
      { uncertain: [[0, 4], [3, 7]] },
      { uncertain: [[0.5, 3]] },
      { uncertain: [[0]] },
      { uncertain: 'all' },
      { text: 'a'.repeat(2 * maxUncertainRanges + 2), uncertain: Array.from({ length: maxUncertainRanges + 1 }, (_, i) => [2 * i, 2 * i + 1]) },
    ];
    for (const body of refused) {
      const res = await page({ ...ids, ...body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.success).toBe(false);
    }
    expect(await stores.ocr.byJobId(ids.jobId)).toBeUndefined();
  });
});

describe('GET /ocr/books/:bookTextId?pageOrder=confidence', () => {
  it('shows the least confident pages first, pages without a confidence last, and pages through that order', async () => {
    const job = await reportedJob([
      { text: 'p1', confidence: 90 },
      { text: 'p2' },
      { text: 'p3', confidence: 35.5 },
      { text: 'p4', confidence: 70 },
      { text: 'p5', confidence: 35.5 },
    ]);
    const order = async (query: string) => (await readBook(job.bookTextId, query)).pages.map((p) => p.pageNumber);
    expect(await order('?pageOrder=confidence')).toEqual([3, 5, 4, 1, 2]);
    expect(await order('?pageOrder=confidence&pageLimit=2&pageOffset=2')).toEqual([4, 1]);
    const window = await readBook(job.bookTextId, '?pageOrder=confidence&pageLimit=2&pageOffset=2');
    expect(window).toMatchObject({ totalPages: 5, pageLimit: 2, pageOffset: 2, hasMore: true });
    // Page order otherwise, as before.
    expect(await order('')).toEqual([1, 2, 3, 4, 5]);
    expect(await order('?pageOrder=anything')).toEqual([1, 2, 3, 4, 5]);
  });

  it('keeps the book’s access rules: a stranger cannot read a private book in any order', async () => {
    const job = await reportedJob([{ text: 'p1', confidence: 20 }]);
    const res = await api.call('GET', `/ocr/books/${job.bookTextId}?pageOrder=confidence`, { token: stranger.token });
    expect(res.status).toBe(403);
  });
});

describe('an edit of a page’s text', () => {
  it('drops the page’s uncertain words (they indexed the old text) and keeps its confidence; a change without text keeps both', async () => {
    const job = await reportedJob([
      { text: 'one two three', confidence: 55, uncertain: [[4, 7]] },
      { text: 'four five', confidence: 45, uncertain: [[0, 4]] },
    ]);
    const patch = (body: object) => api.call('PATCH', `/ocr/books/${job.bookTextId}`, { token: owner.token, body });
    expect((await patch({ pages: { 1: { text: 'one 2 three' }, 2: { isAIGenerated: false } } })).status).toBe(200);
    const pages = (await readBook(job.bookTextId)).pages;
    expect(pages[0]).toMatchObject({ text: 'one 2 three', confidence: 55, uncertain: [] });
    expect(pages[1]).toMatchObject({ text: 'four five', confidence: 45, uncertain: [[0, 4]] });
  });

  it('a page replaced whole (pages as an array) has no reading: null and none', async () => {
    const job = await reportedJob([{ text: 'one two', confidence: 55, uncertain: [[0, 3]] }]);
    expect((await api.call('PATCH', `/ocr/books/${job.bookTextId}`, { token: owner.token, body: { pages: [{ pageNumber: 1, text: 'one two' }] } })).status).toBe(200);
    expect((await readBook(job.bookTextId)).pages[0]).toMatchObject({ confidence: null, uncertain: [] });
  });
});

describe('POST /ocr/books/:bookTextId/pages/:pageNumber/reread', () => {
  const queued = async (rereadId: string) =>
    (await peekQueue(process.env.AWS_ENDPOINT_URL_SQS!, process.env.OCR_QUEUE_URL!)).map((b) => JSON.parse(b)).filter((m) => m.reread?.rereadId === rereadId);
  const reread = (bookTextId: string, pageNumber: string | number, account: Account, body?: object) =>
    api.call('POST', `/ocr/books/${bookTextId}/pages/${pageNumber}/reread`, { token: account.token, ...(body && { body }) });

  /** A completed book of `owner`'s, with its File, as an upload and its job leave it. */
  async function completedBook(pages = ['one two', 'three four']) {
    const at = new Date().toISOString();
    const fileId = newObjectId();
    const book = newBookText({ bookTextId: newObjectId(), jobId: randomUUID(), fileId, userId: owner.userId, fileName: 'scan.pdf', status: 'completed', language: 'ar', pageCount: pages.length }, at);
    const file = { fileId, userId: owner.userId, fileName: 'scan.pdf', author: 'x', fileType: 'application/pdf', fileSize: 1234, tags: [], categories: ['ocr'], visibility: 'private' as const, storageKey: `ocr/${randomUUID()}-scan.pdf`, createdAt: at, updatedAt: at };
    expect(await stores.ocr.create(book, file)).toBe(true);
    await stores.ocr.putPages(pages.map((text, i) => newPage(book.bookTextId, i + 1, { text, confidence: 50, uncertain: [[0, 3]] }, at)));
    return { book, file };
  }

  it('answers 202 at once and queues the page for the worker; asked again while pending, the same reread and no second message', async () => {
    const { book, file } = await completedBook();
    const res = await reread(book.bookTextId, 2, owner, { layout: 'single-block', language: 'en' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ success: true, bookTextId: book.bookTextId, pageNumber: 2 });
    const { rereadId } = res.body as { rereadId: string };
    expect(await queued(rereadId)).toEqual([
      expect.objectContaining({ jobId: book.jobId, fileId: file.fileId, language: 'en', storage: { bucket: process.env.UPLOADS_BUCKET, key: file.storageKey }, reread: { rereadId, pageNumber: 2, layout: 'single-block' } }),
    ]);
    const again = await reread(book.bookTextId, 2, ed);
    expect(again.status).toBe(202);
    expect(again.body.rereadId).toBe(rereadId);
    expect(await queued(rereadId)).toHaveLength(1);
  });

  it('lets the worker post the page once: it replaces the page, the book stays completed, a redelivered post writes nothing', async () => {
    const { book } = await completedBook();
    const { rereadId } = (await reread(book.bookTextId, 1, owner)).body as { rereadId: string };
    const body = { jobId: book.jobId, fileId: book.fileId, userId: owner.userId, pageNumber: 1, text: 'ONE two', confidence: 91, uncertain: [], pageCount: 2, rereadId };
    expect((await page(body)).status).toBe(200);
    expect(await stores.ocr.byJobId(book.jobId)).toMatchObject({ status: 'completed' });
    expect((await readBook(book.bookTextId)).pages[0]).toMatchObject({ text: 'ONE two', confidence: 91, uncertain: [] });
    // The owner corrects the page; the same post arrives again.
    await api.call('PATCH', `/ocr/books/${book.bookTextId}`, { token: owner.token, body: { pages: { 1: { text: 'One two' } } } });
    expect((await page({ ...body, text: 'stale' })).status).toBe(200);
    expect((await readBook(book.bookTextId)).pages[0]).toMatchObject({ text: 'One two' });
  });

  it('refuses others as the book routes do (403, 404), and pages, layouts and books it cannot read again (400, 404)', async () => {
    const { book } = await completedBook();
    expect(await reread(book.bookTextId, 1, stranger)).toMatchObject({ status: 403, body: { message: 'Unauthorized to read this book again' } });
    expect((await api.call('POST', `/ocr/books/${book.bookTextId}/pages/1/reread`, {})).status).toBe(401);
    expect((await reread(newObjectId(), 1, owner)).status).toBe(404);
    expect((await reread('not-an-id', 1, owner)).status).toBe(500);
    expect(await reread(book.bookTextId, 3, owner)).toMatchObject({ status: 404, body: { message: 'Page not found' } });
    expect((await reread(book.bookTextId, 'first', owner)).status).toBe(400);
    expect(await reread(book.bookTextId, 1, owner, { layout: 'columns' })).toMatchObject({ status: 400, body: { message: 'layout must be one of auto, single-block' } });
    expect((await reread(book.bookTextId, 1, owner, { language: 'x'.repeat(200) })).status).toBe(400);
    const running = (await reportedJob([{ text: 'p1' }])).bookTextId;
    expect(await reread(running, 1, owner)).toMatchObject({ status: 400, body: { message: 'Only the pages of a completed book can be read again' } });
  });
});
