import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keys } from '../../lib/adapters/dynamo/keys.ts';
import type { BookListQuery, IndexedBook, SearchEngine, SearchView } from '../../lib/search/engine.ts';
import { maxListingChars, maxListValues } from '../../lib/search/rules.ts';

/**
 * The catalogue listing part of the SearchEngine contract (putBook, listBooks, removeBook), run by
 * describeSearchEngine (test/support/search-engine-contract.ts) against every engine. Expected
 * listings are written by hand or computed here by brute force (UTF-8 byte order by Buffer.compare),
 * never taken from another engine.
 */

interface Made {
  bookTextId: string;
  userId?: string;
  visibility?: 'public' | 'private';
  status?: string;
  language?: string;
  tags?: string[];
  categories?: string[];
  createdAt?: string;
  fileName?: string | null;
  pageCount?: number;
}

/** A listed book, its sort keys made as the DynamoDB catalogue makes them (keys.catalogueSort). */
export function listedBook(made: Made): IndexedBook {
  const { bookTextId, createdAt = '2024-01-01T00:00:00.000Z', fileName = bookTextId, pageCount = 1 } = made;
  return {
    bookTextId,
    userId: made.userId ?? 'user-alice',
    visibility: made.visibility ?? 'public',
    status: made.status ?? 'completed',
    language: made.language ?? 'ar',
    tags: made.tags ?? [],
    categories: made.categories ?? [],
    ...keys.catalogueSort({ bookTextId, createdAt, fileName, pageCount }),
  };
}

/** Every book, date order, the first 100, unless `rest` says otherwise. */
export const list = (rest: Partial<Omit<BookListQuery, 'filter'>> & { filter?: Partial<BookListQuery['filter']> } = {}): BookListQuery => ({
  view: { kind: 'all' },
  order: 'date',
  descending: false,
  limit: 100,
  offset: 0,
  ...rest,
  filter: { tags: [], categories: [], ...rest.filter },
});

const alice = 'user-alice';
const bob = 'user-bob';
const views: Record<string, SearchView> = {
  anonymous: { kind: 'public' },
  alice: { kind: 'publicAndOwn', ownerId: alice },
  bob: { kind: 'publicAndOwn', ownerId: bob },
  carol: { kind: 'publicAndOwn', ownerId: 'user-carol' },
  staff: { kind: 'all' },
};

/** Six books: dates b1 < b2 < ... < b6; names and page counts in other orders. */
const shelf: IndexedBook[] = [
  listedBook({ bookTextId: 'b1', userId: alice, visibility: 'public', status: 'completed', language: 'ar', tags: ['fiqh', 'hadith'], categories: ['law'], createdAt: '2024-01-01T00:00:00.000Z', fileName: 'Zad', pageCount: 30 }),
  listedBook({ bookTextId: 'b2', userId: alice, visibility: 'private', status: 'processing', language: 'ar', tags: ['hadith'], categories: ['law', 'history'], createdAt: '2024-02-01T00:00:00.000Z', fileName: 'Bidaya', pageCount: 500 }),
  listedBook({ bookTextId: 'b3', userId: bob, visibility: 'public', status: 'completed', language: 'en', tags: ['poetry'], categories: [], createdAt: '2024-03-01T00:00:00.000Z', fileName: 'adab', pageCount: 7 }),
  listedBook({ bookTextId: 'b4', userId: bob, visibility: 'private', status: 'failed', language: 'en', tags: [], categories: ['history'], createdAt: '2024-04-01T00:00:00.000Z', fileName: 'Mukhtasar', pageCount: 120 }),
  listedBook({ bookTextId: 'b5', userId: bob, visibility: 'public', status: 'completed', language: 'ar', tags: ['fiqh'], categories: ['history'], createdAt: '2024-05-01T00:00:00.000Z', fileName: 'الرسالة', pageCount: 64 }),
  listedBook({ bookTextId: 'b6', userId: 'user-carol', visibility: 'public', status: 'processing', language: 'fa', tags: ['poetry', 'fiqh'], categories: ['law'], createdAt: '2024-06-01T00:00:00.000Z', fileName: 'Masnavi', pageCount: 1000 }),
];

async function shelved(make: () => Promise<SearchEngine>): Promise<SearchEngine> {
  const engine = await make();
  for (const book of shelf) await engine.putBook(book);
  return engine;
}

/** The ids listed, and the total, of one query. */
async function listing(engine: SearchEngine, query: BookListQuery): Promise<{ total: number; ids: string[] }> {
  const { total, bookTextIds } = await engine.listBooks(query);
  return { total, ids: bookTextIds };
}

const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The listing by brute force over the model: written apart from any engine. */
function bruteForce(books: Iterable<IndexedBook>, q: BookListQuery): string[] {
  const field = ({ date: 'byDate', name: 'byName', pages: 'byPages' } as const)[q.order];
  const same = (a: string, b: string) => byUtf8(a, b) === 0;
  const listed = [...books]
    .filter((b) => {
      if (q.view.kind === 'public' && b.visibility !== 'public') return false;
      if (q.view.kind === 'publicAndOwn' && b.visibility !== 'public' && !same(b.userId, q.view.ownerId)) return false;
      if (q.filter.status !== undefined && !same(b.status, q.filter.status)) return false;
      if (q.filter.language !== undefined && !same(b.language, q.filter.language)) return false;
      if (q.filter.tags.length > 0 && !q.filter.tags.some((t) => b.tags.some((u) => same(t, u)))) return false;
      if (q.filter.categories.length > 0 && !q.filter.categories.some((c) => b.categories.some((u) => same(c, u)))) return false;
      return true;
    })
    .sort((x, y) => byUtf8(x[field], y[field]));
  if (q.descending) listed.reverse();
  return listed.map((b) => b.bookTextId);
}

/** Tags a client might send that are SQL, LIKE, FTS5, Lucene or JSON syntax, or odd text. */
const hostileTags = [
  "'", "''", '"', '\\', '\\"', '%', '_', '*', '?', 'a%', '%a%', 'a_c', 'abc', '*a*', "' OR '1'='1", "x'); DROP TABLE listing; --",
  '"}],"tags":["x', '{"$ne":null}', '[]', 'null', 'NEAR', 'a OR b', 'tags:*', 'a,b', ' a', 'a ', 'a\u0000b', 'a', '\t', '\u202Etxt',
  'ﷺ', 'مُحَمَّد', '👍🏽', 'e\u0301', 'é', 'É',
];

export function describeListing(make: () => Promise<SearchEngine>): void {
  describe('the catalogue listing', () => {
    it('lists nothing when nothing is listed, and pages are not listed', async () => {
      const engine = await make();
      expect(await engine.listBooks(list())).toEqual({ total: 0, bookTextIds: [] });
      await engine.putPages([{ bookTextId: 'b1', userId: alice, visibility: 'public', status: 'completed', language: 'ar', pageNumber: 0, exact: ['نور'], stemmed: ['نور'] }]);
      expect(await engine.listBooks(list())).toEqual({ total: 0, bookTextIds: [] });
    });

    it('shows each view its books: anonymous the public ones, a member also their own, staff all', async () => {
      const engine = await shelved(make);
      const seen: Record<string, { total: number; ids: string[] }> = {};
      for (const [who, view] of Object.entries(views)) seen[who] = await listing(engine, list({ view }));
      expect(seen).toEqual({
        anonymous: { total: 4, ids: ['b1', 'b3', 'b5', 'b6'] },
        alice: { total: 5, ids: ['b1', 'b2', 'b3', 'b5', 'b6'] },
        bob: { total: 5, ids: ['b1', 'b3', 'b4', 'b5', 'b6'] },
        carol: { total: 4, ids: ['b1', 'b3', 'b5', 'b6'] },
        staff: { total: 6, ids: ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'] },
      });
    });

    it('filters by status, language, tags (any of) and categories (any of), alone and together', async () => {
      const engine = await shelved(make);
      const ids = async (filter: Partial<BookListQuery['filter']>, view: SearchView = views.staff!) => listing(engine, list({ filter, view }));
      expect(await ids({ status: 'completed' })).toEqual({ total: 3, ids: ['b1', 'b3', 'b5'] });
      expect(await ids({ status: 'processing' })).toEqual({ total: 2, ids: ['b2', 'b6'] });
      expect(await ids({ status: 'pending' })).toEqual({ total: 0, ids: [] });
      expect(await ids({ language: 'en' })).toEqual({ total: 2, ids: ['b3', 'b4'] });
      expect(await ids({ language: 'ar' })).toEqual({ total: 3, ids: ['b1', 'b2', 'b5'] });
      expect(await ids({ tags: ['fiqh'] })).toEqual({ total: 3, ids: ['b1', 'b5', 'b6'] });
      expect(await ids({ tags: ['fiqh', 'poetry'] })).toEqual({ total: 4, ids: ['b1', 'b3', 'b5', 'b6'] });
      expect(await ids({ tags: ['hadith', 'fiqh', 'absent'] })).toEqual({ total: 4, ids: ['b1', 'b2', 'b5', 'b6'] });
      expect(await ids({ tags: ['absent'] })).toEqual({ total: 0, ids: [] });
      const many = Array.from({ length: 11 }, (_, n) => `absent-${n}`);
      expect(await ids({ tags: [...many, 'fiqh'] })).toEqual({ total: 3, ids: ['b1', 'b5', 'b6'] });
      expect(await ids({ tags: [...many, 'fiqh', 'hadith'], categories: [...many, 'history'] })).toEqual({ total: 2, ids: ['b2', 'b5'] });
      expect(await ids({ categories: ['history'] })).toEqual({ total: 3, ids: ['b2', 'b4', 'b5'] });
      expect(await ids({ categories: ['law', 'history'] })).toEqual({ total: 5, ids: ['b1', 'b2', 'b4', 'b5', 'b6'] });
      expect(await ids({ tags: ['fiqh'], categories: ['law'] })).toEqual({ total: 2, ids: ['b1', 'b6'] });
      expect(await ids({ tags: ['fiqh', 'hadith'], categories: ['history'] })).toEqual({ total: 2, ids: ['b2', 'b5'] });
      expect(await ids({ status: 'completed', language: 'ar' })).toEqual({ total: 2, ids: ['b1', 'b5'] });
      expect(await ids({ status: 'completed', language: 'ar', tags: ['fiqh'], categories: ['history'] })).toEqual({ total: 1, ids: ['b5'] });
      expect(await ids({ status: 'processing', tags: ['hadith'] })).toEqual({ total: 1, ids: ['b2'] });
      expect(await ids({ status: 'processing', tags: ['hadith'] }, views.anonymous)).toEqual({ total: 0, ids: [] });
      expect(await ids({ categories: ['history'] }, views.alice)).toEqual({ total: 2, ids: ['b2', 'b5'] });
      expect(await ids({ categories: ['history'], language: 'en' }, views.bob)).toEqual({ total: 1, ids: ['b4'] });
      expect(await ids({ tags: ['poetry', 'hadith'] }, views.carol)).toEqual({ total: 3, ids: ['b1', 'b3', 'b6'] });
    });

    it('orders by date, name and pages, each ascending and descending, as UTF-8 bytes', async () => {
      const engine = await shelved(make);
      const order = async (o: BookListQuery['order'], descending: boolean) => (await listing(engine, list({ order: o, descending }))).ids;
      expect(await order('date', false)).toEqual(['b1', 'b2', 'b3', 'b4', 'b5', 'b6']);
      expect(await order('date', true)).toEqual(['b6', 'b5', 'b4', 'b3', 'b2', 'b1']);
      // Names case-folded (catalogueSort): adab, bidaya, masnavi, mukhtasar, zad, then Arabic (UTF-8 from 0xD8).
      expect(await order('name', false)).toEqual(['b3', 'b2', 'b6', 'b4', 'b1', 'b5']);
      expect(await order('name', true)).toEqual(['b5', 'b1', 'b4', 'b6', 'b2', 'b3']);
      // Page counts zero-padded: 7, 30, 64, 120, 500, 1000.
      expect(await order('pages', false)).toEqual(['b3', 'b1', 'b5', 'b4', 'b2', 'b6']);
      expect(await order('pages', true)).toEqual(['b6', 'b2', 'b4', 'b5', 'b1', 'b3']);
      expect((await listing(engine, list({ order: 'name', view: views.anonymous, filter: { tags: ['fiqh', 'poetry'] } }))).ids).toEqual(['b3', 'b6', 'b1', 'b5']);
    });

    it('orders keys with accents and characters beyond the BMP as UTF-8 does, not UTF-16', async () => {
      const engine = await make();
      // UTF-8: z 7A < é C3A9 < ﬀ EFAC80 < U+FFFD EFBFBD < 😀 F09F9880. UTF-16 puts 😀 (D83D) before ﬀ (FB00) and U+FFFD.
      const names: [string, string][] = [['n-emoji', '😀'], ['n-fffd', '\uFFFD'], ['n-ff', 'ﬀ'], ['n-e', 'é'], ['n-z', 'z'], ['n-e2', 'e\u0301']];
      for (const [bookTextId, name] of names) {
        const book = listedBook({ bookTextId, pageCount: 1 });
        await engine.putBook({ ...book, byName: `${name}#${bookTextId}` });
      }
      const ascending = ['n-e2', 'n-z', 'n-e', 'n-ff', 'n-fffd', 'n-emoji'];
      expect((await listing(engine, list({ order: 'name' }))).ids).toEqual(ascending);
      expect((await listing(engine, list({ order: 'name', descending: true }))).ids).toEqual([...ascending].reverse());
      // The same books under JavaScript's own (UTF-16) sort would be in another order.
      const utf16 = [...names].sort((a, b) => (a[1] < b[1] ? -1 : 1)).map(([id]) => id);
      expect(utf16).not.toEqual(ascending);
      // A lone surrogate sorts (and matches) as U+FFFD, as UTF-8 encoders write it: after n-fffd ('#n-f' < '#n-l').
      await engine.putBook({ ...listedBook({ bookTextId: 'n-lone', tags: ['\uD83D'] }), byName: '\uD83D#n-lone' });
      expect((await listing(engine, list({ order: 'name' }))).ids).toEqual(['n-e2', 'n-z', 'n-e', 'n-ff', 'n-fffd', 'n-lone', 'n-emoji']);
      expect((await listing(engine, list({ filter: { tags: ['\uFFFD'] } }))).ids).toEqual(['n-lone']);
      expect((await listing(engine, list({ filter: { tags: ['\uDE00\uD83D'] } }))).ids).toEqual([]);
    });

    it('pages through a listing: disjoint windows whose union is the whole listing, each with the exact total', async () => {
      const engine = await make();
      const books = Array.from({ length: 23 }, (_, n) =>
        listedBook({ bookTextId: `p${String(n).padStart(2, '0')}`, visibility: n % 4 === 3 ? 'private' : 'public', tags: n % 2 ? ['odd'] : ['even'], fileName: `name ${(n * 7) % 23}`, pageCount: (n * 5) % 11 }),
      );
      for (const book of books) await engine.putBook(book);
      for (const order of ['date', 'name', 'pages'] as const) {
        for (const descending of [false, true]) {
          for (const view of [views.anonymous!, views.staff!]) {
            const whole = await listing(engine, list({ order, descending, view }));
            expect(whole.total).toBe(view.kind === 'all' ? 23 : 18);
            expect(whole.ids).toEqual(bruteForce(books, list({ order, descending, view })));
            for (const limit of [1, 4, 7]) {
              const seen: string[] = [];
              for (let offset = 0; offset < 25; offset += limit) {
                const part = await listing(engine, list({ order, descending, view, limit, offset }));
                expect(part.total).toBe(whole.total);
                seen.push(...part.ids);
              }
              expect(seen).toEqual(whole.ids);
            }
          }
        }
      }
      const odd = await listing(engine, list({ filter: { tags: ['odd'] }, order: 'pages', limit: 3, offset: 9 }));
      expect(odd).toEqual({ total: 11, ids: bruteForce(books, list({ filter: { tags: ['odd'] }, order: 'pages' })).slice(9, 12) });
      expect(await engine.listBooks(list({ offset: 10_000 }))).toEqual({ total: 23, bookTextIds: [] });
      expect(await engine.listBooks(list({ offset: 23, filter: { tags: ['even', 'odd'] } }))).toEqual({ total: 23, bookTextIds: [] });
    });

    it('putBook replaces a book’s entry: it moves between filters, views and places', async () => {
      const engine = await shelved(make);
      const b3 = shelf[2]!;
      await engine.putBook({ ...b3, visibility: 'private', status: 'failed', language: 'ar', tags: ['hadith'], categories: ['law'], ...keys.catalogueSort({ bookTextId: 'b3', createdAt: '2023-01-01T00:00:00.000Z', fileName: 'zzz', pageCount: 2000 }) });
      expect(await listing(engine, list({ view: views.anonymous }))).toEqual({ total: 3, ids: ['b1', 'b5', 'b6'] });
      expect(await listing(engine, list({ view: views.bob }))).toEqual({ total: 5, ids: ['b3', 'b1', 'b4', 'b5', 'b6'] });
      expect(await listing(engine, list({ filter: { tags: ['poetry'] } }))).toEqual({ total: 1, ids: ['b6'] });
      expect(await listing(engine, list({ filter: { tags: ['hadith'] } }))).toEqual({ total: 3, ids: ['b3', 'b1', 'b2'] });
      expect(await listing(engine, list({ filter: { status: 'failed', categories: ['law'] } }))).toEqual({ total: 1, ids: ['b3'] });
      expect(await listing(engine, list({ filter: { language: 'en' } }))).toEqual({ total: 1, ids: ['b4'] });
      expect((await listing(engine, list({ order: 'pages', descending: true }))).ids[0]).toBe('b3');
      expect((await listing(engine, list({ order: 'name', descending: true, view: views.staff }))).ids.slice(0, 2)).toEqual(['b5', 'b3']);
      // Put again as it was: back where it was.
      await engine.putBook(b3);
      expect(await listing(engine, list({ view: views.anonymous }))).toEqual({ total: 4, ids: ['b1', 'b3', 'b5', 'b6'] });
      expect(await listing(engine, list({ filter: { tags: ['hadith'] } }))).toEqual({ total: 2, ids: ['b1', 'b2'] });
      // Repeated and empty tags count once and not at all.
      await engine.putBook({ ...shelf[0]!, tags: ['fiqh', 'fiqh', '', 'x'], categories: ['', 'law', 'law'] });
      expect(await listing(engine, list({ filter: { tags: ['fiqh', 'x'] } }))).toEqual({ total: 3, ids: ['b1', 'b5', 'b6'] });
      expect(await listing(engine, list({ filter: { tags: [''] } }))).toEqual({ total: 0, ids: [] });
    });

    it('putBook keeps the entry of the highest rev; hideBook takes a book out of other views at once, its rev kept', async () => {
      const engine = await shelved(make);
      const b3 = shelf[2]!;
      await engine.putBook({ ...b3, tags: ['new'], rev: 5 });
      // An older read put late (the stream's indexer): nothing changes; the same rev replaces.
      await engine.putBook({ ...b3, tags: ['old'], rev: 4 });
      await engine.putBook({ ...b3, tags: ['old'] });
      expect(await listing(engine, list({ filter: { tags: ['new'] } }))).toEqual({ total: 1, ids: ['b3'] });
      expect(await listing(engine, list({ filter: { tags: ['old'] } }))).toEqual({ total: 0, ids: [] });
      await engine.putBook({ ...b3, tags: ['newer'], rev: 5 });
      expect(await listing(engine, list({ filter: { tags: ['newer'] } }))).toEqual({ total: 1, ids: ['b3'] });
      // Hidden: out of the anonymous and other members' listings and totals, still bob's and staff's.
      await engine.hideBook('b3');
      expect(await listing(engine, list({ view: views.anonymous }))).toEqual({ total: 3, ids: ['b1', 'b5', 'b6'] });
      expect(await listing(engine, list({ view: views.alice, filter: { tags: ['newer'] } }))).toEqual({ total: 0, ids: [] });
      expect(await listing(engine, list({ view: views.bob, filter: { tags: ['newer'] } }))).toEqual({ total: 1, ids: ['b3'] });
      expect((await listing(engine, list({ view: views.staff }))).total).toBe(6);
      // A lower rev does not show it again; the rev it had does (the table's write did not happen).
      await engine.putBook({ ...b3, tags: ['newer'], rev: 4 });
      expect((await listing(engine, list({ view: views.anonymous }))).total).toBe(3);
      await engine.putBook({ ...b3, tags: ['newer'], rev: 5 });
      expect(await listing(engine, list({ view: views.anonymous }))).toEqual({ total: 4, ids: ['b1', 'b3', 'b5', 'b6'] });
      await engine.hideBook('missing');
    });

    it('removeBook removes the listing entry and the pages; pages and listing are otherwise apart', async () => {
      const engine = await shelved(make);
      const page = { bookTextId: 'b1', userId: alice, visibility: 'public' as const, status: 'completed', language: 'ar', pageNumber: 0, exact: ['نور'], stemmed: ['نور'] };
      await engine.putPages([page, { ...page, bookTextId: 'b3', userId: bob }]);
      const light = { mode: 'all' as const, field: 'exact' as const, terms: ['نور'], view: views.staff!, limit: 10, offset: 0 };
      // setBookFields is the pages' business: the listing keeps what putBook said.
      await engine.setBookFields('b1', { userId: alice, visibility: 'private', status: 'completed', language: 'ar' });
      expect((await listing(engine, list({ view: views.anonymous }))).ids).toContain('b1');
      await engine.removeBook('b1');
      expect(await listing(engine, list())).toEqual({ total: 5, ids: ['b2', 'b3', 'b4', 'b5', 'b6'] });
      expect(await listing(engine, list({ filter: { tags: ['fiqh'] } }))).toEqual({ total: 2, ids: ['b5', 'b6'] });
      expect(await engine.search(light)).toEqual({ total: 1, hits: [{ bookTextId: 'b3', pageNumber: 0 }] });
      // A book listed without pages, and one with pages never listed.
      await engine.removeBook('b2');
      await engine.removeBook('b2');
      await engine.removeBook('missing');
      expect((await listing(engine, list())).ids).toEqual(['b3', 'b4', 'b5', 'b6']);
      await engine.putPages([{ ...page, bookTextId: 'b9' }]);
      await engine.removeBook('b9');
      expect((await engine.search(light)).total).toBe(1);
      // Listed again, it is back.
      await engine.putBook(shelf[0]!);
      expect((await listing(engine, list())).ids).toEqual(['b1', 'b3', 'b4', 'b5', 'b6']);
    });

    it('matches hostile tag and category values literally, as data', async () => {
      const engine = await make();
      const books = hostileTags.map((tag, n) => listedBook({ bookTextId: `h${String(n).padStart(2, '0')}`, tags: [tag], categories: [tag, 'shared'], fileName: tag, status: tag, language: tag }));
      for (const book of books) await engine.putBook(book);
      for (const [n, tag] of hostileTags.entries()) {
        const id = `h${String(n).padStart(2, '0')}`;
        expect(await listing(engine, list({ filter: { tags: [tag] } })), JSON.stringify(tag)).toEqual({ total: 1, ids: [id] });
        expect(await listing(engine, list({ filter: { categories: [tag] } })), JSON.stringify(tag)).toEqual({ total: 1, ids: [id] });
        expect(await listing(engine, list({ filter: { status: tag, language: tag } })), JSON.stringify(tag)).toEqual({ total: 1, ids: [id] });
        expect(await listing(engine, list({ filter: { tags: [tag, 'absent'], categories: ['shared'] } })), JSON.stringify(tag)).toEqual({ total: 1, ids: [id] });
      }
      expect((await listing(engine, list({ filter: { categories: ['shared'] } }))).total).toBe(hostileTags.length);
      expect(await listing(engine, list({ filter: { tags: ['A'] } }))).toEqual({ total: 0, ids: [] });
      expect(await listing(engine, list({ filter: { tags: ['a\u0000'] } }))).toEqual({ total: 0, ids: [] });
      expect((await listing(engine, list({ order: 'name' }))).ids).toEqual(bruteForce(books, list({ order: 'name' })));
    });

    it('refuses entries and queries out of contract, writing nothing; values no book can hold match nothing', async () => {
      const engine = await make();
      const good = listedBook({ bookTextId: 'ok', tags: ['t'] });
      const long = 'x'.repeat(maxListingChars + 1);
      const refused: IndexedBook[] = [
        { ...good, visibility: 'hidden' as 'public' },
        { ...good, byDate: '2024-01-01T00:00:00.000Z#other' },
        { ...good, byName: 'no id' },
        { ...good, bookTextId: '' },
        { ...listedBook({ bookTextId: 'a#b' }) },
        { ...listedBook({ bookTextId: 'lone\uD800' }) },
        { ...good, userId: '' },
        { ...good, status: '' },
        { ...good, language: long },
        { ...good, tags: Array.from({ length: maxListValues + 1 }, (_, n) => `t${n}`) },
        { ...good, categories: [long] },
        { ...good, tags: [7 as unknown as string] },
        { ...good, byPages: `${long}#ok` },
      ];
      for (const bad of refused) await expect(engine.putBook(bad)).rejects.toThrow(RangeError);
      expect(await engine.listBooks(list())).toEqual({ total: 0, bookTextIds: [] });
      // The most of each is accepted.
      const most = { ...good, tags: Array.from({ length: maxListValues }, (_, n) => `t${n}`), categories: ['c'.repeat(maxListingChars)] };
      await engine.putBook(most);
      expect((await engine.listBooks(list({ filter: { tags: ['t999'], categories: ['c'.repeat(maxListingChars)] } }))).total).toBe(1);
      const badQueries: BookListQuery[] = [
        list({ limit: 0 }),
        list({ limit: 101 }),
        list({ offset: 10_001 }),
        list({ offset: 1.5 }),
        list({ order: 'random' as 'date' }),
        list({ view: { kind: 'everyone' } as unknown as SearchView }),
        list({ filter: { tags: Array.from({ length: maxListValues + 1 }, (_, n) => `t${n}`) } }),
        list({ filter: { status: 3 as unknown as string } }),
      ];
      for (const bad of badQueries) await expect(engine.listBooks(bad)).rejects.toThrow(RangeError);
      for (const filter of [{ status: '' }, { language: long }, { tags: [long] }, { tags: [''] }, { categories: ['', long] }]) {
        expect(await engine.listBooks(list({ filter })), JSON.stringify(filter).slice(0, 60)).toEqual({ total: 0, bookTextIds: [] });
      }
      // Over-long values among others are dropped: the others still match.
      expect((await engine.listBooks(list({ filter: { tags: [long, 't1'] } }))).total).toBe(1);
    });

    it('gives exact totals and windows for random books, changes and queries (brute force)', async () => {
      await fc.assert(
        fc.asyncProperty(randomListingHistory, fc.array(randomListQuery, { minLength: 1, maxLength: 5 }), async (history, queries) => {
          const engine = await make();
          const model = new Map<string, IndexedBook>();
          for (const step of history) {
            if (step.kind === 'put') {
              await engine.putBook(step.book);
              model.set(step.book.bookTextId, step.book);
            } else {
              await engine.removeBook(step.bookTextId);
              model.delete(step.bookTextId);
            }
          }
          for (const q of queries) {
            const expected = bruteForce(model.values(), q);
            expect(await engine.listBooks(q)).toEqual({ total: expected.length, bookTextIds: expected.slice(q.offset, q.offset + q.limit) });
          }
        }),
        { numRuns: 120 },
      );
    });
  });
}

// Random listings: few ids, owners and values, so queries meet books often; names and tags from
// characters whose UTF-8 and UTF-16 orders differ, lone surrogates (read as U+FFFD) and hostile text.
const ids = ['b0', 'b1', 'b2', 'b3', 'b4', 'b5'];
const owners = ['u0', 'u1', 'u2'];
const values = ['t', 'T', 'é', 'e\u0301', '😀', '\uFFFD', '\uD83D', "'", '%', '_', 'a,b', '', 'x'];
const filterValues = [...values.filter((v) => v !== ''), 'absent'];
const nameChars = ['a', 'B', 'é', 'ﬀ', '\uFFFD', '😀', '\uDE00', '#', ' ', 'ا'];
const randomBook = (bookTextId: string): fc.Arbitrary<IndexedBook> =>
  fc
    .record({
      userId: fc.constantFrom(...owners),
      visibility: fc.constantFrom('public' as const, 'private' as const),
      status: fc.constantFrom('completed', 'failed', 'x%'),
      language: fc.constantFrom('ar', 'en'),
      tags: fc.array(fc.constantFrom(...values), { maxLength: 3 }),
      categories: fc.array(fc.constantFrom(...values), { maxLength: 2 }),
      date: fc.nat(5),
      name: fc.array(fc.constantFrom(...nameChars), { maxLength: 4 }).map((chars) => chars.join('')),
      pages: fc.nat(12),
    })
    .map(({ date, name, pages, ...fields }) => ({
      ...fields,
      bookTextId,
      byDate: `2024-01-0${date + 1}T00:00:00.000Z#${bookTextId}`,
      byName: `${name}#${bookTextId}`,
      byPages: `${String(pages).padStart(10, '0')}#${bookTextId}`,
    }));
type ListingStep = { kind: 'put'; book: IndexedBook } | { kind: 'remove'; bookTextId: string };
const randomListingHistory: fc.Arbitrary<ListingStep[]> = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...ids).chain((id) => randomBook(id).map((book): ListingStep => ({ kind: 'put', book }))) },
    { weight: 1, arbitrary: fc.constantFrom(...ids).map((bookTextId): ListingStep => ({ kind: 'remove', bookTextId })) },
  ),
  { minLength: 1, maxLength: 14 },
);
const randomListQuery: fc.Arbitrary<BookListQuery> = fc.record({
  view: fc.oneof(fc.constant<SearchView>({ kind: 'public' }), fc.constant<SearchView>({ kind: 'all' }), fc.constantFrom(...owners).map((ownerId): SearchView => ({ kind: 'publicAndOwn', ownerId }))),
  filter: fc.record(
    {
      status: fc.constantFrom('completed', 'failed', 'x%', 'x_'),
      language: fc.constantFrom('ar', 'en', 'fr'),
      // Mostly a few values; sometimes many (engines may read many lists differently from a few).
      tags: fc.oneof(
        { weight: 3, arbitrary: fc.array(fc.constantFrom(...filterValues), { maxLength: 3 }) },
        { weight: 1, arbitrary: fc.uniqueArray(fc.constantFrom(...filterValues), { minLength: 9, maxLength: filterValues.length }) },
      ),
      categories: fc.oneof(
        { weight: 3, arbitrary: fc.array(fc.constantFrom(...filterValues), { maxLength: 2 }) },
        { weight: 1, arbitrary: fc.uniqueArray(fc.constantFrom(...filterValues), { minLength: 9, maxLength: filterValues.length }) },
      ),
    },
    { requiredKeys: ['tags', 'categories'] },
  ),
  order: fc.constantFrom('date' as const, 'name' as const, 'pages' as const),
  descending: fc.boolean(),
  limit: fc.integer({ min: 1, max: 4 }),
  offset: fc.nat(6),
});
