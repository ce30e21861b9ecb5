import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newJobId, newObjectId } from '../../lib/ids.ts';
import { newBookText } from '../../lib/ocr/book-text.ts';
import { newPage } from '../../lib/ocr/pages/page.ts';
import { maxLimit, maxOffset } from '../../lib/paging.ts';
import { type SeedOutput } from '../../infra/local/seed.ts';
import { startApi, seedAccounts } from '../support/api.ts';
import { testStores, ensureTestTable } from '../support/stores.ts';
import { drainStream } from '../../infra/local/stream-poller.ts';

/**
 * Absurd and odd paging values on every list endpoint (issue 12, finding 4): never a 5xx; values
 * that are not whole numbers fall back to the spec's defaults (docs/SPEC.md 8); a limit past maxLimit is
 * read as maxLimit; a position past the listing window (maxOffset) is a 400 that says the maximum.
 */
process.env.TABLE_NAME = `paging-${randomUUID()}`;
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let fixture: SeedOutput;
let bookTextId: string;
const token = (key: string) => fixture.users[key]!.token;

const nines = '9'.repeat(400);
/** Values that are not whole numbers: each falls back to the default. */
const odd = ['1e9', '1e3', '-5', '1.5', '', 'abc', ' ', '0x10', 'Infinity', 'NaN'];

beforeAll(async () => {
  await ensureTestTable();
  api = await startApi();
  fixture = await seedAccounts(
    stores,
    {
      users: [
        { key: 'ed', username: 'ed', role: 'editor' },
        { key: 'mo', username: 'mo', subscription: { tier: 'pro', status: 'active' } },
      ],
      notifications: [1, 2, 3].map((n) => ({
        key: `n${n}`,
        recipient: 'mo',
        actor: 'ed',
        type: 'like_on_post' as const,
        title: 'Like',
        body: `like ${n}`,
        createdAt: `2026-01-0${n}T00:00:00.000Z`,
      })),
    },
  );
  const at = new Date().toISOString();
  const mo = fixture.users.mo!.userId;
  const made: string[] = [];
  for (let i = 0; i < 3; i++) {
    const fileId = newObjectId();
    const text = newBookText(
      { bookTextId: newObjectId(), jobId: newJobId(), fileId, userId: mo, fileName: `b${i}.pdf`, status: 'completed', language: 'ar', tags: ['x'], categories: [], visibility: 'public', pageCount: 2, metadata: {} },
      at,
    );
    const file = { fileId, userId: mo, fileName: `b${i}.pdf`, author: 'A', fileType: 'application/pdf', fileSize: 1, tags: ['x'], categories: ['ocr'], visibility: 'public' as const, storageKey: `ocr/${randomUUID()}-b.pdf`, createdAt: at, updatedAt: at };
    expect(await stores.ocr.create(text, file)).toBe(true);
    await stores.ocr.putPages([newPage(text.bookTextId, 1, { text: 'one' }, at), newPage(text.bookTextId, 2, { text: 'two' }, at)]);
    bookTextId = text.bookTextId;
    made.push(bookTextId);
  }
  // Filtered and deep catalogue listings are the search index's (docs/data-model.md, "The catalogue").
  await drainStream({ bookTextIds: made });
}, 120_000);
afterAll(() => api?.close());

const get = (path: string, key?: string) => api.call('GET', path, { token: key ? token(key) : undefined });
const q = encodeURIComponent;

describe('GET /ocr/books and GET /ocr/jobs paging', () => {
  const lists = [
    { path: '/ocr/books?tags=x&', key: undefined, items: 'books' },
    { path: '/ocr/books?', key: 'ed', items: 'books' },
    { path: '/ocr/jobs?', key: 'mo', items: 'jobs' },
    { path: '/ocr/jobs?status=completed&', key: 'mo', items: 'jobs' },
  ] as const;

  it.each(lists)('$path falls back to the defaults for values that are not whole numbers', async ({ path, key, items }) => {
    for (const value of [...odd, '0']) {
      const res = await get(`${path}limit=${q(value)}&offset=${q(value)}`, key);
      expect(res.status, `${value}`).toBe(200);
      expect(res.body, `${value}`).toMatchObject({ limit: value === '0' ? 20 : 20, offset: 0 });
      expect(res.body[items]).toHaveLength(3);
    }
  });

  it.each(lists)('$path reads a limit past the maximum as the maximum', async ({ path, key }) => {
    for (const value of ['101', '1000000000', nines]) {
      const res = await get(`${path}limit=${value}`, key);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ limit: maxLimit, offset: 0, total: 3 });
    }
  });

  it.each(lists)('$path answers an offset past the window with a 400 naming the maximum', async ({ path, key, items }) => {
    for (const value of ['1000000000', nines]) expect((await get(`${path}offset=${value}`, key)).status, value).toBeLessThan(500);
    const last = await get(`${path}offset=${maxOffset}`, key);
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ offset: maxOffset, total: 3, [items]: [] });
    for (const value of [String(maxOffset + 1), '1000000000', nines]) {
      const res = await get(`${path}offset=${value}`, key);
      expect(res.status, value).toBe(400);
      expect(res.text).toContain(`offset must be at most ${maxOffset}`);
    }
  });
});

describe('GET /ocr/books/:bookTextId page window', () => {
  it('falls back, clamps and refuses as the lists do', async () => {
    for (const value of odd) {
      const res = await get(`/ocr/books/${bookTextId}?pageLimit=${q(value)}&pageOffset=${q(value)}`);
      expect(res.status, value).toBe(200);
      expect(res.body.book).toMatchObject({ pageLimit: 50, pageOffset: 0, totalPages: 2 });
    }
    const big = await get(`/ocr/books/${bookTextId}?pageLimit=${nines}`);
    expect(big.status).toBe(200);
    expect(big.body.book.pages).toHaveLength(2);
    expect((await get(`/ocr/books/${bookTextId}?pageOffset=${maxOffset}`)).body.book).toMatchObject({ pages: [], hasMore: false });
    for (const value of ['1000000000', nines]) expect((await get(`/ocr/books/${bookTextId}?pageOffset=${value}`)).status, value).toBeLessThan(500);
    for (const value of [String(maxOffset + 1), '1000000000', nines]) {
      const res = await get(`/ocr/books/${bookTextId}?pageOffset=${value}`);
      expect(res.status, value).toBe(400);
      expect(res.text).toContain(`pageOffset must be at most ${maxOffset}`);
    }
  });
});

describe('GET /notifications paging', () => {
  it('falls back to the defaults for values that are not whole numbers', async () => {
    for (const value of odd) {
      const res = await get(`/notifications?page=${q(value)}&limit=${q(value)}`, 'mo');
      expect(res.status, value).toBe(200);
      expect(res.body).toMatchObject({ currentPage: 1, total: 3, totalPages: 1 });
      expect(res.body.notifications).toHaveLength(3);
    }
  });

  it('reads a limit past the maximum as the maximum, and refuses a page past the window', async () => {
    expect((await get(`/notifications?limit=${nines}`, 'mo')).body).toMatchObject({ currentPage: 1, totalPages: 1 });
    const lastPage = maxOffset / 20 + 1;
    expect(await get(`/notifications?page=${lastPage}`, 'mo')).toMatchObject({ status: 200, body: { currentPage: lastPage, notifications: [] } });
    for (const value of [String(lastPage + 1), '1000000000', nines]) {
      const res = await get(`/notifications?page=${value}`, 'mo');
      expect(res.status, value).toBe(400);
      expect(res.body).toEqual({ message: `page must be at most ${lastPage} for limit 20` });
    }
  });
});
