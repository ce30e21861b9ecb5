import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IndexedBookFields, IndexedPage, MatchMode, PageHit, PageQuery, SearchEngine, SearchView } from '../../lib/search/engine.ts';
import { isFiled, variantKeys } from '../../lib/search/ocr-variants.ts';
import { describeListing } from './listing-contract.ts';

/**
 * What every SearchEngine (lib/search/engine.ts) must do, run against each: the in-memory fake
 * (test/unit/domain/search-engine-fake.test.ts), the SQLite one
 * (test/integration/search-engine-sqlite.test.ts) and the OpenSearch one over the fake OpenSearch
 * (test/adapters/opensearch-search-engine.test.ts); the catalogue listing's part is
 * test/support/listing-contract.ts. Totals are checked against counts made here,
 * by hand or by brute force over the corpus, never against another engine.
 */

/** A stand-in stemmer: the first four characters. */
const stem = (term: string): string => [...term].slice(0, 4).join('');

interface Book extends IndexedBookFields {
  bookTextId: string;
}

const alice = 'user-alice';
const bob = 'user-bob';
const carol = 'user-carol';
const arPublic: Book = { bookTextId: 'book-ar-public', userId: alice, visibility: 'public', status: 'completed', language: 'ar' };
const arPrivate: Book = { bookTextId: 'book-ar-private', userId: alice, visibility: 'private', status: 'completed', language: 'ar' };
const enPublic: Book = { bookTextId: 'book-en-public', userId: bob, visibility: 'public', status: 'completed', language: 'en' };
const enPrivate: Book = { bookTextId: 'book-en-private', userId: bob, visibility: 'private', status: 'processing', language: 'en' };

/** A page of `book` whose terms are `text`'s words; stemmed by `stem`. */
function page(book: Book, pageNumber: number, text: string): IndexedPage {
  const exact = text.split(' ').filter((word) => word !== '');
  return { ...book, pageNumber, exact, stemmed: exact.map(stem) };
}

/** A query for `terms`, every page visible, the first 100 hits unless `rest` says otherwise. */
const query = (terms: string[], rest: Partial<PageQuery> = {}): PageQuery => ({
  mode: 'all',
  field: 'exact',
  terms,
  view: { kind: 'all' },
  limit: 100,
  offset: 0,
  ...rest,
});

const ids = (hits: PageHit[]): string[] => hits.map((hit) => `${hit.bookTextId}#${hit.pageNumber}`);
const sorted = (values: string[]): string[] => [...values].sort();

const views: Record<string, SearchView> = {
  anonymous: { kind: 'public' },
  alice: { kind: 'publicAndOwn', ownerId: alice },
  bob: { kind: 'publicAndOwn', ownerId: bob },
  carol: { kind: 'publicAndOwn', ownerId: carol },
  staff: { kind: 'all' },
};

/**
 * `نور` on 3 pages of the public Arabic book, 2 of the private one (alice's), 1 of the public
 * English book and 4 of the private one (bob's); one page of the public Arabic book without it.
 */
const viewCorpus: IndexedPage[] = [
  page(arPublic, 0, 'نور على نور'),
  page(arPublic, 1, 'في البدء كان نور'),
  page(arPublic, 2, 'كتاب نور'),
  page(arPublic, 3, 'كتاب بلا ضوء'),
  page(arPrivate, 0, 'نور'),
  page(arPrivate, 7, 'نور الدين'),
  page(enPublic, 0, 'the word نور means light'),
  page(enPrivate, 0, 'نور one'),
  page(enPrivate, 1, 'نور two'),
  page(enPrivate, 2, 'نور three'),
  page(enPrivate, 10, 'نور four'),
];
const light = query(['نور']);
/** Pages with `نور` each view sees. */
const viewTotals = { anonymous: 4, alice: 6, bob: 8, carol: 4, staff: 10 };

async function totalsByView(engine: SearchEngine, base: PageQuery = light): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  for (const [who, view] of Object.entries(views)) totals[who] = (await engine.search({ ...base, view })).total;
  return totals;
}

/** Terms a client might type that are FTS5 or Lucene syntax, or no index term at all. */
const hostileTerms = [
  '"', '""', 'a"b', '"a"', '*', 'a*', 'NEAR', 'NEAR(a b)', 'near(a', 'OR', 'AND', 'NOT', 'A',
  '-', '-a', 'a-b', ':', 'exact:', '{exact}', 'exact:a', '{stemmed}:a', '^', '^a', '(', ')', '(a)',
  '+', 'a+b', "'", ';', 'a OR b', 'a b', '', ' ', 'a\u0000b', '\\', 'a'.repeat(65), '%', '_', '.',
];

export function describeSearchEngine(name: string, make: () => Promise<SearchEngine>): void {
  describe(`${name}: the SearchEngine contract`, () => {
    it('finds nothing in an empty index', async () => {
      const engine = await make();
      expect(await engine.search(query(['نور']))).toEqual({ total: 0, hits: [] });
      expect(await engine.search(query(['نور'], { mode: 'any', field: 'stemmed', view: { kind: 'public' } }))).toEqual({ total: 0, hits: [] });
    });

    describe('match modes', () => {
      const corpus = [
        page(enPublic, 0, 'the old man and the sea'),
        page(enPublic, 1, 'a man grown old by the sea'),
        page(enPublic, 2, 'an old boat'),
        page(enPublic, 3, 'nothing to see'),
        page(enPublic, 4, 'the man old and grey'),
      ];

      it('phrase needs the terms consecutively, all needs each anywhere, any needs one', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        const found = async (mode: MatchMode) => sorted(ids((await engine.search(query(['old', 'man'], { mode }))).hits));
        expect(await found('phrase')).toEqual(['book-en-public#0']);
        expect(await found('all')).toEqual(['book-en-public#0', 'book-en-public#1', 'book-en-public#4']);
        expect(await found('any')).toEqual(['book-en-public#0', 'book-en-public#1', 'book-en-public#2', 'book-en-public#4']);
        expect((await engine.search(query(['old', 'man'], { mode: 'any' }))).total).toBe(4);
      });

      it('a phrase is in order: its terms reversed find other pages', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        expect(ids((await engine.search(query(['man', 'old'], { mode: 'phrase' }))).hits)).toEqual(['book-en-public#4']);
        expect(ids((await engine.search(query(['old', 'man'], { mode: 'phrase' }))).hits)).toEqual(['book-en-public#0']);
        expect(ids((await engine.search(query(['the', 'sea'], { mode: 'phrase' }))).hits).sort()).toEqual(['book-en-public#0', 'book-en-public#1']);
        expect((await engine.search(query(['sea', 'the'], { mode: 'phrase' }))).total).toBe(0);
      });

      it('a one-term phrase is that term', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        expect((await engine.search(query(['old'], { mode: 'phrase' }))).total).toBe(4);
      });

      it('searches the stemmed field or the exact one', async () => {
        const engine = await make();
        await engine.putPages([page(enPublic, 0, 'reading books'), page(enPublic, 1, 'ready reader')]);
        const found = async (field: 'exact' | 'stemmed', term: string) => sorted(ids((await engine.search(query([term], { field }))).hits));
        expect(await found('stemmed', 'read')).toEqual(['book-en-public#0', 'book-en-public#1']);
        expect(await found('exact', 'read')).toEqual([]);
        expect(await found('exact', 'reading')).toEqual(['book-en-public#0']);
        expect(await found('stemmed', 'reading')).toEqual([]);
        expect(ids((await engine.search(query(['read', 'read'], { field: 'stemmed', mode: 'phrase' }))).hits)).toEqual(['book-en-public#1']);
      });

      it('finds Arabic terms with their marks as they are, and digits of any script', async () => {
        const engine = await make();
        await engine.putPages([page(arPublic, 0, 'الْكِتَابُ ١٢٣'), page(arPublic, 1, 'الكتاب 123'), page(arPublic, 2, 'كتابـة')]);
        expect(ids((await engine.search(query(['الْكِتَابُ']))).hits)).toEqual(['book-ar-public#0']);
        expect(ids((await engine.search(query(['الكتاب']))).hits)).toEqual(['book-ar-public#1']);
        expect(ids((await engine.search(query(['١٢٣']))).hits)).toEqual(['book-ar-public#0']);
        expect(ids((await engine.search(query(['123']))).hits)).toEqual(['book-ar-public#1']);
        expect(ids((await engine.search(query(['كتابـة']))).hits)).toEqual(['book-ar-public#2']);
        expect((await engine.search(query(['كتابة']))).total).toBe(0);
      });
    });

    describe('who sees what', () => {
      it('counts each view exactly: anonymous the public books, a member also their own, staff everything', async () => {
        const engine = await make();
        await engine.putPages(viewCorpus);
        expect(await totalsByView(engine)).toEqual(viewTotals);
        // The hits are those pages: every one in a book the view may see.
        const aliceHits = ids((await engine.search({ ...light, view: views.alice! })).hits);
        expect(sorted(aliceHits)).toEqual(sorted(['book-ar-public#0', 'book-ar-public#1', 'book-ar-public#2', 'book-ar-private#0', 'book-ar-private#7', 'book-en-public#0']));
      });

      it('shows a book made public or private (setBookFields) in the next search', async () => {
        const engine = await make();
        await engine.putPages(viewCorpus);
        await engine.setBookFields(enPrivate.bookTextId, { ...enPrivate, visibility: 'public' });
        expect(await totalsByView(engine)).toEqual({ anonymous: 8, alice: 10, bob: 8, carol: 8, staff: 10 });
        await engine.setBookFields(enPrivate.bookTextId, enPrivate);
        await engine.setBookFields(arPublic.bookTextId, { ...arPublic, visibility: 'private' });
        expect(await totalsByView(engine)).toEqual({ anonymous: 1, alice: 6, bob: 5, carol: 1, staff: 10 });
      });

      it('follows a book to its new owner and language (setBookFields)', async () => {
        const engine = await make();
        await engine.putPages(viewCorpus);
        await engine.setBookFields(arPrivate.bookTextId, { ...arPrivate, userId: bob, language: 'en' });
        expect(await totalsByView(engine)).toEqual({ anonymous: 4, alice: 4, bob: 10, carol: 4, staff: 10 });
        expect((await engine.search({ ...light, language: 'en' })).total).toBe(7);
        // A book with no pages indexed: nothing to change, no error.
        await engine.setBookFields('book-unknown', arPublic);
        expect(await totalsByView(engine)).toEqual({ anonymous: 4, alice: 4, bob: 10, carol: 4, staff: 10 });
      });

      it('filters by language', async () => {
        const engine = await make();
        await engine.putPages(viewCorpus);
        expect((await engine.search({ ...light, language: 'ar' })).total).toBe(5);
        expect((await engine.search({ ...light, language: 'en' })).total).toBe(5);
        expect((await engine.search({ ...light, language: 'fr' })).total).toBe(0);
        expect((await engine.search({ ...light, language: 'ar', view: views.anonymous! })).total).toBe(3);
        expect((await engine.search({ ...light, language: 'en', view: views.bob! })).total).toBe(5);
      });

      it('searches within one book, still within the view', async () => {
        const engine = await make();
        await engine.putPages(viewCorpus);
        const inBook = (bookTextId: string, view: SearchView) => engine.search({ ...light, bookTextId, view });
        expect(sorted(ids((await inBook(arPrivate.bookTextId, views.staff!)).hits))).toEqual(['book-ar-private#0', 'book-ar-private#7']);
        expect((await inBook(arPrivate.bookTextId, views.alice!)).total).toBe(2);
        expect(await inBook(arPrivate.bookTextId, views.anonymous!)).toEqual({ total: 0, hits: [] });
        expect(await inBook(arPrivate.bookTextId, views.bob!)).toEqual({ total: 0, hits: [] });
        expect((await inBook(arPublic.bookTextId, views.carol!)).total).toBe(3);
        expect(await inBook('book-unknown', views.staff!)).toEqual({ total: 0, hits: [] });
        expect((await engine.search({ ...light, bookTextId: arPublic.bookTextId, language: 'en' })).total).toBe(0);
      });
    });

    describe('writes', () => {
      it('removeBook removes that book’s pages only', async () => {
        const engine = await make();
        await engine.putPages(viewCorpus);
        await engine.removeBook(arPublic.bookTextId);
        expect(await totalsByView(engine)).toEqual({ anonymous: 1, alice: 3, bob: 5, carol: 1, staff: 7 });
        expect((await engine.search(query(['كتاب']))).total).toBe(0);
        await engine.removeBook(arPublic.bookTextId);
        await engine.removeBook('book-unknown');
        expect(await totalsByView(engine)).toEqual({ anonymous: 1, alice: 3, bob: 5, carol: 1, staff: 7 });
        // Indexed again, it is found again with the fields its pages carry.
        await engine.putPages([page({ ...arPublic, visibility: 'private' }, 5, 'نور')]);
        expect(await totalsByView(engine)).toEqual({ anonymous: 1, alice: 4, bob: 5, carol: 1, staff: 8 });
      });

      it('putPages replaces a page: one entry, its old terms gone', async () => {
        const engine = await make();
        await engine.putPages(viewCorpus);
        await engine.putPages([page(arPublic, 0, 'نور جديد'), page(arPublic, 3, 'نور أيضا')]);
        expect(await totalsByView(engine)).toEqual({ anonymous: 5, alice: 7, bob: 9, carol: 5, staff: 11 });
        expect(ids((await engine.search(query(['على']))).hits)).toEqual([]);
        expect(ids((await engine.search(query(['جديد']))).hits)).toEqual(['book-ar-public#0']);
        expect(ids((await engine.search(query(['كتاب']))).hits)).toEqual(['book-ar-public#2']);
        // The same page twice in one call: the last one stays.
        await engine.putPages([page(enPublic, 9, 'first version'), page(enPublic, 9, 'second version')]);
        expect(ids((await engine.search(query(['version']))).hits)).toEqual(['book-en-public#9']);
        expect((await engine.search(query(['first']))).total).toBe(0);
        // An empty page matches nothing and replaces what was there.
        await engine.putPages([page(enPublic, 9, '')]);
        expect((await engine.search(query(['version']))).total).toBe(0);
        await engine.putPages([]);
      });

      it('keeps the newest revision: a page put with a lower pageRev, or book fields with a lower rev, change nothing', async () => {
        const engine = await make();
        const at = (book: Book, rev: number) => ({ ...book, rev });
        await engine.putPages([{ ...page(at(enPublic, 5), 0, 'newer words'), pageRev: 3 }]);
        // The stream's indexer putting what it read before the write path's put: an older page and older fields.
        await engine.putPages([{ ...page(at({ ...enPublic, visibility: 'private' }, 4), 0, 'older words'), pageRev: 2 }]);
        expect(ids((await engine.search(query(['newer'], { view: views.anonymous! }))).hits)).toEqual(['book-en-public#0']);
        expect((await engine.search(query(['older']))).total).toBe(0);
        // Older fields with a newer page: the terms change, the fields stay.
        await engine.putPages([{ ...page(at({ ...enPublic, visibility: 'private' }, 4), 0, 'newest words'), pageRev: 4 }]);
        expect(ids((await engine.search(query(['newest'], { view: views.anonymous! }))).hits)).toEqual(['book-en-public#0']);
        // Newer fields with an older page: the fields change, the terms stay.
        await engine.putPages([{ ...page(at({ ...enPublic, visibility: 'private' }, 6), 0, 'older words'), pageRev: 1 }]);
        expect((await engine.search(query(['newest'], { view: views.anonymous! }))).total).toBe(0);
        expect((await engine.search(query(['newest']))).total).toBe(1);
        expect((await engine.search(query(['older']))).total).toBe(0);
        // setBookFields: a lower rev changes nothing, an equal or higher one applies.
        await engine.setBookFields(enPublic.bookTextId, at(enPublic, 5));
        expect((await engine.search(query(['newest'], { view: views.anonymous! }))).total).toBe(0);
        await engine.setBookFields(enPublic.bookTextId, at(enPublic, 6));
        expect((await engine.search(query(['newest'], { view: views.anonymous! }))).total).toBe(1);
        await engine.setBookFields(enPublic.bookTextId, at({ ...enPublic, visibility: 'private' }, 7));
        expect((await engine.search(query(['newest'], { view: views.anonymous! }))).total).toBe(0);
        // Pages without revisions (rev 0) are older than any.
        await engine.putPages([page({ ...enPublic }, 0, 'legacy words')]);
        expect((await engine.search(query(['legacy']))).total).toBe(0);
        expect((await engine.search(query(['newest'], { view: views.anonymous! }))).total).toBe(0);
      });

      it('hideBook makes a book private at once, whatever its revision, until its fields are put again', async () => {
        const engine = await make();
        await engine.putPages(viewCorpus.map((p) => ({ ...p, rev: 3 })));
        await engine.hideBook(arPublic.bookTextId);
        expect(await totalsByView(engine)).toEqual({ anonymous: 1, alice: 6, bob: 5, carol: 1, staff: 10 });
        // A stale put (lower rev) does not show it again; the same rev does (the table kept it public).
        await engine.setBookFields(arPublic.bookTextId, { ...arPublic, rev: 2 });
        await engine.putPages([{ ...page({ ...arPublic, rev: 2 }, 3, 'كتاب بلا ضوء') }]);
        expect((await engine.search({ ...light, view: views.anonymous! })).total).toBe(1);
        await engine.setBookFields(arPublic.bookTextId, { ...arPublic, rev: 3 });
        expect(await totalsByView(engine)).toEqual(viewTotals);
        // A book not in the index: nothing, no error.
        await engine.hideBook('book-unknown');
      });

      it('writes a large batch whole, and replaces it whole', async () => {
        const engine = await make();
        const many = (word: string) => Array.from({ length: 1_234 }, (_, n) => page(enPublic, n, `${word} page ${n % 7 === 0 ? 'seventh' : 'other'}`));
        await engine.putPages(many('first'));
        expect((await engine.search(query(['first']))).total).toBe(1_234);
        expect((await engine.search(query(['seventh']))).total).toBe(177);
        await engine.putPages(many('second'));
        expect((await engine.search(query(['first']))).total).toBe(0);
        expect((await engine.search(query(['second', 'seventh'], { limit: 100, offset: 100 }))).hits).toHaveLength(77);
      });

      it('refuses pages that break the index rules, writing none of the call', async () => {
        const engine = await make();
        const good = page(enPublic, 0, 'good');
        const refused: IndexedPage[] = [
          page(enPublic, 1, 'Capital'),
          page(enPublic, 1, 'a-b'),
          { ...page(enPublic, 1, 'x'), exact: [''] },
          { ...page(enPublic, 1, 'x'), stemmed: ['x', 'y'] },
          { ...page(enPublic, 1, 'x'), stemmed: ['σοφός'] }, // final sigma: not case-folded
          { ...page(enPublic, 1, 'x'), exact: ['a'.repeat(65)], stemmed: ['a'] },
          page(enPublic, -1, 'x'),
          page(enPublic, 1.5, 'x'),
          page(enPublic, 100_000, 'x'),
          page({ ...enPublic, visibility: 'hidden' as 'private' }, 1, 'x'),
        ];
        for (const bad of refused) await expect(engine.putPages([good, bad])).rejects.toThrow(RangeError);
        expect((await engine.search(query(['good']))).total).toBe(0);
        // The longest term and the highest page number are accepted.
        await engine.putPages([page(enPublic, 99_999, `${'ب'.repeat(64)} good`)]);
        expect(ids((await engine.search(query(['ب'.repeat(64), 'good'], { mode: 'phrase' }))).hits)).toEqual(['book-en-public#99999']);
      });
    });

    describe('results', () => {
      it('pages through the results: disjoint pages whose union is the whole ordered list', async () => {
        const engine = await make();
        // 23 matching pages of varied scores, and ties, in several books.
        const books = [arPublic, enPublic, arPrivate];
        const pages = Array.from({ length: 30 }, (_, n) => page(books[n % 3]!, n, `${n < 23 ? 'word '.repeat(1 + (n % 4)) : 'none '}filler ${'x '.repeat(n % 5)}`));
        await engine.putPages(pages);
        const all = await engine.search(query(['word'], { limit: 100 }));
        expect(all.total).toBe(23);
        expect(new Set(ids(all.hits)).size).toBe(23);
        for (const limit of [1, 3, 7, 23]) {
          const seen: PageHit[] = [];
          for (let offset = 0; offset < 30; offset += limit) {
            const part = await engine.search(query(['word'], { limit, offset }));
            expect(part.total).toBe(23);
            expect(part.hits.length).toBe(Math.max(0, Math.min(limit, 23 - offset)));
            seen.push(...part.hits);
          }
          expect(seen).toEqual(all.hits);
        }
        expect(await engine.search(query(['word'], { offset: 10_000 }))).toEqual({ total: 23, hits: [] });
      });

      it('breaks score ties by bookTextId, then page number (as numbers)', async () => {
        const engine = await make();
        const same = 'equal pages here';
        const pageOf = (bookTextId: string, n: number) => page({ ...enPublic, bookTextId }, n, same);
        await engine.putPages([pageOf('book-b', 10), pageOf('book-c', 1), pageOf('book-b', 2), pageOf('book-a', 99), pageOf('book-b', 9), pageOf('book-aa', 0)]);
        await engine.putPages([page(enPublic, 0, 'other words only'), page(enPublic, 1, 'more other words')]);
        const expected = ['book-a#99', 'book-aa#0', 'book-b#2', 'book-b#9', 'book-b#10', 'book-c#1'];
        for (const mode of ['phrase', 'all', 'any'] as const) {
          expect(ids((await engine.search(query(['equal', 'pages'], { mode }))).hits)).toEqual(expected);
        }
        expect(ids((await engine.search(query(['equal'], { limit: 2, offset: 2 }))).hits)).toEqual(['book-b#2', 'book-b#9']);
      });

      it('ranks a page with the term five times above one with it once (same length)', async () => {
        const engine = await make();
        await engine.putPages([
          page({ ...enPublic, bookTextId: 'book-a' }, 0, 'salt a b c d e f g h i'),
          page({ ...enPublic, bookTextId: 'book-z' }, 9, 'salt salt salt salt salt a b c d e'),
          page(enPublic, 1, 'a b c d e f g h i j'),
          page(enPublic, 2, 'a b c d e f g h i j'),
          page(enPublic, 3, 'a b c d e f g h i j'),
        ]);
        for (const field of ['exact', 'stemmed'] as const) {
          expect(ids((await engine.search(query(['salt'], { field }))).hits)).toEqual(['book-z#9', 'book-a#0']);
          expect(ids((await engine.search(query(['salt', 'zzz'], { field, mode: 'any' }))).hits)).toEqual(['book-z#9', 'book-a#0']);
        }
      });

      it('a term that is in no page: total 0, no hits', async () => {
        const engine = await make();
        await engine.putPages(viewCorpus);
        for (const mode of ['phrase', 'all', 'any'] as const) {
          expect(await engine.search(query(['غائب'], { mode }))).toEqual({ total: 0, hits: [] });
          expect(await engine.search(query(['غائب', 'zzz'], { mode, field: 'stemmed' }))).toEqual({ total: 0, hits: [] });
        }
        expect((await engine.search(query(['نور', 'غائب'], { mode: 'all' }))).total).toBe(0);
        expect((await engine.search(query(['نور', 'غائب'], { mode: 'any' }))).total).toBe(10);
      });

      it('refuses paging out of range', async () => {
        const engine = await make();
        for (const paging of [{ limit: 0 }, { limit: 101 }, { limit: 1.5 }, { offset: -1 }, { offset: 10_001 }, { offset: 0.5 }]) {
          await expect(engine.search(query(['a'], paging))).rejects.toThrow(RangeError);
        }
      });
    });

    describe('phrase hits first', () => {
      /**
       * `ancient manuscripts` (stems `anci manu`) as a phrase on z#5 (once, on a long page) and y#3
       * (twice); both words on other pages, apart, in reverse order, or as other words of the same
       * stems (a#1 repeats them, on a short page: the best BM25 by far), one of them on e#6; filler
       * pages keep the words' idf positive in every engine.
       */
      const at = (bookTextId: string, n: number, text: string) => page({ ...enPublic, bookTextId }, n, text);
      const corpus = [
        at('book-z', 5, 'the keeper of ancient manuscripts sat here alone with his lamp and his long patient work of copying them'),
        at('book-y', 3, 'ancient manuscripts and more ancient manuscripts in the hall of the old library'),
        at('book-a', 1, 'manuscripts manuscripts manuscripts ancient ancient ancient'),
        at('book-b', 2, 'ancient stones and old manuscripts'),
        at('book-c', 0, 'ancients manuscript in a modern hand today'),
        at('book-d', 4, 'manuscript of the ancient world'),
        at('book-e', 6, 'an ancient tale'),
        ...Array.from({ length: 16 }, (_, n) => at('book-f', n, `filler page ${n} with other words only`)),
      ];
      const words = ['ancient', 'manuscripts'];
      const stems = (mode: MatchMode, rest: Partial<PageQuery> = {}) => query([...new Set(words.map(stem))], { field: 'stemmed', mode, ...rest });
      const first = (mode: MatchMode, rest: Partial<PageQuery> = {}) => ({ ...stems(mode, rest), phraseFirst: words });

      it('ranks the pages holding the words as a phrase before a page with far better BM25, each group by BM25; totals unchanged', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        for (const mode of ['all', 'any'] as const) {
          const plain = await engine.search(stems(mode));
          // Without it, the page repeating the words comes first.
          expect(ids(plain.hits)[0], mode).toBe('book-a#1');
          const found = await engine.search(first(mode));
          expect(found.total, mode).toBe(plain.total);
          expect(ids(found.hits).slice(0, 2), mode).toEqual(['book-y#3', 'book-z#5']);
          // The others as without it, in the same order: the group is ranked as before.
          expect(ids(found.hits).slice(2), mode).toEqual(ids(plain.hits).filter((id) => id !== 'book-y#3' && id !== 'book-z#5'));
        }
        expect((await engine.search(first('all'))).total).toBe(6);
        expect((await engine.search(first('any'))).total).toBe(7);
      });

      it('pages through the phrase hits and the others: each window a slice of the whole list', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        const whole = await engine.search(first('any'));
        expect(ids(whole.hits).slice(0, 3)).toEqual(['book-y#3', 'book-z#5', 'book-a#1']);
        for (const [offset, limit] of [[0, 1], [1, 1], [1, 2], [2, 3], [5, 5]] as const) {
          expect(await engine.search(first('any', { offset, limit }))).toEqual({ total: whole.total, hits: whole.hits.slice(offset, offset + limit) });
        }
      });

      it('within one book, and only among the pages the view may see', async () => {
        const engine = await make();
        await engine.putPages([
          ...corpus,
          page(enPrivate, 7, 'ancient manuscripts once'),
          page(enPrivate, 1, 'manuscripts ancient manuscripts and some other words'), // `ancient manuscripts` in the middle
          page(enPrivate, 2, 'ancient ancient manuscript manuscripts manuscripts'),
          page(enPrivate, 3, 'manuscripts ancient'),
        ]);
        const inBook = await engine.search(first('all', { bookTextId: enPrivate.bookTextId }));
        expect(inBook.total).toBe(4);
        expect(ids(inBook.hits).slice(0, 2).sort()).toEqual(['book-en-private#1', 'book-en-private#7']);
        const plainInBook = await engine.search(stems('all', { bookTextId: enPrivate.bookTextId }));
        expect(ids(plainInBook.hits)[0]).toBe('book-en-private#2');
        // Anonymous readers: the private book's pages neither found nor counted.
        const anonymous = await engine.search(first('all', { view: views.anonymous! }));
        expect(anonymous.total).toBe(6);
        expect(ids(anonymous.hits).slice(0, 2)).toEqual(['book-y#3', 'book-z#5']);
        expect((await engine.search(first('all', { view: views.staff! }))).total).toBe(10);
      });

      it('matches the phrase on the unstemmed terms, in order: other words of the same stems or the words reversed are no phrase hit', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        const reversed = await engine.search({ ...stems('all'), phraseFirst: ['manuscripts', 'ancient'] });
        expect(ids(reversed.hits)[0]).toBe('book-a#1'); // `manuscripts ancient` is on a#1
        expect(reversed.hits.slice(1)).toEqual((await engine.search(stems('all'))).hits.filter((h) => h.bookTextId !== 'book-a'));
        const stemmedForms = await engine.search({ ...stems('all'), phraseFirst: ['ancients', 'manuscript'] });
        expect(ids(stemmedForms.hits)[0]).toBe('book-c#0');
        expect(await engine.search({ ...stems('all'), phraseFirst: ['anci', 'manu'] })).toEqual(await engine.search(stems('all')));
      });

      it('a phrase of terms that are no index terms, or on no page, changes nothing; fewer than 2 or more than 32 terms are refused', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        const plain = await engine.search(stems('all'));
        for (const phrase of [['ancient', '"'], ['ancient', 'manuscripts*'], ['NEAR', 'ancient'], ['ancient', 'zzz'], ['ancient', 'manuscripts', 'zzz']]) {
          expect(await engine.search({ ...stems('all'), phraseFirst: phrase }), phrase.join(' ')).toEqual(plain);
        }
        for (const phrase of [[], ['ancient'], Array.from({ length: 33 }, () => 'ancient')]) {
          await expect(engine.search({ ...stems('all'), phraseFirst: phrase })).rejects.toThrow(RangeError);
        }
        expect((await engine.search({ ...stems('all'), phraseFirst: Array.from({ length: 32 }, () => 'ancient') })).total).toBe(plain.total);
      });
    });

    describe('forgiving queries', () => {
      /**
       * `sun moon star` typed; `mood` is a variant of `moon`. Held: s#0 all three as typed (and the
       * phrase); s#1 two of three, repeated on a short page (the best BM25 by far); s#2 all three, moon
       * as mood, in order (the near phrase `sun mood star`); s#3 all three as typed but apart; s#4 sun
       * alone; s#5 mood alone; s#6 none. Filler keeps the terms' idf positive in every engine.
       */
      const at = (n: number, text: string) => page({ ...enPublic, bookTextId: 's' }, n, text);
      const corpus = [
        at(0, 'the sun moon star of the old song was sung at night by many'),
        at(1, 'sun moon sun moon sun moon'),
        at(2, 'a sun mood star in the long evening of the year and more'),
        at(3, 'star and then the sun and at last the moon came up over the hill'),
        at(4, 'sun only here'),
        at(5, 'mood only here'),
        at(6, 'rain and snow'),
        ...Array.from({ length: 12 }, (_, n) => at(10 + n, `filler page ${n} with other words`)),
      ];
      const forgiving = (minimumWords: number, rest: Partial<PageQuery> = {}, nearPhrases: string[][] = [['sun', 'mood', 'star']]): PageQuery =>
        query(['sun', 'moon', 'star'], {
          field: 'stemmed',
          forgiving: { words: [['sun'], ['moon', 'mood'], ['star']], minimumWords, nearPhrases },
          phraseFirst: ['sun', 'moon', 'star'],
          ...rest,
        });

      it('matches the pages holding at least minimumWords of the words, a word by any of its alternatives, and counts them exactly', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        const found = async (q: PageQuery) => sorted(ids((await engine.search(q)).hits));
        expect(await found(forgiving(3))).toEqual(['s#0', 's#2', 's#3']);
        expect(await found(forgiving(2))).toEqual(['s#0', 's#1', 's#2', 's#3']);
        expect(await found(forgiving(1))).toEqual(['s#0', 's#1', 's#2', 's#3', 's#4', 's#5']);
        expect((await engine.search(forgiving(2))).total).toBe(4);
        // Any mode reads the same groups.
        expect(await found(forgiving(1, { mode: 'any' }))).toEqual(await found(forgiving(1)));
      });

      it('ranks the phrase hit, then near-phrase hits, then every word as typed, then every word, then the rest, whatever BM25 says', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        expect(ids((await engine.search(forgiving(2))).hits)).toEqual(['s#0', 's#2', 's#3', 's#1']);
        // Without the phrase ranked first, s#0 still leads the pages holding every word as typed.
        expect(ids((await engine.search(forgiving(2, { phraseFirst: undefined }))).hits)).toEqual(['s#2', 's#0', 's#3', 's#1']);
        // Without near phrases, every word as typed (s#0, s#3, by BM25) before every word (s#2), before two of three.
        const plain = ids((await engine.search(forgiving(2, { phraseFirst: undefined }, []))).hits);
        expect(sorted(plain.slice(0, 2))).toEqual(['s#0', 's#3']);
        expect(plain.slice(2)).toEqual(['s#2', 's#1']);
        // A near phrase may be one term (two words run together).
        await engine.putPages([at(7, 'sunmoon star rising')]);
        const runTogether = await engine.search(query(['sun', 'moon'], { field: 'stemmed', forgiving: { words: [['sun', 'sunm'], ['moon', 'sunm']], minimumWords: 2, nearPhrases: [['sunmoon']] } }));
        expect(ids(runTogether.hits)[0]).toBe('s#7');
      });

      it('ranks the phrase hits by the typed words’ BM25 and the pages holding every word by every alternative’s', async () => {
        const engine = await make();
        await engine.putPages([
          ...corpus,
          // Phrase hits: s#20 holds the variant mood four times, s#21 the typed sun twice.
          at(20, 'sun moon star mood mood mood mood ash elm oak'),
          at(21, 'sun moon star sun ash elm oak fir yew ivy'),
          // Every word, moon as mood: s#22 mood thrice, s#23 sun twice.
          at(22, 'star mood sun mood mood'),
          at(23, 'star mood sun sun fir'),
        ]);
        const order = ids((await engine.search(forgiving(2, { limit: 20 }))).hits);
        const before = (x: string, y: string) => expect(order.indexOf(x), order.join()).toBeLessThan(order.indexOf(y));
        // A phrase hit is what was typed: its page's variants say nothing of it.
        before('s#21', 's#20');
        before('s#20', 's#22');
        // A page that holds a word only as a variant ranks by all it holds.
        before('s#22', 's#23');
      });

      it('pages through the groups: each window a slice of the whole list', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        const whole = await engine.search(forgiving(1));
        expect(whole.total).toBe(6);
        for (const [offset, limit] of [[0, 1], [1, 2], [2, 3], [4, 2], [5, 5], [6, 1]] as const) {
          expect(await engine.search(forgiving(1, { offset, limit }))).toEqual({ total: whole.total, hits: whole.hits.slice(offset, offset + limit) });
        }
      });

      it('only among the pages the view may see, and within one book', async () => {
        const engine = await make();
        await engine.putPages([...corpus, page(enPrivate, 0, 'sun moon star'), page(enPrivate, 1, 'sun mood')]);
        expect((await engine.search(forgiving(2, { view: views.anonymous! }))).total).toBe(4);
        expect((await engine.search(forgiving(2, { view: views.bob! }))).total).toBe(6);
        const inBook = await engine.search(forgiving(2, { bookTextId: enPrivate.bookTextId }));
        expect(ids(inBook.hits)).toEqual(['book-en-private#0', 'book-en-private#1']);
      });

      it('leaves out alternatives that are no index terms; refuses a query out of contract', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        const hostile = query(['sun', 'moon', 'star'], { field: 'stemmed', forgiving: { words: [['sun', '"', 'a*'], ['moon', 'mood', 'NEAR(a b)'], ['star']], minimumWords: 3, nearPhrases: [['sun', '"']] } });
        expect(sorted(ids((await engine.search(hostile)).hits))).toEqual(['s#0', 's#2', 's#3']);
        const bad: Partial<PageQuery>[] = [
          { mode: 'phrase' },
          { field: 'exact' },
          { forgiving: { words: [['sun'], ['moon'], ['stars']], minimumWords: 1, nearPhrases: [] } },
          { forgiving: { words: [['sun'], ['moon']], minimumWords: 1, nearPhrases: [] } },
          { forgiving: { words: [['sun'], ['moon'], ['star']], minimumWords: 0, nearPhrases: [] } },
          { forgiving: { words: [['sun'], ['moon'], ['star']], minimumWords: 4, nearPhrases: [] } },
          { forgiving: { words: [['sun'], ['moon', 'a', 'b', 'c', 'd', 'e', 'f', 'g'], ['star']], minimumWords: 1, nearPhrases: [] } },
          { forgiving: { words: [['sun'], ['moon'], ['star']], minimumWords: 1, nearPhrases: Array.from({ length: 49 }, () => ['sun', 'moon']) } },
          { forgiving: { words: [['sun'], ['moon'], ['star']], minimumWords: 1, nearPhrases: [[]] } },
        ];
        for (const rest of bad) await expect(engine.search(forgiving(1, rest)), JSON.stringify(rest)).rejects.toThrow(RangeError);
      });

      it('files every term of three to 24 characters with a letter, of every page put, and looks them up by key', async () => {
        const engine = await make();
        await engine.putPages([...corpus, page(enPrivate, 3, 'moan moons mon 1234 abc'), page(enPublic, 9, `${'m'.repeat(25)} x`)]);
        await engine.removeBook(enPrivate.bookTextId);
        // Each term filed under its keys (ocr-variants.ts): `moon`'s skeleton and its one-letter-out forms,
        // the private book's terms too, after the book is gone.
        const similar = await engine.similarTerms(variantKeys('moon'));
        expect(similar).toEqual(expect.arrayContaining(['moan', 'mon', 'mood', 'moon', 'moons']));
        expect(similar).not.toContain('sun');
        expect(similar).not.toContain('more');
        expect(similar).toEqual([...similar].sort(utf8Order));
        expect(await engine.similarTerms(['moo'])).toEqual(['mood', 'moon']);
        expect(await engine.similarTerms(['abc', 'mon'])).toEqual(['abc', 'moan', 'mon', 'moon']);
        expect(await engine.similarTerms(['zzzz', '"', 'a*'])).toEqual([]);
        expect(await engine.similarTerms([])).toEqual([]);
        expect(await engine.similarTerms(['1234'])).toEqual([]);
        expect(await engine.similarTerms(['m'.repeat(24)])).toEqual([]);
        await expect(engine.similarTerms(['m'.repeat(25)])).rejects.toThrow(RangeError);
        await expect(engine.similarTerms(Array.from({ length: 2_049 }, (_, i) => `k${i}`))).rejects.toThrow(RangeError);
      });

      it('matches and ranks as a brute force says, and answers similar terms as the keys say, for random corpora (brute force)', async () => {
        await fc.assert(
          fc.asyncProperty(randomHistory, fc.array(randomForgiving, { minLength: 1, maxLength: 4 }), async (history, queries) => {
            const engine = await make();
            const { model, filed } = await replay(engine, history);
            for (const q of queries) {
              const f = q.forgiving!;
              const holds = (p: IndexedPage, alternatives: string[]) => alternatives.some((t) => p.stemmed.includes(t));
              const expected = [...model.values()]
                .filter((p) => inView(p, q) && f.words.filter((alternatives) => holds(p, alternatives)).length >= f.minimumWords)
                .map((p) => `${p.bookTextId}#${p.pageNumber}`);
              const result = await engine.search(q);
              expect(result.total).toBe(expected.length);
              expect(sorted(ids(result.hits))).toEqual(sorted(expected));
              const rank = (h: PageHit) => {
                const p = model.get(`${h.bookTextId}#${h.pageNumber}`)!;
                const groups = [holdsPhrase(p.exact, q.phraseFirst!), f.nearPhrases.some((phrase) => holdsPhrase(p.exact, phrase)), q.terms.every((t) => p.stemmed.includes(t)), f.words.every((a) => holds(p, a))];
                // The first group the page is in: pages rank by it, then by BM25.
                return groups.includes(true) ? groups.indexOf(true) : groups.length;
              };
              const ranks = result.hits.map(rank);
              expect(ranks).toEqual([...ranks].sort((x, y) => x - y));
              const window = await engine.search({ ...q, offset: 1, limit: 2 });
              expect(window).toEqual({ total: expected.length, hits: result.hits.slice(1, 3) });
            }
            const keys = [...new Set(words.flatMap(variantKeys))];
            expect(await engine.similarTerms(keys)).toEqual([...filed].filter((t) => variantKeys(t).some((k) => keys.includes(k))).sort(utf8Order));
          }),
          { numRuns: 100 },
        );
      });
    });

    describe('hostile terms', () => {
      const corpus = [
        page(enPublic, 0, 'a b near or and not'),
        page(enPublic, 1, 'a near b'),
        page(enPublic, 2, 'ab abc exact stemmed'),
        page(enPublic, 3, 'b or a'),
      ];

      it('are matched literally and never throw: no index term is in any page', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        const onlyA = await engine.search(query(['a'], { mode: 'any' }));
        expect(onlyA.total).toBe(3);
        for (const term of hostileTerms) {
          for (const field of ['exact', 'stemmed'] as const) {
            for (const mode of ['phrase', 'all', 'any'] as const) {
              expect(await engine.search(query([term], { mode, field })), `${mode} ${field} ${JSON.stringify(term)}`).toEqual({ total: 0, hits: [] });
              expect(await engine.search(query(['a', term], { mode, field })), `${mode} ${field} a ${JSON.stringify(term)}`).toEqual(
                mode === 'any' ? await engine.search(query(['a'], { mode, field })) : { total: 0, hits: [] },
              );
            }
          }
        }
      });

      it('find the pages holding query words of FTS5 or Lucene as plain words', async () => {
        const engine = await make();
        await engine.putPages(corpus);
        const found = async (terms: string[], mode: MatchMode = 'all') => sorted(ids((await engine.search(query(terms, { mode }))).hits));
        expect(await found(['near'])).toEqual(['book-en-public#0', 'book-en-public#1']);
        expect(await found(['or'])).toEqual(['book-en-public#0', 'book-en-public#3']);
        expect(await found(['and', 'not'], 'phrase')).toEqual(['book-en-public#0']);
        expect(await found(['a', 'near', 'b'], 'phrase')).toEqual(['book-en-public#1']);
        expect(await found(['b', 'or', 'a'], 'phrase')).toEqual(['book-en-public#3']);
        expect(await found(['a', 'or', 'b'], 'phrase')).toEqual([]);
        expect(await found(['exact'])).toEqual(['book-en-public#2']);
        // No prefix matching.
        expect(await found(['ab'])).toEqual(['book-en-public#2']);
        expect(await found(['abcd'])).toEqual([]);
      });
    });

    it('gives exact totals and hits for random corpora and queries (brute force)', async () => {
      await fc.assert(
        fc.asyncProperty(randomHistory, fc.array(randomQuery, { minLength: 1, maxLength: 6 }), async (history, queries) => {
          const engine = await make();
          const { model } = await replay(engine, history);
          for (const q of queries) {
            const expected = bruteForce([...model.values()], q);
            const result = await engine.search(q);
            expect(result.total).toBe(expected.length);
            expect(sorted(ids(result.hits))).toEqual(sorted(expected));
            // Phrase hits of phraseFirst before every other hit.
            const phraseHits = result.hits.map((h) => (q.phraseFirst ? holdsPhrase(model.get(`${h.bookTextId}#${h.pageNumber}`)!.exact, q.phraseFirst) : false));
            expect(phraseHits).toEqual([...phraseHits].sort((x, y) => Number(y) - Number(x)));
            // A window of the list is that slice of it.
            const window = await engine.search({ ...q, offset: 1, limit: 2 });
            expect(window).toEqual({ total: expected.length, hits: result.hits.slice(1, 3) });
          }
        }),
        { numRuns: 150 },
      );
    });

    describeListing(make);
  });
}

/** Runs a history on an engine and on a model of it: the pages each key holds, and every filed term ever put. */
async function replay(engine: SearchEngine, history: Step[]) {
  const model = new Map<string, IndexedPage>();
  const filed = new Set<string>();
  for (const step of history) {
    if (step.kind === 'put') {
      await engine.putPages(step.pages);
      for (const p of step.pages) {
        model.set(`${p.bookTextId}#${p.pageNumber}`, p);
        for (const t of p.exact) if (isFiled(t)) filed.add(t);
      }
    } else if (step.kind === 'fields') {
      await engine.setBookFields(step.bookTextId, step.fields);
      for (const [key, p] of model) if (p.bookTextId === step.bookTextId) model.set(key, { ...p, ...step.fields });
    } else {
      await engine.removeBook(step.bookTextId);
      for (const [key, p] of model) if (p.bookTextId === step.bookTextId) model.delete(key);
    }
  }
  return { model, filed };
}

/** Whether `terms` hold `phrase` consecutively, in order. */
const holdsPhrase = (terms: string[], phrase: string[]): boolean => terms.some((_, start) => phrase.every((t, i) => terms[start + i] === t));

/** Whether the page is among those `q` may find: its book, language and view. */
function inView(p: IndexedPage, q: PageQuery): boolean {
  if (q.bookTextId !== undefined && p.bookTextId !== q.bookTextId) return false;
  if (q.language !== undefined && p.language !== q.language) return false;
  if (q.view.kind === 'public' && p.visibility !== 'public') return false;
  if (q.view.kind === 'publicAndOwn' && p.visibility !== 'public' && p.userId !== q.view.ownerId) return false;
  return true;
}

const utf8Order = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The pages matching `q`, by scanning: written apart from any engine. */
function bruteForce(pages: IndexedPage[], q: PageQuery): string[] {
  return pages
    .filter((p) => {
      if (!inView(p, q)) return false;
      const terms = p[q.field];
      if (q.mode === 'any') return q.terms.some((t) => terms.includes(t));
      if (q.mode === 'all') return q.terms.every((t) => terms.includes(t));
      return holdsPhrase(terms, q.terms);
    })
    .map((p) => `${p.bookTextId}#${p.pageNumber}`);
}

// Random corpora: few words, so queries hit often; stems that merge words; books that change hands.
const words = ['a', 'b', 'c', 'ab', 'abcde', 'abcdf', 'نور', 'كتاب', 'كتابة', 'الْكِتَابُ', '12', '٣'];
const bookIds = ['b0', 'b1', 'b2', 'b3'];
const users = ['u0', 'u1', 'u2'];
const languages = ['ar', 'en'];
const randomFields: fc.Arbitrary<IndexedBookFields> = fc.record({
  userId: fc.constantFrom(...users),
  visibility: fc.constantFrom('public' as const, 'private' as const),
  status: fc.constantFrom('completed', 'processing'),
  language: fc.constantFrom(...languages),
});
export type Step =
  | { kind: 'put'; pages: IndexedPage[] }
  | { kind: 'fields'; bookTextId: string; fields: IndexedBookFields }
  | { kind: 'remove'; bookTextId: string };
/** Steps, each page carrying its book's fields as they are at that step (engine.ts). */
export const randomHistory: fc.Arbitrary<Step[]> = fc
  .record({
    initial: fc.array(randomFields, { minLength: bookIds.length, maxLength: bookIds.length }),
    steps: fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.record({ kind: fc.constant('put' as const), book: fc.nat(bookIds.length - 1), pages: fc.array(fc.record({ pageNumber: fc.oneof(fc.nat(12), fc.constant(99_999)), terms: fc.array(fc.constantFrom(...words), { maxLength: 9 }) }), { minLength: 1, maxLength: 6 }) }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('fields' as const), book: fc.nat(bookIds.length - 1), fields: randomFields }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), book: fc.nat(bookIds.length - 1) }) },
      ),
      { minLength: 1, maxLength: 10 },
    ),
  })
  .map(({ initial, steps }) => {
    const current = [...initial];
    return steps.map((step): Step => {
      const bookTextId = bookIds[step.book]!;
      if (step.kind === 'fields') {
        current[step.book] = step.fields;
        return { kind: 'fields', bookTextId, fields: step.fields };
      }
      if (step.kind === 'remove') return { kind: 'remove', bookTextId };
      const fields = current[step.book]!;
      return { kind: 'put', pages: step.pages.map((p) => ({ ...fields, bookTextId, pageNumber: p.pageNumber, exact: p.terms, stemmed: p.terms.map(stem) })) };
    });
  });
const randomQuery: fc.Arbitrary<PageQuery> = fc.record(
  {
    mode: fc.constantFrom('phrase' as const, 'all' as const, 'any' as const),
    field: fc.constantFrom('exact' as const, 'stemmed' as const),
    terms: fc.array(fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...words, ...words.map(stem)) }, { weight: 1, arbitrary: fc.constantFrom(...hostileTerms, 'zzz') }), { minLength: 1, maxLength: 3 }),
    view: fc.oneof(fc.constant<SearchView>({ kind: 'public' }), fc.constant<SearchView>({ kind: 'all' }), fc.constantFrom(...users).map((ownerId): SearchView => ({ kind: 'publicAndOwn', ownerId }))),
    phraseFirst: fc.array(fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...words) }, { weight: 1, arbitrary: fc.constantFrom(...hostileTerms) }), { minLength: 2, maxLength: 3 }),
    language: fc.constantFrom(...languages),
    bookTextId: fc.constantFrom(...bookIds, 'b-none'),
    limit: fc.constant(100),
    offset: fc.constant(0),
  },
  { requiredKeys: ['mode', 'field', 'terms', 'view', 'limit', 'offset'] },
);

/** Forgiving queries over the random corpora: 1 to 3 distinct stems, each with 0 to 2 other stems as alternatives. */
const stems = [...new Set(words.map(stem))];
export const randomForgiving: fc.Arbitrary<PageQuery> = fc
  .record({
    typed: fc.uniqueArray(fc.constantFrom(...stems), { minLength: 1, maxLength: 3 }),
    others: fc.array(fc.array(fc.constantFrom(...stems, '"'), { maxLength: 2 }), { minLength: 3, maxLength: 3 }),
    minimum: fc.nat(2),
    nearPhrases: fc.array(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }), { maxLength: 3 }),
    phraseFirst: fc.array(fc.constantFrom(...words), { minLength: 2, maxLength: 3 }),
    mode: fc.constantFrom('all' as const, 'any' as const),
    view: fc.oneof(fc.constant<SearchView>({ kind: 'public' }), fc.constant<SearchView>({ kind: 'all' }), fc.constantFrom(...users).map((ownerId): SearchView => ({ kind: 'publicAndOwn', ownerId }))),
    bookTextId: fc.option(fc.constantFrom(...bookIds), { nil: undefined }),
  })
  .map(({ typed, others, minimum, nearPhrases, phraseFirst, mode, view, bookTextId }) => ({
    mode,
    field: 'stemmed' as const,
    terms: typed,
    phraseFirst,
    forgiving: {
      words: typed.map((term, i) => [term, ...others[i]!.filter((t) => t !== term)]),
      minimumWords: Math.min(typed.length, minimum + 1),
      nearPhrases,
    },
    view,
    ...(bookTextId === undefined ? {} : { bookTextId }),
    limit: 100,
    offset: 0,
  }));
