import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { newJobId, newObjectId } from '../../lib/ids.ts';
import { bookFieldLimits, newBookText, tooManyValues, type BookText, type OcrStatus, type Visibility } from '../../lib/ocr/book-text.ts';
import { newPage as pageRecord } from '../../lib/ocr/pages/page.ts';
import { drainStream } from '../../infra/local/stream-poller.ts';
import { startApi, seedUsers, type Account } from '../support/api.ts';
import { testStores, ensureTestTable } from '../support/stores.ts';

/**
 * The digitized books of `ocr-api` through HTTP (docs/SPEC.md 4.1): read, list, edit and import. The
 * catalogue's totals count every book in the table, so this file has a table of its own; each test
 * file runs in its own process, and the functions read TABLE_NAME on their first request.
 */
process.env.TABLE_NAME = `books-${randomUUID()}`;
const stores = testStores();
const uploads = s3Objects(s3Client(), process.env.UPLOADS_BUCKET!);
let api: Awaited<ReturnType<typeof startApi>>;
let ed: Account, ad: Account, mo: Account, basic: Account, other: Account;

let made = 0;
/** A BookText with its File, created as an upload does, plus pages; `createdAt` spaced so date order is known. */
async function book(
  owner: Account,
  options: { visibility?: Visibility; fileName?: string; language?: string; status?: OcrStatus; tags?: string[]; categories?: string[]; pages?: string[]; pageCount?: number; author?: string } = {},
): Promise<BookText> {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, ++made)).toISOString();
  const fileId = newObjectId();
  const fileName = options.fileName ?? `book ${made}.pdf`;
  const text = newBookText(
    {
      bookTextId: newObjectId(),
      jobId: newJobId(),
      fileId,
      userId: owner.userId,
      fileName,
      status: options.status ?? 'completed',
      language: options.language ?? 'ar',
      tags: options.tags ?? [],
      categories: options.categories ?? [],
      visibility: options.visibility ?? 'private',
      pageCount: options.pageCount ?? options.pages?.length ?? 0,
      metadata: { edition: made },
    },
    at,
  );
  const file = {
    fileId,
    userId: owner.userId,
    fileName,
    author: options.author ?? 'an-Nawawi',
    fileType: 'application/pdf',
    fileSize: 1234,
    tags: text.tags,
    categories: ['ocr'],
    visibility: 'private' as const,
    storageKey: `ocr/${randomUUID()}-${fileName}`,
    createdAt: at,
    updatedAt: at,
  };
  expect(await stores.ocr.create(text, file)).toBe(true);
  if (options.pages?.length) await stores.ocr.putPages(options.pages.map((t, i) => pageRecord(text.bookTextId, i + 1, { text: t }, at)));
  return text;
}

const list = async (query: string, account?: Account) => {
  const res = await api.call('GET', `/ocr/books${query}`, { token: account?.token });
  expect(res.status).toBe(200);
  return res.body as { total: number; limit: number; offset: number; books: Record<string, unknown>[] };
};
const ids = (books: Record<string, unknown>[]) => books.map((b) => b.bookTextId);

beforeAll(async () => {
  await ensureTestTable();
  api = await startApi();
  ({ ed, ad, mo, basic, other } = await seedUsers(stores, [
    { key: 'ed', username: 'ed', email: 'ed@example.com', role: 'editor' },
    { key: 'ad', username: 'ad', email: 'ad@example.com', role: 'admin' },
    { key: 'mo', username: 'mo', email: 'mo@example.com', subscription: { tier: 'pro', status: 'active' } },
    { key: 'basic', username: 'basic', email: 'basic@example.com', subscription: { tier: 'basic', status: 'active' } },
    { key: 'other', username: 'other', email: 'other@example.com', subscription: { tier: 'pro', status: 'active' } },
  ]));
}, 120_000);
afterAll(() => api?.close());

describe('GET /ocr/books', () => {
  let pub: BookText[], moPrivate: BookText, otherPrivate: BookText;
  beforeAll(async () => {
    pub = [
      await book(other, { visibility: 'public', fileName: 'beta.pdf', pageCount: 30, language: 'ar', tags: ['hadith'], categories: ['fiqh'] }),
      await book(mo, { visibility: 'public', fileName: 'Alpha.pdf', pageCount: 5, language: 'en', tags: ['tafsir', 'history'], status: 'processing' }),
      await book(other, { visibility: 'public', fileName: 'gamma.pdf', pageCount: 12, language: 'ar', categories: ['history'] }),
    ];
    moPrivate = await book(mo, { fileName: 'delta.pdf', pageCount: 7, tags: ['hadith'] });
    otherPrivate = await book(other, { fileName: 'epsilon.pdf', pageCount: 1 });
    // Filtered listings are the search index's (docs/data-model.md, "The catalogue"): index what the stream holds.
    await drainStream({ bookTextIds: [...pub, moPrivate, otherPrivate].map((b) => b.bookTextId) });
  });

  it('shows anonymous callers the public books only, newest first, without email or metadata', async () => {
    const out = await list('');
    expect(out).toMatchObject({ total: 3, limit: 20, offset: 0 });
    expect(ids(out.books)).toEqual(ids(pub.map((b) => ({ bookTextId: b.bookTextId }))).reverse());
    for (const b of out.books) {
      expect(b).not.toHaveProperty('userEmail');
      expect(b).not.toHaveProperty('metadata');
    }
    expect(out.books[0]).toEqual({
      bookTextId: pub[2]!.bookTextId,
      jobId: pub[2]!.jobId,
      fileId: pub[2]!.fileId,
      fileName: 'gamma.pdf',
      author: 'an-Nawawi',
      fileType: 'application/pdf',
      fileSize: 1234,
      userId: other.userId,
      username: 'other',
      status: 'completed',
      language: 'ar',
      tags: [],
      categories: ['history'],
      pageCount: 12,
      processingTime: null,
      visibility: 'public',
      hasFullText: false,
      createdAt: pub[2]!.createdAt,
      updatedAt: pub[2]!.updatedAt,
      completedAt: null,
    });
  });

  it('shows a member the public books and their own, with email and metadata on their own only', async () => {
    const out = await list('', mo);
    expect(out.total).toBe(4);
    expect(ids(out.books)).toEqual([moPrivate, ...[...pub].reverse()].map((b) => b.bookTextId));
    for (const b of out.books) {
      const own = b.userId === mo.userId;
      expect(b.userEmail, String(b.fileName)).toBe(own ? 'mo@example.com' : undefined);
      expect('metadata' in b).toBe(own);
    }
    expect(ids((await list('', other)).books)).toContain(otherPrivate.bookTextId);
    expect(ids((await list('', other)).books)).not.toContain(moPrivate.bookTextId);
  });

  it('shows editors and admins every book with email and metadata', async () => {
    for (const staff of [ed, ad]) {
      const out = await list('', staff);
      expect(out.total).toBe(5);
      expect(ids(out.books)).toEqual([otherPrivate, moPrivate, ...[...pub].reverse()].map((b) => b.bookTextId));
      expect(out.books.every((b) => typeof b.userEmail === 'string' && typeof b.metadata === 'object')).toBe(true);
    }
  });

  it('sorts by date, name (ignoring capitals) and pages, falling back to newest first', async () => {
    const names = async (sort: string, account?: Account) => (await list(`?sort=${sort}`, account)).books.map((b) => b.fileName);
    expect(await names('date_asc')).toEqual(['beta.pdf', 'Alpha.pdf', 'gamma.pdf']);
    expect(await names('name_asc')).toEqual(['Alpha.pdf', 'beta.pdf', 'gamma.pdf']);
    expect(await names('name_desc', mo)).toEqual(['gamma.pdf', 'delta.pdf', 'beta.pdf', 'Alpha.pdf']);
    expect(await names('pages_desc', ed)).toEqual(['beta.pdf', 'gamma.pdf', 'delta.pdf', 'Alpha.pdf', 'epsilon.pdf']);
    expect(await names('pages_asc', mo)).toEqual(['Alpha.pdf', 'delta.pdf', 'gamma.pdf', 'beta.pdf']);
    expect(await names('sideways')).toEqual(await names('date_desc'));
  });

  it('filters by status, language, tags and categories (any match), with the filtered total', async () => {
    const names = async (query: string, account?: Account) => {
      const out = await list(query, account);
      expect(out.total).toBe(out.books.length);
      return out.books.map((b) => b.fileName).sort();
    };
    expect(await names('?status=processing')).toEqual(['Alpha.pdf']);
    expect(await names('?language=ar', ed)).toEqual(['beta.pdf', 'delta.pdf', 'epsilon.pdf', 'gamma.pdf']);
    expect(await names('?tags=hadith', mo)).toEqual(['beta.pdf', 'delta.pdf']);
    expect(await names('?tags=hadith', other)).toEqual(['beta.pdf']);
    expect(await names('?tags=tafsir,hadith')).toEqual(['Alpha.pdf', 'beta.pdf']);
    expect(await names('?tags=tafsir&tags=hadith')).toEqual(['Alpha.pdf', 'beta.pdf']);
    expect(await names('?categories=history')).toEqual(['gamma.pdf']);
    expect(await names('?categories=history,fiqh&language=ar&status=completed')).toEqual(['beta.pdf', 'gamma.pdf']);
    expect(await names('?status=archived')).toEqual([]);
  });

  it('pages with limit and offset, keeping the total, across the merged member view', async () => {
    const whole = ids((await list('?sort=name_asc', mo)).books);
    const pages = [];
    for (let offset = 0; offset < 5; offset += 2) {
      const out = await list(`?sort=name_asc&limit=2&offset=${offset}`, mo);
      expect(out).toMatchObject({ total: 4, limit: 2, offset });
      pages.push(...ids(out.books));
    }
    expect(pages).toEqual(whole);
    expect((await list('?limit=abc&offset=-1')).limit).toBe(20);
  });

  it('answers an invalid token with a plain-text 403', async () => {
    expect(await api.call('GET', '/ocr/books', { token: 'x.y.z' })).toMatchObject({ status: 403, body: 'Forbidden: Invalid token' });
  });

  it('refuses a filter naming more tags or categories than a book may carry', async () => {
    const many = Array.from({ length: bookFieldLimits.listValues + 1 }, (_, i) => `t${i}`).join(',');
    for (const name of ['tags', 'categories'] as const) {
      const res = await api.call('GET', `/ocr/books?${name}=${many}`);
      expect(res, name).toMatchObject({ status: 400, body: { success: false, message: tooManyValues(name) } });
    }
    expect((await list(`?tags=${many.split(',').slice(1).join(',')}`)).total).toBe(0);
  });
});

describe('GET /ocr/books/:bookTextId', () => {
  let pub: BookText, priv: BookText;
  beforeAll(async () => {
    pub = await book(mo, { visibility: 'public', pages: ['الصفحة الأولى', 'الصفحة الثانية', 'الصفحة الثالثة'] });
    priv = await book(mo, { pages: ['one'] });
    // Page 2 has an image where the worker puts them (docs/ocr-worker.md, "Connecting an OCR worker").
    await stores.ocr.putPages([pageRecord(pub.bookTextId, 2, { text: 'الصفحة الثانية', storageKey: `ocr-pages/${pub.jobId}/2.png` }, pub.createdAt)]);
    await uploads.put(`ocr-pages/${pub.jobId}/2.png`, 'png-bytes', 'image/png');
  });
  const read = (id: string, query = '', account?: Account) => api.call('GET', `/ocr/books/${id}${query}`, { token: account?.token });

  it('shows a public book to anyone, without userEmail, storageKey and metadata', async () => {
    const res = await read(pub.bookTextId);
    expect(res.status).toBe(200);
    const b = res.body.book;
    expect(b).toMatchObject({
      bookTextId: pub.bookTextId,
      username: 'mo',
      author: 'an-Nawawi',
      extractedText: '',
      totalPages: 3,
      pageLimit: 50,
      pageOffset: 0,
      hasMore: false,
      visibility: 'public',
    });
    for (const key of ['userEmail', 'storageKey', 'metadata']) expect(b).not.toHaveProperty(key);
    expect(b.pages.map((p: { pageNumber: number; text: string }) => [p.pageNumber, p.text])).toEqual([
      [1, 'الصفحة الأولى'],
      [2, 'الصفحة الثانية'],
      [3, 'الصفحة الثالثة'],
    ]);
    // confidence and uncertain: added (docs/interface.md, "Confidence"); a page no worker read has none.
    expect(b.pages[0]).toEqual({ pageNumber: 1, text: 'الصفحة الأولى', storageKey: null, imageUrl: null, isAIGenerated: true, confidence: null, uncertain: [] });
    // The page image's URL works for an hour, for anyone.
    expect(b.pages[1].storageKey).toBe(`ocr-pages/${pub.jobId}/2.png`);
    const image = await fetch(b.pages[1].imageUrl);
    expect([image.status, await image.text()]).toEqual([200, 'png-bytes']);
    expect(new URL(b.pages[1].imageUrl).searchParams.get('X-Amz-Expires')).toBe('3600');
  });

  it('gives the owner, editors and admins the private fields', async () => {
    for (const account of [mo, ed, ad]) {
      const b = (await read(pub.bookTextId, '', account)).body.book;
      expect(b).toMatchObject({ userEmail: 'mo@example.com', storageKey: expect.stringMatching(/^ocr\//), metadata: { edition: expect.any(Number) } });
    }
  });

  it('pages with pageLimit and pageOffset and leaves the text out unless includeText is true', async () => {
    const b = (await read(pub.bookTextId, '?pageLimit=1&pageOffset=1&includeText=false')).body.book;
    expect(b).toMatchObject({ totalPages: 3, pageLimit: 1, pageOffset: 1, hasMore: true });
    expect(b.pages.map((p: { pageNumber: number }) => p.pageNumber)).toEqual([2]);
    expect(b).not.toHaveProperty('extractedText');
    expect((await read(pub.bookTextId, '?includeText=yes')).body.book).not.toHaveProperty('extractedText');
    expect((await read(pub.bookTextId, '?pageOffset=3')).body.book).toMatchObject({ pages: [], hasMore: false, totalPages: 3 });
  });

  it('refuses a private book to anyone but the owner, editors and admins', async () => {
    expect(await read(priv.bookTextId)).toMatchObject({ status: 403, body: { success: false, message: 'Unauthorized to view this book' } });
    expect((await read(priv.bookTextId, '', other)).status).toBe(403);
    for (const account of [mo, ed, ad]) expect((await read(priv.bookTextId, '', account)).status).toBe(200);
  });

  it('answers 404 for an unknown book and 500 for a malformed id', async () => {
    expect(await read(newObjectId())).toMatchObject({ status: 404, body: { success: false, message: 'Book not found' } });
    expect(await read('not-an-id')).toMatchObject({ status: 500, body: { success: false, message: 'Error fetching book' } });
  });
});

describe('PATCH /ocr/books/:bookTextId', () => {
  const patch = (id: string, body: unknown, account?: Account) => api.call('PATCH', `/ocr/books/${id}`, { token: account?.token, body });

  it('needs a token, and the owner, an editor or an admin', async () => {
    const b = await book(mo);
    expect(await patch(b.bookTextId, { language: 'en' })).toMatchObject({ status: 401, body: 'Unauthorized: No token provided' });
    expect(await patch(b.bookTextId, { language: 'en' }, other)).toMatchObject({ status: 403, body: { success: false, message: 'Unauthorized to update this book' } });
    expect(await patch(newObjectId(), {}, mo)).toMatchObject({ status: 404 });
    expect((await patch('nope', {}, mo)).status).toBe(500);
    for (const account of [mo, ed, ad]) expect((await patch(b.bookTextId, { language: 'en' }, account)).status).toBe(200);
  });

  it('changes only the supplied fields, the file name and author on the File, and answers without text or pages', async () => {
    const b = await book(mo, { tags: ['old'], pages: ['a'] });
    const res = await patch(b.bookTextId, { fileName: 'Riyad as-Salihin.pdf', author: 'an-Nawawi (ed.)', tags: 'hadith, adab', visibility: 'hidden' }, mo);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: expect.any(String),
      book: {
        bookTextId: b.bookTextId,
        jobId: b.jobId,
        fileId: b.fileId,
        fileName: 'Riyad as-Salihin.pdf',
        author: 'an-Nawawi (ed.)',
        visibility: 'private',
        language: 'ar',
        tags: ['hadith', 'adab'],
        categories: [],
        pageCount: 1,
        status: 'completed',
        createdAt: b.createdAt,
        updatedAt: expect.any(String),
      },
    });
    expect(await stores.ocr.getFile(b.fileId)).toMatchObject({ fileName: 'Riyad as-Salihin.pdf', author: 'an-Nawawi (ed.)' });
    const read = (await api.call('GET', `/ocr/books/${b.bookTextId}`, { token: mo.token })).body.book;
    expect(read).toMatchObject({ fileName: 'Riyad as-Salihin.pdf', tags: ['hadith', 'adab'], categories: [], language: 'ar', metadata: { edition: expect.any(Number) } });
    expect((await patch(b.bookTextId, { categories: ['tafsir', ' fiqh '] }, mo)).body.book.categories).toEqual(['tafsir', 'fiqh']);
  });

  it('upserts pages from an array (defaults for absent fields) and changes single fields from an object', async () => {
    const b = await book(mo, { pages: ['one', 'two', 'three'] });
    await stores.ocr.putPages([pageRecord(b.bookTextId, 2, { text: 'two', storageKey: 'pages/2.png', isAIGenerated: true }, b.createdAt)]);
    expect((await patch(b.bookTextId, { pages: [{ pageNumber: 1, text: 'ONE', isAIGenerated: false }, { pageNumber: 9, text: 'nine' }] }, mo)).status).toBe(200);
    expect((await patch(b.bookTextId, { pages: { 2: { isAIGenerated: false }, 3: { text: 'THREE' }, 4: { text: 'four' } } }, ed)).status).toBe(200);
    const pages = (await api.call('GET', `/ocr/books/${b.bookTextId}`, { token: mo.token })).body.book.pages;
    expect(pages.map(({ imageUrl: _, confidence: _c, uncertain: _u, ...p }: Record<string, unknown>) => p)).toEqual([
      { pageNumber: 1, text: 'ONE', storageKey: null, isAIGenerated: false },
      { pageNumber: 2, text: 'two', storageKey: 'pages/2.png', isAIGenerated: false },
      { pageNumber: 3, text: 'THREE', storageKey: null, isAIGenerated: true },
      { pageNumber: 4, text: 'four', storageKey: null, isAIGenerated: true },
      { pageNumber: 9, text: 'nine', storageKey: null, isAIGenerated: true },
    ]);
  });

  it('refuses a malformed edit with a 500 and writes nothing', async () => {
    const b = await book(mo, { pages: ['one'] });
    for (const body of [{ tags: 5 }, { pages: [{ text: 'no number' }] }, { pages: { x: { text: 'y' } } }, { fileName: '' }, { language: 'en', pages: { 1: { text: 7 } } }]) {
      expect((await patch(b.bookTextId, body, mo)).status, JSON.stringify(body)).toBe(500);
    }
    expect(await stores.ocr.get(b.bookTextId)).toMatchObject({ language: 'ar', updatedAt: b.updatedAt });
  });

  it('keeps a long text in storage and the listing counts in step with visibility changes', async () => {
    const b = await book(mo);
    const long = 'ب'.repeat(12_000);
    expect((await patch(b.bookTextId, { extractedText: long }, mo)).status).toBe(200);
    const text = (await api.call('GET', `/ocr/text/${b.jobId}`, { token: mo.token })).body.data.extractedText;
    expect(text).toBe(long);
    expect((await api.call('GET', `/ocr/books/${b.bookTextId}?includeText=true`, { token: mo.token })).body.book.extractedText).toBe(long);

    const before = (await list('')).total;
    // Concurrent flips of one book: the counters follow the visibility it ends with.
    await Promise.all(['public', 'private', 'public', 'public', 'private', 'public'].map((visibility) => patch(b.bookTextId, { visibility }, mo)));
    const final = (await stores.ocr.get(b.bookTextId))!.visibility;
    const anonymous = await list('?limit=100');
    expect(anonymous.total).toBe(before + (final === 'public' ? 1 : 0));
    expect(anonymous.books.length).toBe(anonymous.total);
    expect((await list('?limit=100', ed)).total).toBe((await list('?limit=100', ed)).books.length);
  });
});

describe('POST /ocr/books/:bookTextId/import', () => {
  const importBook = (id: string, account?: Account) => api.call('POST', `/ocr/books/${id}/import`, { token: account?.token });

  it('makes a line book of the pages, in page order, owned by the caller', async () => {
    const b = await book(mo, { fileName: 'الأربعون النووية.pdf', author: 'النووي', pages: ['الأول', 'الثاني', 'الثالث'] });
    const res = await importBook(b.bookTextId, mo);
    expect(res).toMatchObject({ status: 201, body: { success: true, message: expect.any(String), bookId: expect.stringMatching(/^[0-9a-f]{24}$/) } });
    const created = (await stores.books.get(res.body.bookId))!;
    expect(created).toMatchObject({ title: 'الأربعون النووية.pdf', author: 'النووي', ownerId: mo.userId, metadata: { importedFromVision: b.bookTextId } });
    const lines = await stores.books.lines(res.body.bookId);
    expect(lines.map(({ arabic, english, commentary, rootwords }) => [arabic, english, commentary, rootwords])).toEqual([
      ['الأول', '', '', ''],
      ['الثاني', '', '', ''],
      ['الثالث', '', '', ''],
    ]);
  });

  it('lets editors import any book, their own new book, without a subscription', async () => {
    const b = await book(other, { pages: ['x'] });
    const res = await importBook(b.bookTextId, ed);
    expect(res.status).toBe(201);
    expect((await stores.books.get(res.body.bookId))!.ownerId).toBe(ed.userId);
  });

  it('refuses others, members without the pro tier, books without pages, unknown and malformed ids', async () => {
    const b = await book(basic, { pages: ['x'], visibility: 'public' });
    expect(await importBook(b.bookTextId)).toMatchObject({ status: 401 });
    expect(await importBook(b.bookTextId, mo)).toMatchObject({ status: 403, body: { success: false, message: 'Unauthorized to import this book' } });
    expect(await importBook(b.bookTextId, basic)).toMatchObject({ status: 403, body: { success: false, error: 'subscription_required' } });
    expect(await importBook((await book(mo)).bookTextId, mo)).toMatchObject({ status: 400, body: { success: false, message: 'No pages to import' } });
    expect((await importBook(newObjectId(), mo)).status).toBe(404);
    expect((await importBook('123', mo)).status).toBe(500);
  });
});

describe('GET /ocr/books filtered, as books change (docs/data-model.md, "The catalogue")', () => {
  const patch = (id: string, body: unknown, account: Account) => api.call('PATCH', `/ocr/books/${id}`, { token: account.token, body });
  const indexed = (...books: BookText[]) => drainStream({ bookTextIds: books.map((b) => b.bookTextId) });

  it('follows a tag edit and hides a book made private at once, before the stream has them', async () => {
    const a = await book(mo, { visibility: 'public', language: 'x-change', tags: ['draft'] });
    const b = await book(mo, { visibility: 'public', language: 'x-change', tags: ['draft'] });
    await indexed(a, b);
    expect(await list('?language=x-change&tags=draft')).toMatchObject({ total: 2, books: [{ bookTextId: b.bookTextId }, { bookTextId: a.bookTextId }] });

    expect((await patch(a.bookTextId, { tags: 'final' }, mo)).status).toBe(200);
    expect((await patch(b.bookTextId, { visibility: 'private' }, mo)).status).toBe(200);
    // The stream has not run: each PATCH put its change into the index before it answered (docs/architecture.md, "Read after write").
    expect(await list('?language=x-change&tags=draft')).toMatchObject({ total: 0, books: [] });
    expect(ids((await list('?language=x-change&tags=draft', mo)).books)).toEqual([b.bookTextId]);
    expect(ids((await list('?language=x-change&tags=final')).books)).toEqual([a.bookTextId]);
    await indexed(a, b);
    expect(ids((await list('?language=x-change&tags=final')).books)).toEqual([a.bookTextId]);
    expect((await list('?language=x-change', other)).total).toBe(1);
    expect((await list('?language=x-change', ed)).total).toBe(2);
  });
});
