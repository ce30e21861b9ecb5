import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId } from '../../lib/ids.ts';
import { drainStream } from '../../infra/local/stream-poller.ts';
import { startApi, seedUsers, type Account } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

/**
 * Search through HTTP (docs/interface.md, "Search"): pages reported by the worker's callbacks, indexed from the
 * table's stream by the search-indexer function (as `npm start` runs it), found by the search routes.
 */
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let editor: Account;
let owner: Account;
let other: Account;
const mine = new Set<string>();

/** The stream's records of this file's books, through the indexer. */
const indexed = () => drainStream({ bookTextIds: mine });

/** A digitized book as the worker leaves it: pages by callback, then the final result. */
async function digitized(pages: string[]) {
  const job = { jobId: randomUUID(), fileId: newObjectId(), userId: owner.userId };
  for (const [i, text] of pages.entries()) {
    const res = await api.call('POST', '/ocr/result/page', { token: editor.token, body: { ...job, pageNumber: i + 1, text } });
    expect(res.status).toBe(200);
  }
  const done = await api.call('POST', '/ocr/result', { token: editor.token, body: { ...job, status: 'completed', language: 'ar', pageCount: pages.length } });
  expect(done.status).toBe(201);
  const bookTextId = (await stores.ocr.byJobId(job.jobId))!.bookTextId;
  mine.add(bookTextId);
  return bookTextId;
}

const patch = (bookTextId: string, body: object) => api.call('PATCH', `/ocr/books/${bookTextId}`, { token: owner.token, body });
const search = (query: string, account?: Account) => api.call('GET', `/ocr/search?${query}`, { token: account?.token });
const inBook = (bookTextId: string, query: string, account?: Account) => api.call('GET', `/ocr/books/${bookTextId}/search?${query}`, { token: account?.token });
const q = (text: string) => `q=${encodeURIComponent(text)}`;
const ids = (res: { body: { hits: { bookTextId: string }[] } }) => res.body.hits.map((h) => h.bookTextId);

let open: string;
let closed: string;

beforeAll(async () => {
  api = await startApi();
  ({ ed: editor, owner, other } = await seedUsers(stores, [
    { key: 'ed', username: 'ed', role: 'editor' },
    { key: 'owner', username: 'owner', subscription: { tier: 'pro', status: 'active' } },
    { key: 'other', username: 'other' },
  ]));
  // A word of its own, so other test files' books (the same table) never match.
  open = await digitized(['إِنَّمَا الأَعْمَالُ بِالنِّيَّاتِ زمرّدةٌ', 'بُنِيَ الإِسْلامُ عَلَى خَمْسٍ زمرّدةٌ']);
  closed = await digitized(['الأعمال الصالحة في السر زمرّدة']);
  expect((await patch(open, { visibility: 'public' })).status).toBe(200);
  await indexed();
}, 120_000);
afterAll(() => api?.close());

describe('GET /ocr/search', () => {
  it('finds pages the worker reported, written without diacritics and with other alef forms, with marked snippets', async () => {
    const res = await search(`${q('زمرده الاسلام')}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      total: 2,
      limit: 20,
      offset: 0,
      hits: [
        { bookTextId: open, fileName: null, language: 'ar', pageNumber: 2, snippet: 'بُنِيَ <mark>الإِسْلامُ</mark> عَلَى خَمْسٍ <mark>زمرّدةٌ</mark>' },
        // A page may lack one of two words (issue 32): after those holding both, saying which it lacks.
        { bookTextId: open, fileName: null, language: 'ar', pageNumber: 1, snippet: 'إِنَّمَا الأَعْمَالُ بِالنِّيَّاتِ <mark>زمرّدةٌ</mark>', forgiven: { approximate: [], missing: ['الاسلام'] } },
      ],
    });
  });

  it('forgives what OCR does to print: a letter of the same shape, a word missing, saying so', async () => {
    const ocr = await digitized(['ثم قال غير المعضوب عليهم ولا الضالين']);
    expect((await patch(ocr, { visibility: 'public' })).status).toBe(200);
    const res = await search(q('غير المغضوب عليهم آمين'));
    expect(res.status).toBe(200);
    expect(res.body.hits[0]).toEqual({
      bookTextId: ocr,
      fileName: null,
      language: 'ar',
      pageNumber: 1,
      snippet: 'ثم قال <mark>غير</mark> <mark>المعضوب</mark> <mark>عليهم</mark> ولا الضالين',
      forgiven: { approximate: [{ word: 'المغضوب', found: 'المعضوب' }], missing: ['آمين'] },
    });
    // A phrase stays exact.
    expect((await search(q('"غير المغضوب عليهم"'))).body.total).toBe(0);
  });

  it('shows private books to their owner and staff only', async () => {
    expect(ids(await search(q('زمرده')))).toEqual([open, open]);
    expect(ids(await search(q('زمرده'), other))).toEqual([open, open]);
    expect(new Set(ids(await search(q('زمرده'), owner)))).toEqual(new Set([open, closed]));
    expect((await search(q('زمرده'), editor)).body.total).toBe(3);
  });

  it('answers at most 20 hits a request (each reads its whole page), and marks a word at the end of a 60,000-character page', async () => {
    const filler = 'قال الشيخ إن العلم نور والجهل ظلام '.repeat(1_800).slice(0, 59_980);
    const long = await digitized(Array.from({ length: 22 }, (_, i) => `${filler} فيروزةٌ ${i}`));
    expect((await patch(long, { visibility: 'public' })).status).toBe(200);
    const res = await search(`${q('فيروزه')}&limit=100`);
    expect(res.body).toMatchObject({ total: 22, limit: 20 });
    expect(res.body.hits).toHaveLength(20);
    for (const hit of res.body.hits as { snippet: string }[]) expect(hit.snippet).toMatch(/<mark>فيروزةٌ<\/mark> \d+$/);
  });

  it('answers 400 without words, and 403 for an invalid token', async () => {
    expect(await search('q=')).toMatchObject({ status: 400, body: { success: false, message: 'q is required: the words to search for' } });
    expect(await search(q('؟؟ --'))).toMatchObject({ status: 400 });
    expect((await api.call('GET', `/ocr/search?${q('زمرده')}`, { token: 'not-a-token' })).status).toBe(403);
  });
});

describe('GET /ocr/books/{bookTextId}/search', () => {
  it('searches one book as GET /ocr/books/{bookTextId} reads it', async () => {
    expect((await inBook(open, q('النيات'))).body).toMatchObject({ bookTextId: open, total: 1, hits: [{ pageNumber: 1 }] });
    expect(await inBook(closed, q('السر'), other)).toMatchObject({ status: 403, body: { message: 'Unauthorized to view this book' } });
    expect((await inBook(closed, q('السر'), owner)).body.total).toBe(1);
    expect(await inBook(newObjectId(), q('السر'))).toMatchObject({ status: 404 });
  });
});

describe('the index follows the table', () => {
  it('re-indexes an edited page, and hides a book made private at once, before the index catches up', async () => {
    const book = await digitized(['كلمة قديمة ياقوتة']);
    expect((await patch(book, { visibility: 'public' })).status).toBe(200);
    await indexed();
    expect((await search(q('ياقوته'), other)).body.total).toBe(1);

    expect((await patch(book, { pages: { 1: { text: 'كلمة جديدة ياقوتة' } } })).status).toBe(200);
    await indexed();
    expect((await inBook(book, q('جديده'))).body.total).toBe(1);
    expect((await inBook(book, q('قديمه'))).body.total).toBe(0);

    expect((await patch(book, { visibility: 'private' })).status).toBe(200);
    // Not yet indexed: the table decides.
    expect((await search(q('ياقوته'), other)).body).toMatchObject({ total: 0, hits: [] });
    await indexed();
    expect((await search(q('ياقوته'), other)).body.total).toBe(0);
    expect((await search(q('ياقوته'), owner)).body.total).toBe(1);
  });
});
