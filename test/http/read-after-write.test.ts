import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainStream } from '../../infra/local/stream-poller.ts';
import { startApi, uploadPdf, seedUsers, type Account } from '../support/api.ts';
import { testStores, ensureTestTable } from '../support/stores.ts';

/**
 * Read after write through HTTP (issue 26; docs/architecture.md, "Read after write"): every book here is made as a
 * client makes it (`POST /ocr`, the worker's callbacks, `PATCH`), and each listing and search is asked
 * right after the write that set it up, with no waiting. No stream poller runs in this process, so the
 * index's other feed, the table's stream, is never applied until the last test drains it: what the
 * answers show, the writes put there themselves. The catalogue's totals count every book in the
 * table, so this file has a table of its own.
 */
process.env.TABLE_NAME = `raw-${randomUUID()}`;
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let ed: Account, mo: Account, other: Account, reader: Account;

type Listed = { total: number; books: { bookTextId: string; fileName: string }[] };
const list = async (query: string, account?: Account): Promise<Listed> => {
  const res = await api.call('GET', `/ocr/books${query}`, { token: account?.token });
  expect(res.status).toBe(200);
  return res.body as Listed;
};
const ids = (listed: Listed) => listed.books.map((b) => b.bookTextId);
const search = async (query: string, account?: Account): Promise<{ total: number; hits: { bookTextId: string; pageNumber: number }[] }> => {
  const res = await api.call('GET', `/ocr/search?${query}`, { token: account?.token });
  expect(res.status).toBe(200);
  return res.body;
};
const patch = async (bookTextId: string, body: Record<string, unknown>, account: Account) =>
  expect((await api.call('PATCH', `/ocr/books/${bookTextId}`, { token: account.token, body })).status).toBe(200);

interface Uploaded {
  bookTextId: string;
  jobId: string;
  fileId: string;
  userId: string;
}
/** `POST /ocr` with these form fields; `public` then publishes it with a PATCH (a BookText starts private). */
async function upload(account: Account, fields: Record<string, string>, options: { public?: boolean; name?: string } = {}): Promise<Uploaded> {
  const { bookTextId, jobId, fileId } = await uploadPdf(api, account.token, { fields, name: options.name });
  const made = { bookTextId, jobId, fileId, userId: account.userId };
  if (options.public !== false) await patch(made.bookTextId, { visibility: 'public' }, account);
  return made;
}
const callback = async (path: '/ocr/result/page' | '/ocr/result', job: Uploaded, body: Record<string, unknown>) =>
  expect((await api.call('POST', path, { token: ed.token, body: { jobId: job.jobId, fileId: job.fileId, userId: job.userId, ...body } })).status).toBeLessThan(300);

beforeAll(async () => {
  await ensureTestTable();
  api = await startApi();
  ({ ed, mo, other, reader } = await seedUsers(stores, [
    { key: 'ed', username: 'ed', email: 'ed@example.com', role: 'editor' },
    { key: 'mo', username: 'mo', email: 'mo@example.com', subscription: { tier: 'pro', status: 'active' } },
    { key: 'other', username: 'other', email: 'other@example.com', subscription: { tier: 'pro', status: 'active' } },
    { key: 'reader', username: 'reader', email: 'reader@example.com' },
  ]));
}, 120_000);
afterAll(() => api?.close());

describe('GET /ocr/books right after the writes that set it up', () => {
  let alpha: Uploaded, beta: Uploaded, gamma: Uploaded, secret: Uploaded;
  beforeAll(async () => {
    alpha = await upload(mo, { tags: 'hadith,fiqh', categories: 'law', language: 'ar' }, { name: 'Alpha.pdf' });
    beta = await upload(other, { tags: 'tafsir', categories: 'history', language: 'en' }, { name: 'beta.pdf' });
    gamma = await upload(other, { tags: 'hadith', categories: 'history', language: 'ar' }, { name: 'gamma.pdf' });
    secret = await upload(mo, { tags: 'hadith', language: 'ar' }, { public: false, name: 'delta.pdf' });
  });

  it('filters by tags, categories, language and status, with exact totals, for every caller', async () => {
    expect(ids(await list('?tags=hadith'))).toEqual([gamma.bookTextId, alpha.bookTextId]);
    expect(ids(await list('?tags=hadith', mo))).toEqual([secret.bookTextId, gamma.bookTextId, alpha.bookTextId]);
    expect((await list('?tags=hadith', reader)).total).toBe(2);
    expect((await list('?tags=hadith', ed)).total).toBe(3);
    expect(ids(await list('?categories=history&language=ar'))).toEqual([gamma.bookTextId]);
    expect(ids(await list('?tags=fiqh,tafsir'))).toEqual([beta.bookTextId, alpha.bookTextId]);
    expect((await list('?status=pending')).total).toBe(3);
    expect((await list('?status=pending&language=en', other)).total).toBe(1);
  });

  it('sorts by name, date and pages as the writes left them', async () => {
    expect(ids(await list('?status=pending&sort=name_asc'))).toEqual([alpha, beta, gamma].map((b) => b.bookTextId));
    expect(ids(await list('?status=pending&sort=date_asc'))).toEqual([alpha, beta, gamma].map((b) => b.bookTextId));
    await patch(alpha.bookTextId, { fileName: 'zeta.pdf' }, mo);
    expect(ids(await list('?status=pending&sort=name_asc'))).toEqual([beta, gamma, alpha].map((b) => b.bookTextId));
    expect(ids(await list('?tags=hadith&sort=name_desc'))).toEqual([alpha, gamma].map((b) => b.bookTextId));
    await callback('/ocr/result/page', beta, { pageNumber: 0, text: 'page zero', pageCount: 40 });
    expect(ids(await list('?language=en&sort=pages_desc'))).toEqual([beta.bookTextId]);
    expect(ids(await list('?categories=history&sort=pages_desc'))).toEqual([beta, gamma].map((b) => b.bookTextId));
    expect(ids(await list('?categories=history&sort=pages_asc'))).toEqual([gamma, beta].map((b) => b.bookTextId));
  });

  it('moves a book between filters, statuses and views when it is edited or reported on', async () => {
    await patch(gamma.bookTextId, { tags: ['tafsir'], categories: ['law'], language: 'fa' }, other);
    expect(ids(await list('?tags=hadith'))).toEqual([alpha.bookTextId]);
    expect((await list('?tags=tafsir&categories=law&language=fa')).total).toBe(1);
    await callback('/ocr/result/page', gamma, { pageNumber: 1, text: 'first page' });
    expect(ids(await list('?status=processing&language=fa'))).toEqual([gamma.bookTextId]);
    await callback('/ocr/result', gamma, { status: 'completed', pageCount: 1, pages: [{ pageNumber: 1, text: 'first page, corrected' }] });
    expect(ids(await list('?status=completed'))).toEqual([gamma.bookTextId]);
    expect((await list('?status=processing&language=fa')).total).toBe(0);

    await patch(gamma.bookTextId, { visibility: 'private' }, other);
    expect(await list('?status=completed')).toMatchObject({ total: 0, books: [] });
    expect((await list('?status=completed', reader)).total).toBe(0);
    expect((await list('?status=completed', other)).total).toBe(1);
    await patch(secret.bookTextId, { visibility: 'public' }, mo);
    expect(ids(await list('?tags=hadith', reader))).toEqual([secret.bookTextId, alpha.bookTextId]);
  });

  it('pages deep into the listing with the newest book placed and counted', async () => {
    const many: Uploaded[] = [];
    for (let i = 0; i < 102; i++) many.push(await upload(other, { tags: 'bulk' }, { public: false }));
    const late = await upload(other, { tags: 'bulk' }, { public: false, name: 'last.pdf' });
    // Every book of this file so far: the four above, then these 103, in date order.
    expect(await list('?offset=100&limit=5&sort=date_asc', ed)).toMatchObject({ total: 107, books: many.slice(96, 101).map((b) => ({ bookTextId: b.bookTextId })) });
    expect(ids(await list('?offset=105&limit=5&sort=date_asc', ed))).toEqual([many[101]!, late].map((b) => b.bookTextId));
    expect(ids(await list('?tags=bulk&offset=100&limit=10&sort=date_asc', other))).toEqual([...many.slice(100), late].map((b) => b.bookTextId));
    expect((await list('?tags=bulk&offset=100&limit=10', other)).total).toBe(103);
    expect((await list('?tags=bulk', reader)).total).toBe(0);
  }, 120_000);
});

describe('search right after the writes', () => {
  it('finds a posted page, an edited page, and stops counting a book made private', async () => {
    const b = await upload(mo, { language: 'en' });
    await callback('/ocr/result/page', b, { pageNumber: 3, text: 'the lamp is lit from a blessed tree' });
    expect((await search('q=blessed')).hits).toEqual([expect.objectContaining({ bookTextId: b.bookTextId, pageNumber: 3 })]);
    await patch(b.bookTextId, { pages: { 3: { text: 'an olive neither of the east nor of the west' } } }, mo);
    expect((await search('q=blessed')).total).toBe(0);
    expect((await search('q=olive')).total).toBe(1);
    const inBook = await api.call('GET', `/ocr/books/${b.bookTextId}/search?q=olive`, { token: mo.token });
    expect(inBook.body).toMatchObject({ total: 1, hits: [{ pageNumber: 3 }] });

    await patch(b.bookTextId, { visibility: 'private' }, mo);
    expect(await search('q=olive')).toMatchObject({ total: 0, hits: [] });
    expect((await search('q=olive', reader)).total).toBe(0);
    expect((await search('q=olive', mo)).total).toBe(1);
    await patch(b.bookTextId, { visibility: 'public' }, mo);
    expect((await search('q=olive', reader)).total).toBe(1);
  });
});

describe('the stream, applied at last', () => {
  it('changes no answer: it puts what the writes put, at their revisions', async () => {
    const before = await Promise.all([list('?tags=hadith'), list('?status=completed', ed), list('?tags=bulk&offset=100', other), search('q=olive')]);
    await drainStream();
    const after = await Promise.all([list('?tags=hadith'), list('?status=completed', ed), list('?tags=bulk&offset=100', other), search('q=olive')]);
    expect(after).toEqual(before);
  }, 120_000);
});
