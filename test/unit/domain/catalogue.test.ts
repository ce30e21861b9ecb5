import { beforeEach, describe, expect, it } from 'vitest';
import type { User } from '../../../lib/auth/users.ts';
import type { BookText } from '../../../lib/ocr/book-text.ts';
import { listCatalogue, tableWindow, type CatalogueDeps } from '../../../lib/ocr/catalogue/listing.ts';
import { indexChanges } from '../../../lib/search/indexing.ts';
import { fakeWorld, type FakeWorld } from '../../support/fakes/index.ts';
import { FakeSearchEngine } from '../../support/fakes/search-engine.ts';
import { storedJob, storedUser, as, listing } from './fixtures.ts';

/**
 * GET /ocr/books (docs/SPEC.md 4.1; docs/data-model.md "The catalogue"): unfiltered first pages come from the table, every
 * other listing from the search index's listing, each book of its window checked against the table.
 */
let world: FakeWorld;
let engine: FakeSearchEngine;
let deps: CatalogueDeps;
let owner: User;
let other: User;
let editor: User;

const ids = (out: { books: { bookTextId: string }[] }) => out.books.map((b) => b.bookTextId);

/** Indexes the books as the search indexer does on their stream changes (lib/search/indexing.ts). */
const indexed = (...books: BookText[]) =>
  indexChanges({ engine, bookTexts: world.ocr, pages: world.ocr }, books.map((b) => ({ kind: 'bookText' as const, bookTextId: b.bookTextId })));

let made = 0;
async function book(user: User, fields: Partial<BookText> = {}): Promise<BookText> {
  const createdAt = new Date(Date.UTC(2026, 0, 1, 0, 0, ++made)).toISOString();
  return (await storedJob(world, user.userId, { status: 'completed', visibility: 'public', createdAt, ...fields })).book;
}

beforeEach(async () => {
  world = fakeWorld({ now: '2026-03-15T12:00:00.000Z' });
  engine = new FakeSearchEngine();
  deps = { catalogue: world.ocr, listing: engine, bookTexts: world.ocr, users: world.users };
  owner = await storedUser(world);
  other = await storedUser(world);
  editor = await storedUser(world, 'editor');
});

describe('the catalogue listing', () => {
  it('filters through the index with the exact total, in the view of GET /ocr/books', async () => {
    const a = await book(owner, { tags: ['hadith'], language: 'ar' });
    const b = await book(other, { tags: ['fiqh', 'hadith'], language: 'en' });
    const mine = await book(owner, { tags: ['hadith'], visibility: 'private' });
    await indexed(a, b, mine);
    expect(await listCatalogue(deps, as(), listing({ tags: ['hadith'] }))).toMatchObject({ total: 2, books: [{ bookTextId: b.bookTextId }, { bookTextId: a.bookTextId }] });
    expect(ids(await listCatalogue(deps, as(owner), listing({ tags: ['hadith'] })))).toEqual([mine, b, a].map((x) => x.bookTextId));
    expect((await listCatalogue(deps, as(other), listing({ tags: ['hadith'] }))).total).toBe(2);
    expect((await listCatalogue(deps, as(editor), listing({ tags: ['hadith'], language: 'ar' }))).total).toBe(2);
    expect(await listCatalogue(deps, as(), listing({ status: 'archived' }))).toMatchObject({ total: 0, books: [] });
  });

  it('lists a new book at once on an unfiltered first page, and in a filter once indexed', async () => {
    const fresh = await book(owner, { tags: ['new'] });
    expect(await listCatalogue(deps, as(), listing())).toMatchObject({ total: 1, books: [{ bookTextId: fresh.bookTextId }] });
    expect((await listCatalogue(deps, as(), listing({ tags: ['new'] }))).total).toBe(0);
    await indexed(fresh);
    expect(ids(await listCatalogue(deps, as(), listing({ tags: ['new'] })))).toEqual([fresh.bookTextId]);
  });

  it('never shows a book made private before the index has caught up, nor one whose tags no longer match', async () => {
    const kept = await book(owner, { tags: ['hadith'] });
    const hidden = await book(owner, { tags: ['hadith'] });
    const retagged = await book(owner, { tags: ['hadith'] });
    await indexed(kept, hidden, retagged);
    await world.ocr.edit(hidden, { at: '2026-03-15T12:00:00.000Z', visibility: 'private' });
    await world.ocr.edit(retagged, { at: '2026-03-15T12:00:00.000Z', tags: ['fiqh'] });
    const out = await listCatalogue(deps, as(other), listing({ tags: ['hadith'] }));
    expect(out).toMatchObject({ total: 1, books: [{ bookTextId: kept.bookTextId }] });
    // The owner still sees the book made private; once indexed, the retagged book is under its new tag.
    expect(ids(await listCatalogue(deps, as(owner), listing({ tags: ['hadith'] })))).toEqual([hidden, kept].map((x) => x.bookTextId));
    await indexed(hidden, retagged);
    expect((await listCatalogue(deps, as(other), listing({ tags: ['hadith'] }))).total).toBe(1);
    expect(ids(await listCatalogue(deps, as(other), listing({ tags: ['fiqh'] })))).toEqual([retagged.bookTextId]);
  });

  it('pages past the first ones through the index, in the same order as the table', async () => {
    const books = [];
    for (let i = 0; i < tableWindow + 30; i++) books.push(await book(owner, { fileName: `book ${String(i).padStart(3, '0')}.pdf`, pageCount: i % 7 }));
    await indexed(...books);
    const orders = { date_desc: ['date', true], name_asc: ['name', false], pages_desc: ['pages', true] } as const;
    for (const [sort, [order, descending]] of Object.entries(orders)) {
      const whole: string[] = [];
      for (let offset = 0; offset < books.length; offset += 40) {
        const out = await listCatalogue(deps, as(), listing({ sort: sort as keyof typeof orders, limit: 40, offset }));
        expect(out.total, sort).toBe(books.length);
        whole.push(...ids(out));
      }
      // The first pages (table) and the deeper ones (index) join without a gap or a repeat.
      const table = await world.ocr.list({ view: { kind: 'public' }, order, descending, limit: books.length, offset: 0 });
      expect(whole, sort).toEqual(table.items.map((b) => b.bookTextId));
    }
  });
});
