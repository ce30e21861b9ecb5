import { beforeEach, describe, expect, it } from 'vitest';
import { editAs, jobFieldsOf } from '../../support/bodies.ts';
import { jobCredentials } from '../../../lib/auth/job-credentials.ts';
import { localMacKey } from '../../../lib/auth/local-mac.ts';
import type { Caller } from '../../../lib/auth/caller.ts';
import type { User } from '../../../lib/auth/users.ts';
import { defaultTierCatalogue } from '../../../lib/billing/tiers.ts';
import type { UsageSnapshot } from '../../../lib/billing/usage.ts';
import type { BookText } from '../../../lib/ocr/book-text.ts';
import { listCatalogue, type CatalogueDeps, type CatalogueListing } from '../../../lib/ocr/catalogue/listing.ts';
import { recordFinalResult, recordPageResult } from '../../../lib/ocr/jobs/callbacks.ts';
import { createJob, type UploadDeps } from '../../../lib/ocr/jobs/upload.ts';
import type { SearchEngine } from '../../../lib/search/engine.ts';
import { indexChanges, type IndexChange } from '../../../lib/search/indexing.ts';
import { indexWrites } from '../../../lib/search/read-after-write.ts';
import { searchBookText, searchCatalogue } from '../../../lib/search/search.ts';
import { fakeWorld, type FakeWorld } from '../../support/fakes/index.ts';
import { storedUser, as, listing } from './fixtures.ts';

/**
 * Read after write (issue 26; docs/architecture.md "Read after write"): once a write has answered, every listing,
 * total and search shows it, whoever asks, while the table's stream (the index's other feed) lags:
 * here it is never applied, or applied late with what it read before the write.
 */
let world: FakeWorld;
let owner: User;
let reader: User;
let editor: User;

const catalogue = (): CatalogueDeps => ({ catalogue: world.ocr, listing: world.search, bookTexts: world.ocr, users: world.users });
const search = () => ({ engine: world.search as SearchEngine, bookTexts: world.ocr, pages: world.ocr });
const ids = (out: { books: { bookTextId: string }[] }) => out.books.map((b) => b.bookTextId);
const list = (caller: Caller, query: Partial<CatalogueListing> = {}) => listCatalogue(catalogue(), caller, listing(query));

function uploadDeps(): UploadDeps {
  return {
    ocrJobs: world.ocr,
    index: world.index(),
    uploads: world.uploads,
    uploadsBucket: 'uploads',
    ocrQueue: world.queue,
    subscriptions: world.subscriptions,
    tierCatalogue: defaultTierCatalogue,
    jobCredentials: jobCredentials(localMacKey(async () => 'a test secret')),
    now: world.now,
  };
}

const snapshot: UsageSnapshot = { remainingCredits: 100, tierCredits: 100, pagesUsed: 0, billingPeriodEnd: '2026-04-01T00:00:00.000Z' };
let uploaded = 0;
/**
 * `POST /ocr` past the form: the File and the pending BookText, queued; then made public by its
 * owner (`PATCH`), unless `fields.visibility` is `private` (a BookText is private until then).
 */
async function upload(user: User, fields: Record<string, unknown> = {}, publish = true): Promise<BookText> {
  const stored = { storageKey: `ocr/${++uploaded}.pdf`, originalName: `book-${uploaded}.pdf`, fileType: 'application/pdf', fileSize: 1024 };
  const created = await createJob(uploadDeps(), user, stored, jobFieldsOf(fields), snapshot, { removeObjectOnFailure: true });
  const book = (await world.ocr.get(created.bookTextId))!;
  if (!publish || fields.visibility === 'private') return book;
  await editAs(world.editDeps(), user, book.bookTextId, { visibility: 'public' });
  return (await world.ocr.get(created.bookTextId))!;
}

const job = (b: BookText) => ({ jobId: b.jobId, fileId: b.fileId, userId: b.userId });
const edit = (user: User, b: BookText, body: Record<string, unknown>) => editAs(world.editDeps(), user, b.bookTextId, body);

beforeEach(async () => {
  world = fakeWorld({ now: '2026-03-15T12:00:00.000Z' });
  owner = await storedUser(world);
  reader = await storedUser(world);
  editor = await storedUser(world, 'editor');
});

describe('read after write, with the stream never applied', () => {
  it('lists an upload under its tags, categories, language and status at once, to its owner and staff', async () => {
    const b = await upload(owner, { tags: 'fiqh,hadith', categories: 'law', language: 'en' }, false);
    for (const caller of [as(owner), as(editor)]) {
      expect(ids(await list(caller, { tags: ['hadith'] }))).toEqual([b.bookTextId]);
      expect((await list(caller, { categories: ['law'], language: 'en', status: 'pending' })).total).toBe(1);
    }
    // A BookText is private until its owner publishes it: no one else counts it.
    for (const caller of [as(), as(reader)]) expect(await list(caller, { tags: ['hadith'] })).toMatchObject({ total: 0, books: [] });
    await edit(owner, b, { visibility: 'public' });
    for (const caller of [as(), as(reader)]) expect(ids(await list(caller, { tags: ['hadith'], language: 'en' }))).toEqual([b.bookTextId]);
  });

  it('finds a page the worker posted, and the book under its new status, at once', async () => {
    const b = await upload(owner);
    await recordPageResult(world.callbackDeps(), { ...job(b), pageNumber: 1, text: 'In the beginning was the Word', pageCount: 3 });
    expect((await searchCatalogue(search(), as(), { q: 'beginning', limit: 10, offset: 0 })).hits).toMatchObject([{ bookTextId: b.bookTextId, pageNumber: 1 }]);
    expect((await list(as(), { status: 'processing' })).total).toBe(1);
    expect((await list(as(), { status: 'pending' })).total).toBe(0);
    expect(ids(await list(as(), { sort: 'pages_desc', status: 'processing' }))).toEqual([b.bookTextId]);

    await recordFinalResult(world.callbackDeps(), { ...job(b), status: 'completed', pageCount: 3, pages: [{ pageNumber: 1, text: 'A new first page' }, { pageNumber: 2, text: 'and a second' }] });
    expect((await list(as(), { status: 'completed' })).total).toBe(1);
    expect((await searchCatalogue(search(), as(), { q: 'beginning', limit: 10, offset: 0 })).total).toBe(0);
    expect((await searchBookText(search(), as(), b.bookTextId, { q: 'second', limit: 10, offset: 0 })).hits).toEqual([{ pageNumber: 2, snippet: expect.any(String) }]);
  });

  it('shows an edit of tags, categories, language, name and pages in the next listing and search', async () => {
    const a = await upload(owner, { fileName: 'Alif' });
    const b = await upload(owner, { fileName: 'Ba', tags: 'old' });
    await edit(owner, b, { tags: ['new'], categories: ['history'], language: 'fa', fileName: 'Zay', pages: [{ pageNumber: 0, text: 'edited words here' }] });
    expect((await list(as(), { tags: ['old'] })).total).toBe(0);
    expect(ids(await list(as(), { tags: ['new'], categories: ['history'], language: 'fa' }))).toEqual([b.bookTextId]);
    expect(ids(await list(as(), { sort: 'name_desc', status: 'pending' }))).toEqual([b.bookTextId, a.bookTextId]);
    expect((await searchCatalogue(search(), as(), { q: 'edited', limit: 10, offset: 0 })).total).toBe(1);
    await edit(owner, b, { pages: { 0: { text: 'changed again' } } });
    expect((await searchCatalogue(search(), as(), { q: 'edited', limit: 10, offset: 0 })).total).toBe(0);
    expect((await searchCatalogue(search(), as(), { q: 'changed', limit: 10, offset: 0 })).total).toBe(1);
  });

  it('pages deep into the index with the new book counted and placed', async () => {
    for (let i = 0; i < 104; i++) await upload(owner, { tags: 'bulk' });
    const last = await upload(reader, { tags: 'bulk' });
    const all = await list(as(), { offset: 100, limit: 10 });
    expect(all.total).toBe(105);
    expect(ids(await list(as(), { offset: 100, limit: 10, sort: 'date_asc' }))).toContain(last.bookTextId);
    expect((await list(as(), { tags: ['bulk'], offset: 104, limit: 10, sort: 'date_asc' })).books.map((x) => x.bookTextId)).toEqual([last.bookTextId]);
  });

  it('takes a book made private out of others’ listings, totals and searches, and back when made public', async () => {
    const b = await upload(owner, { tags: 'hadith' });
    await recordPageResult(world.callbackDeps(), { ...job(b), pageNumber: 0, text: 'light upon light' });
    await edit(owner, b, { visibility: 'private' });
    expect(await list(as(), { tags: ['hadith'] })).toMatchObject({ total: 0, books: [] });
    expect((await list(as(reader), { status: 'processing' })).total).toBe(0);
    expect(await searchCatalogue(search(), as(), { q: 'light', limit: 10, offset: 0 })).toMatchObject({ total: 0, hits: [] });
    expect((await searchCatalogue(search(), as(owner), { q: 'light', limit: 10, offset: 0 })).total).toBe(1);
    await edit(owner, b, { visibility: 'public' });
    expect((await list(as(), { tags: ['hadith'] })).total).toBe(1);
    expect((await searchCatalogue(search(), as(), { q: 'light', limit: 10, offset: 0 })).total).toBe(1);
  });

  it('counts a book being made private for nobody else while the write is on its way', async () => {
    const b = await upload(owner, { tags: 'hadith' });
    await recordPageResult(world.callbackDeps(), { ...job(b), pageNumber: 0, text: 'light upon light' });
    const storeEdit = world.ocr.edit.bind(world.ocr);
    const seen: number[] = [];
    world.ocr.edit = async (book, e) => {
      // Between the index's hiding and the table's write: the table still says public.
      seen.push((await list(as(), { tags: ['hadith'] })).total, (await searchCatalogue(search(), as(), { q: 'light', limit: 10, offset: 0 })).total);
      return storeEdit(book, e);
    };
    await edit(owner, b, { visibility: 'private' });
    expect(seen).toEqual([0, 0]);
  });

  it('refuses to make a book private when the index cannot hide it, writing nothing', async () => {
    const b = await upload(owner, { tags: 'hadith' });
    world.search.hideBook = () => Promise.reject(new Error('index down'));
    await expect(edit(owner, b, { visibility: 'private', tags: ['x'] })).rejects.toThrow();
    expect((await world.ocr.get(b.bookTextId))!).toMatchObject({ visibility: 'public', tags: ['hadith'] });
  });

  it('shows the book public again when the table write fails after hiding it', async () => {
    const b = await upload(owner, { tags: 'hadith' });
    world.ocr.edit = () => Promise.reject(new Error('table down'));
    await expect(edit(owner, b, { visibility: 'private' })).rejects.toThrow('table down');
    expect((await list(as(), { tags: ['hadith'] })).total).toBe(1);
  });
});

describe('the stream beside the write path', () => {
  /** The stream's indexer applying `changes` with the records as they were read before (`before`). */
  const staleIndexer = (before: Map<string, BookText>) => (changes: IndexChange[]) =>
    indexChanges({ engine: world.search, bookTexts: { getMany: async () => before }, pages: world.ocr }, changes);

  it('putting what it read before a write, after the write answered, takes nothing back', async () => {
    const b = await upload(owner, { tags: 'old' });
    const before = new Map([[b.bookTextId, (await world.ocr.get(b.bookTextId))!]]);
    await edit(owner, b, { tags: ['new'], visibility: 'private' });
    await staleIndexer(before)([{ kind: 'bookText', bookTextId: b.bookTextId }]);
    expect((await list(as(editor), { tags: ['new'] })).total).toBe(1);
    expect((await list(as(editor), { tags: ['old'] })).total).toBe(0);
    expect((await list(as(), {})).total).toBe(0);
  });

  it('a page and its book read before an edit, put after it, do not replace the edit', async () => {
    const b = await upload(owner);
    await recordPageResult(world.callbackDeps(), { ...job(b), pageNumber: 0, text: 'first draft' });
    // The stream's indexer reads the book, then the page, as it always does: both before the edit.
    const before = new Map([[b.bookTextId, (await world.ocr.get(b.bookTextId))!]]);
    const oldPage = (await world.ocr.pagesAt([{ bookTextId: b.bookTextId, pageNumber: 0 }]))[0]!;
    await edit(owner, b, { pages: [{ pageNumber: 0, text: 'final text' }] });
    const stale = { bookTexts: { getMany: async () => before }, pages: { pagesAt: async () => [oldPage] } };
    await indexChanges({ engine: world.search, ...stale }, [{ kind: 'page', bookTextId: b.bookTextId, pageNumber: 0 }]);
    expect((await searchCatalogue(search(), as(), { q: 'final', limit: 10, offset: 0 })).total).toBe(1);
    expect((await searchCatalogue(search(), as(), { q: 'draft', limit: 10, offset: 0 })).total).toBe(0);
  });

  it('a new page put with the fields of a book read before it was made private does not count it public', async () => {
    const b = await upload(owner);
    const before = new Map([[b.bookTextId, (await world.ocr.get(b.bookTextId))!]]);
    await world.ocr.putPages([{ pageId: 'p', bookTextId: b.bookTextId, pageNumber: 4, text: 'hidden words', storageKey: null, isAIGenerated: true, updatedAt: world.clock.iso() }]);
    await edit(owner, b, { visibility: 'private' });
    // The stream's indexer read the book (public) before the edit, and puts the page after it.
    let reads = 0;
    const bookTexts = { getMany: async (ids: readonly string[]) => (reads++ === 0 ? before : world.ocr.getMany(ids)) };
    await indexChanges({ engine: world.search, bookTexts, pages: world.ocr }, [{ kind: 'page', bookTextId: b.bookTextId, pageNumber: 4 }]);
    expect(await searchCatalogue(search(), as(), { q: 'hidden', limit: 10, offset: 0 })).toMatchObject({ total: 0, hits: [] });
    // Counted outside the window too: a public page that ranks first fills a window of one.
    const shown = await upload(reader);
    await recordPageResult(world.callbackDeps(), { ...job(shown), pageNumber: 0, text: 'hidden hidden hidden' });
    expect(await searchCatalogue(search(), as(), { q: 'hidden', limit: 1, offset: 0 })).toMatchObject({ total: 1, hits: [{ bookTextId: shown.bookTextId }] });
    expect((await searchCatalogue(search(), as(owner), { q: 'hidden', limit: 10, offset: 0 })).total).toBe(2);
  });

  it('repairs the index when the write path could not update it: the write answers, the stream catches up', async () => {
    const down = new Error('index down');
    const failing: SearchEngine = Object.assign(Object.create(world.search) as SearchEngine, { putBook: () => Promise.reject(down) });
    const b = await createJob({ ...uploadDeps(), index: indexWrites({ engine: failing, ...world.ocr.ports() }) }, owner, { storageKey: 'ocr/x.pdf', originalName: 'x.pdf', fileType: 'application/pdf', fileSize: 1 }, jobFieldsOf({ tags: 'late' }), snapshot, { removeObjectOnFailure: true });
    expect((await list(as(owner), { tags: ['late'] })).total).toBe(0);
    await indexChanges({ engine: world.search, bookTexts: world.ocr, pages: world.ocr }, [{ kind: 'bookText', bookTextId: b.bookTextId }]);
    expect((await list(as(owner), { tags: ['late'] })).total).toBe(1);
  });
});
