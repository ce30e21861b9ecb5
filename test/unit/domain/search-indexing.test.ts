import { describe, expect, it } from 'vitest';
import type { BookText } from '../../../lib/ocr/book-text.ts';
import { newPage } from '../../../lib/ocr/pages/page.ts';
import type { PageStore } from '../../../lib/ocr/pages/store.ts';
import type { SearchView } from '../../../lib/search/engine.ts';
import { indexChanges, reindexBookText, reindexBookTexts, type IndexChange, type IndexingDeps } from '../../../lib/search/indexing.ts';
import { matchOf } from '../../../lib/search/query.ts';
import { fakeWorld } from '../../support/fakes/index.ts';
import { FakeSearchEngine } from '../../support/fakes/search-engine.ts';
import { storedJob } from './fixtures.ts';

/** Issue 17: the index kept in step with the table from changes that only name what changed (lib/search/indexing.ts). */

const at = '2026-03-02T00:00:00.000Z';

async function setup() {
  const world = fakeWorld();
  const engine = new FakeSearchEngine();
  const deps: IndexingDeps = { engine, bookTexts: world.ocr, pages: world.ocr };
  const book = async (fields: Partial<BookText> = {}) => (await storedJob(world, 'owner-1', { status: 'completed', visibility: 'public', ...fields })).book;
  const writePage = (bookTextId: string, pageNumber: number, text: string) => world.ocr.putPages([newPage(bookTextId, pageNumber, { text }, at)]);
  const find = async (q: string, view: SearchView = { kind: 'all' }, bookTextId?: string) =>
    (await engine.search({ ...matchOf(q), view, bookTextId, limit: 100, offset: 0 })).hits.map((h) => `${h.bookTextId}#${h.pageNumber}`);
  const page = (bookTextId: string, pageNumber: number): IndexChange => ({ kind: 'page', bookTextId, pageNumber });
  const bookChange = (bookTextId: string): IndexChange => ({ kind: 'bookText', bookTextId });
  return { world, engine, deps, book, writePage, find, page, bookChange };
}

describe('indexChanges', () => {
  it('indexes a changed page with its analyzed text and its book’s current fields: found without diacritics', async () => {
    const { world, engine, deps, book, writePage, find, page } = await setup();
    const b = await book({ language: 'ar' });
    await writePage(b.bookTextId, 3, 'بِسْمِ اللَّهِ الرَّحْمَٰنِ الرَّحِيمِ');
    const report = await indexChanges(deps, [page(b.bookTextId, 3)]);
    expect(report).toEqual({ pagesIndexed: 1, booksUpdated: 0, booksRemoved: 0, pagesSkipped: 0 });
    expect(await find('الرحيم')).toEqual([`${b.bookTextId}#3`]);
    expect(await find('بسم الله', { kind: 'public' })).toEqual([`${b.bookTextId}#3`]);
    expect(engine.pages.get(`${b.bookTextId} 3`)).toMatchObject({ userId: 'owner-1', visibility: 'public', status: 'completed', language: 'ar' });

    // The fields come from the book as it is now, not as it was when the page was written.
    await world.ocr.edit((await world.ocr.get(b.bookTextId))!, { at, visibility: 'private', language: 'ur' });
    await indexChanges(deps, [page(b.bookTextId, 3)]);
    expect(engine.pages.get(`${b.bookTextId} 3`)).toMatchObject({ visibility: 'private', language: 'ur' });
  });

  it('converges on the table’s state whatever the order and however often changes arrive', async () => {
    const { deps, book, writePage, find, page } = await setup();
    const b = await book();
    await writePage(b.bookTextId, 1, 'the first draft');
    const early = page(b.bookTextId, 1);
    await writePage(b.bookTextId, 1, 'the corrected text');
    const late = page(b.bookTextId, 1);
    // The later change applied first, then the earlier one, then both again in one batch.
    await indexChanges(deps, [late]);
    await indexChanges(deps, [early]);
    const report = await indexChanges(deps, [early, late, early]);
    expect(report.pagesIndexed).toBe(1); // duplicates count once
    expect(await find('corrected')).toEqual([`${b.bookTextId}#1`]);
    expect(await find('draft')).toEqual([]);
  });

  it('replaces the entry of a page whose text was emptied', async () => {
    const { deps, book, writePage, find, page } = await setup();
    const b = await book();
    await writePage(b.bookTextId, 0, 'ink');
    await indexChanges(deps, [page(b.bookTextId, 0)]);
    await writePage(b.bookTextId, 0, '');
    await indexChanges(deps, [page(b.bookTextId, 0)]);
    expect(await find('ink')).toEqual([]);
  });

  it('moves a book’s pages out of a public search when it is made private, and back', async () => {
    const { world, deps, book, writePage, find, page, bookChange } = await setup();
    const b = await book({ visibility: 'public' });
    const other = await book({ visibility: 'public' });
    await writePage(b.bookTextId, 0, 'library');
    await writePage(b.bookTextId, 1, 'library shelves');
    await writePage(other.bookTextId, 0, 'library');
    await indexChanges(deps, [page(b.bookTextId, 0), page(b.bookTextId, 1), page(other.bookTextId, 0)]);
    expect(await find('library', { kind: 'public' })).toHaveLength(3);

    await world.ocr.edit((await world.ocr.get(b.bookTextId))!, { at, visibility: 'private' });
    const report = await indexChanges(deps, [bookChange(b.bookTextId)]);
    expect(report).toMatchObject({ booksUpdated: 1, pagesIndexed: 0 });
    expect(await find('library', { kind: 'public' })).toEqual([`${other.bookTextId}#0`]);
    expect(await find('library', { kind: 'publicAndOwn', ownerId: 'owner-1' })).toHaveLength(3);
    expect(await find('library', { kind: 'publicAndOwn', ownerId: 'someone-else' })).toEqual([`${other.bookTextId}#0`]);

    await world.ocr.edit((await world.ocr.get(b.bookTextId))!, { at, visibility: 'public' });
    await indexChanges(deps, [bookChange(b.bookTextId)]);
    expect(await find('library', { kind: 'public' })).toHaveLength(3);
  });

  it('removes a book that is no longer stored, and skips pages of a book or pages that are not', async () => {
    const { world, engine, deps, book, writePage, find, page, bookChange } = await setup();
    const b = await book();
    await writePage(b.bookTextId, 0, 'orphan words');
    await indexChanges(deps, [page(b.bookTextId, 0)]);
    world.ocr.bookTexts.delete(b.bookTextId);

    const report = await indexChanges(deps, [page(b.bookTextId, 0), page('nobody', 4), bookChange(b.bookTextId)]);
    expect(report).toEqual({ pagesIndexed: 0, booksUpdated: 0, booksRemoved: 1, pagesSkipped: 2 });
    expect(await find('orphan')).toEqual([]);
    expect(engine.pages.size).toBe(0);

    const kept = await book();
    expect(await indexChanges(deps, [page(kept.bookTextId, 9)])).toMatchObject({ pagesIndexed: 0, pagesSkipped: 1 });
  });

  it('keeps each book’s catalogue listing entry: put on a change, moved with its tags, gone with the book', async () => {
    const { world, engine, deps, book, bookChange } = await setup();
    const listed = async (tags: string[]) =>
      (await engine.listBooks({ view: { kind: 'public' }, filter: { tags, categories: [] }, order: 'name', descending: false, limit: 100, offset: 0 })).bookTextIds;
    const b = await book({ tags: ['hadith'], fileName: 'Zad.pdf' });
    await indexChanges(deps, [bookChange(b.bookTextId)]);
    expect(await listed(['hadith'])).toEqual([b.bookTextId]);
    expect(engine.books.get(b.bookTextId)).toMatchObject({ byName: `zad.pdf#${b.bookTextId}`, tags: ['hadith'] });

    // Only a listing field changed (the stream says so): the pages are left alone, the entry is put.
    await world.ocr.edit((await world.ocr.get(b.bookTextId))!, { at, tags: ['fiqh'], fileName: 'Bidaya.pdf' });
    const setFields: string[] = [];
    const watched = { ...deps, engine: Object.assign(Object.create(engine) as FakeSearchEngine, { setBookFields: async (id: string) => void setFields.push(id) }) };
    await indexChanges(watched, [{ kind: 'bookText', bookTextId: b.bookTextId, listingOnly: true }]);
    expect(setFields).toEqual([]);
    expect(await listed(['hadith'])).toEqual([]);
    expect(await listed(['fiqh'])).toEqual([b.bookTextId]);
    expect(engine.books.get(b.bookTextId)?.byName).toBe(`bidaya.pdf#${b.bookTextId}`);
    // A duplicate naming the whole book wins over one naming its listing only.
    await indexChanges(watched, [{ kind: 'bookText', bookTextId: b.bookTextId, listingOnly: true }, bookChange(b.bookTextId)]);
    expect(setFields).toEqual([b.bookTextId]);

    world.ocr.bookTexts.delete(b.bookTextId);
    await indexChanges(deps, [bookChange(b.bookTextId)]);
    expect(await listed(['fiqh'])).toEqual([]);
  });

  it('lists what fits the index of a book written before the caps, and leaves out one it cannot list', async () => {
    const { engine, deps, book, bookChange } = await setup();
    const old = await book({ tags: ['ok', 'x'.repeat(5_000), ...Array.from({ length: 1_500 }, (_, i) => `t${i}`)] });
    const unlistable = await book({ language: 'l'.repeat(5_000) });
    await indexChanges(deps, [bookChange(old.bookTextId), bookChange(unlistable.bookTextId)]);
    expect(engine.books.get(old.bookTextId)?.tags).toHaveLength(1_000);
    expect(engine.books.get(old.bookTextId)?.tags[0]).toBe('ok');
    expect(engine.books.has(unlistable.bookTextId)).toBe(false);
  });

  it('reads and writes in bounded calls: at most 100 BookTexts and 100 pages per read, 100 pages per putPages', async () => {
    const { world, engine, book, writePage } = await setup();
    const books = await Promise.all(Array.from({ length: 3 }, () => book()));
    const changes: IndexChange[] = [];
    for (const b of books) {
      for (let n = 0; n < 90; n++) {
        await writePage(b.bookTextId, n, `page ${n} of the treatise`);
        changes.push({ kind: 'page', bookTextId: b.bookTextId, pageNumber: n });
      }
    }
    const extraBooks = Array.from({ length: 150 }, (_, i) => ({ kind: 'bookText', bookTextId: `gone-${i}` }) as const);
    const reads = { bookTexts: [] as number[], pages: [] as number[], puts: [] as number[] };
    const deps: IndexingDeps = {
      engine: Object.assign(Object.create(engine) as FakeSearchEngine, {
        putPages: (pages: Parameters<FakeSearchEngine['putPages']>[0]) => (reads.puts.push(pages.length), engine.putPages(pages)),
      }),
      bookTexts: { getMany: (ids) => (reads.bookTexts.push(ids.length), world.ocr.getMany(ids)) },
      pages: { pagesAt: (pages) => (reads.pages.push(pages.length), world.ocr.pagesAt(pages)) },
    };
    const report = await indexChanges(deps, [...changes, ...extraBooks]);
    expect(report).toMatchObject({ pagesIndexed: 270, booksRemoved: 150 });
    expect(Math.max(...reads.bookTexts)).toBeLessThanOrEqual(100);
    // The 153 named, and the 3 whose pages were put, read again (their fields may have changed meanwhile).
    expect(reads.bookTexts.reduce((a, b) => a + b, 0)).toBe(156);
    expect(reads.pages).toEqual([100, 100, 70]);
    expect(reads.puts).toEqual([100, 100, 70]);
    expect((await engine.search({ ...matchOf('treatise'), view: { kind: 'all' }, limit: 1, offset: 0 })).total).toBe(270);
  });
});

describe('reindexBookText', () => {
  it('indexes every stored page of a book, 100 per putPages, with its current fields', async () => {
    const { world, engine, book, writePage, find } = await setup();
    const b = await book({ visibility: 'private' });
    for (let n = 0; n < 250; n++) await writePage(b.bookTextId, n, n === 42 ? 'the colophon' : 'text');
    const puts: number[] = [];
    const deps = {
      engine: Object.assign(Object.create(engine) as FakeSearchEngine, {
        putPages: (pages: Parameters<FakeSearchEngine['putPages']>[0]) => (puts.push(pages.length), engine.putPages(pages)),
      }),
      bookTexts: world.ocr,
      pages: world.ocr,
    };
    expect(await reindexBookText(deps, b.bookTextId)).toEqual({ pagesIndexed: 250, booksUpdated: 0, booksRemoved: 0, pagesSkipped: 0 });
    expect(puts).toEqual([100, 100, 50]);
    expect(await find('colophon', { kind: 'public' })).toEqual([]);
    expect(await find('colophon', { kind: 'publicAndOwn', ownerId: 'owner-1' })).toEqual([`${b.bookTextId}#42`]);
    // The backfill lists the book too (filtered GET /ocr/books).
    expect(engine.books.get(b.bookTextId)).toMatchObject({ visibility: 'private', userId: 'owner-1' });
  });

  it('sets the fields again when the book changed while its pages were put (a backfill beside the live indexer)', async () => {
    const { world, engine, book, writePage, find } = await setup();
    const b = await book({ visibility: 'public' });
    await writePage(b.bookTextId, 0, 'secret');
    // The book is made private (and the live indexer applied it) between the backfill's read of the book and its putPages.
    const pages: Pick<PageStore, 'pages'> = {
      pages: async (id) => {
        const read = await world.ocr.pages(id);
        await world.ocr.edit((await world.ocr.get(id))!, { at, visibility: 'private' });
        return read;
      },
    };
    const report = await reindexBookText({ engine, bookTexts: world.ocr, pages }, b.bookTextId);
    expect(report).toMatchObject({ pagesIndexed: 1, booksUpdated: 1 });
    expect(await find('secret', { kind: 'public' })).toEqual([]);
  });

  it('removes a book that is not stored; reindexBookTexts adds up the books', async () => {
    const { world, engine, book, writePage, find } = await setup();
    const b = await book();
    const c = await book();
    await writePage(b.bookTextId, 0, 'alpha');
    await writePage(c.bookTextId, 0, 'alpha');
    await engine.putPages([{ bookTextId: 'gone', pageNumber: 0, userId: 'u', visibility: 'public', status: 'completed', language: 'en', exact: ['alpha'], stemmed: ['alpha'] }]);
    const deps = { engine, bookTexts: world.ocr, pages: world.ocr };
    const progress: number[] = [];
    const total = await reindexBookTexts(deps, [b.bookTextId, c.bookTextId, 'gone'], (done) => progress.push(done));
    expect(total).toEqual({ books: 3, pagesIndexed: 2, booksUpdated: 0, booksRemoved: 1, pagesSkipped: 0 });
    expect(progress).toEqual([1, 2, 3]);
    expect((await find('alpha')).sort()).toEqual([`${b.bookTextId}#0`, `${c.bookTextId}#0`].sort());
  });
});
