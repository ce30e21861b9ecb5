import { beforeEach, describe, expect, it } from 'vitest';
import type { Caller } from '../../../lib/auth/caller.ts';
import type { User } from '../../../lib/auth/users.ts';
import type { BookText } from '../../../lib/ocr/book-text.ts';
import { newPage } from '../../../lib/ocr/pages/page.ts';
import { indexedFields, indexedPage } from '../../../lib/search/indexing.ts';
import { matchOf, planSearch, maxQueryLength, maxQueryWords, queryRequired, queryTooLong, queryTooManyWords, queryWithoutWords } from '../../../lib/search/query.ts';
import { variantKeys } from '../../../lib/search/ocr-variants.ts';
import { searchBookText, searchCatalogue, type SearchDeps } from '../../../lib/search/search.ts';
import { fakeWorld, type FakeWorld } from '../../support/fakes/index.ts';
import { FakeSearchEngine } from '../../support/fakes/search-engine.ts';
import { storedJob, storedUser, as } from './fixtures.ts';

/** Search (docs/interface.md, "Search"): what is found, who may see it, and the snippets. */
let world: FakeWorld;
let engine: FakeSearchEngine;
let deps: SearchDeps;
let owner: User;
let other: User;
let editor: User;
let open: BookText;
let closed: BookText;
const at = '2026-03-01T00:00:00.000Z';

const page = { limit: 20, offset: 0 };

/** Stores the pages and indexes them as the indexer does (lib/search/indexing.ts). */
async function withPages(bookText: BookText, texts: string[]) {
  const pages = texts.map((text, i) => newPage(bookText.bookTextId, i + 1, { text }, at));
  await world.ocr.putPages(pages);
  await engine.putPages(pages.map((p) => indexedPage(p, indexedFields(bookText))));
}

beforeEach(async () => {
  world = fakeWorld({ now: '2026-03-15T12:00:00.000Z' });
  engine = new FakeSearchEngine();
  deps = { engine, bookTexts: world.ocr, pages: world.ocr };
  owner = await storedUser(world);
  other = await storedUser(world);
  editor = await storedUser(world, 'editor');
  ({ book: open } = await storedJob(world, owner.userId, { status: 'completed', visibility: 'public', language: 'ar' }));
  ({ book: closed } = await storedJob(world, owner.userId, { status: 'completed', visibility: 'private', language: 'ar' }));
  await withPages(open, ['إِنَّمَا الأَعْمَالُ بِالنِّيَّاتِ، وَإِنَّمَا لِكُلِّ امْرِئٍ مَا نَوَى', 'بُنِيَ الإِسْلامُ عَلَى خَمْسٍ']);
  await withPages(closed, ['الأعمال الصالحة في السر', 'صفحة أخرى']);
});

describe('searching the catalogue', () => {
  it('finds a word written without its diacritics, with other alef forms, by its stem', async () => {
    const found = await searchCatalogue(deps, as(), { q: 'الاعمال', ...page });
    expect(found).toMatchObject({ success: true, total: 1, hits: [{ bookTextId: open.bookTextId, pageNumber: 1, language: 'ar' }] });
    // بالنيات and النية share the stem نيه/ني: the default search is by stems.
    expect((await searchCatalogue(deps, as(), { q: 'النيات', ...page })).hits.map((h) => h.pageNumber)).toEqual([1]);
  });

  it('marks the matched words in a snippet of the stored page, escaped', async () => {
    const [hit] = (await searchCatalogue(deps, as(), { q: 'الإسلام', ...page })).hits;
    expect(hit?.snippet).toBe('بُنِيَ <mark>الإِسْلامُ</mark> عَلَى خَمْسٍ');
  });

  it('follows the visibility of GET /ocr/books: anonymous and others public, the owner and staff their private books too', async () => {
    const books = async (caller: Caller) => (await searchCatalogue(deps, caller, { q: 'الأعمال', ...page })).hits.map((h) => h.bookTextId).sort();
    expect(await books(as())).toEqual([open.bookTextId]);
    expect(await books(as(other))).toEqual([open.bookTextId]);
    expect(await books(as(owner))).toEqual([open.bookTextId, closed.bookTextId].sort());
    expect(await books(as(editor))).toEqual([open.bookTextId, closed.bookTextId].sort());
  });

  it('never shows a book made private to others, though the index has not caught up', async () => {
    await world.ocr.edit((await world.ocr.get(open.bookTextId))!, { at, visibility: 'private' });
    const found = await searchCatalogue(deps, as(other), { q: 'الأعمال', ...page });
    expect(found).toMatchObject({ total: 0, hits: [] });
    expect((await searchCatalogue(deps, as(owner), { q: 'الأعمال', ...page })).hits).toHaveLength(2);
  });

  it('distinguishes phrase, all-words and any-word', async () => {
    const pages = async (q: string, mode: 'all' | 'any' | 'phrase') => (await searchCatalogue(deps, as(owner), { q, mode, ...page })).hits.map((h) => `${h.bookTextId === open.bookTextId ? 'open' : 'closed'}:${h.pageNumber}`).sort();
    // Of two words a page may lack one (issue 32), after the pages holding both: all-words and any-word find the same.
    const ranked = async (q: string, mode: 'all' | 'any') => (await searchCatalogue(deps, as(owner), { q, mode, ...page })).hits.map((h) => `${h.bookTextId === open.bookTextId ? 'open' : 'closed'}:${h.pageNumber}`);
    expect(await ranked('الأعمال السر', 'all')).toEqual(['closed:1', 'open:1']);
    expect(await ranked('الأعمال السر', 'any')).toEqual(['closed:1', 'open:1']);
    expect(await pages('الأعمال السر الصالحة', 'all')).toEqual(['closed:1']);
    expect(await pages('الاعمال الصالحه', 'phrase')).toEqual(['closed:1']);
    expect(await pages('الصالحه الاعمال', 'phrase')).toEqual([]);
    // Wholly quoted: a phrase whatever the mode.
    expect(await pages('"الصالحه الاعمال"', 'any')).toEqual([]);
  });

  it('ranks first the pages holding the words as typed, in order, though others hold them more often', async () => {
    const { book } = await storedJob(world, owner.userId, { status: 'completed', visibility: 'public', language: 'ar' });
    await withPages(book, ['العِلْمِ والعلم طلب وطلب', 'ثم خرج في طَلَبِ العِلْمِ إلى بغداد وأقام بها زمنا طويلا يكتب ويقرأ', 'طلب المال']);
    const pages = async (q: string, mode: 'all' | 'any') => (await searchCatalogue(deps, as(), { q, mode, ...page })).hits.map((h) => h.pageNumber);
    // By BM25 alone the first page comes first: both stems twice, on a short page.
    const plain = await engine.search({ ...matchOf('طلب العلم'), phraseFirst: undefined, view: { kind: 'all' }, limit: 20, offset: 0 });
    expect(plain.hits.map((h) => h.pageNumber)).toEqual([1, 2]);
    // Then the page lacking one of the two words (issue 32).
    expect(await pages('طلب العلم', 'all')).toEqual([2, 1, 3]);
    expect(await pages('طلب العلم', 'any')).toEqual([2, 1, 3]);
    expect((await searchCatalogue(deps, as(), { q: 'طلب العلم', ...page })).total).toBe(3);
    // Reversed, the words are no phrase on any page: BM25 alone among those holding both.
    expect(await pages('العلم طلب', 'all')).toEqual([1, 2, 3]);
  });

  it('filters by language', async () => {
    expect((await searchCatalogue(deps, as(), { q: 'الأعمال', language: 'en', ...page })).total).toBe(0);
    expect((await searchCatalogue(deps, as(), { q: 'الأعمال', language: 'ar', ...page })).total).toBe(1);
  });

  it('refuses a query it cannot search, in its own words', async () => {
    const refused = (q: string | undefined) => searchCatalogue(deps, as(), { q, ...page });
    await expect(refused(undefined)).rejects.toMatchObject({ kind: 'bad_request', message: queryRequired });
    await expect(refused('   ')).rejects.toMatchObject({ kind: 'bad_request', message: queryRequired });
    await expect(refused('a'.repeat(maxQueryLength + 1))).rejects.toMatchObject({ kind: 'bad_request', message: queryTooLong });
    await expect(refused('؟!... ---')).rejects.toMatchObject({ kind: 'bad_request', message: queryWithoutWords });
    await expect(refused(Array.from({ length: maxQueryWords + 1 }, (_, i) => `w${i}`).join(' '))).rejects.toMatchObject({ kind: 'bad_request', message: queryTooManyWords });
  });

  it('treats query syntax as words', async () => {
    for (const q of ['NEAR(a b)', '"a" OR b*', 'x:y -z ^2', '(الأعمال)']) {
      await expect(searchCatalogue(deps, as(), { q, ...page })).resolves.toMatchObject({ success: true });
    }
    expect((await searchCatalogue(deps, as(), { q: '(الأعمال)', ...page })).total).toBe(1);
  });
});

describe('searching one book', () => {
  it('finds the pages of that book only, with snippets', async () => {
    const found = await searchBookText(deps, as(), open.bookTextId, { q: 'الاسلام', ...page });
    expect(found).toEqual({ success: true, bookTextId: open.bookTextId, total: 1, limit: 20, offset: 0, hits: [{ pageNumber: 2, snippet: 'بُنِيَ <mark>الإِسْلامُ</mark> عَلَى خَمْسٍ' }] });
  });

  it('reads a private book for its owner and staff only, as GET /ocr/books/:id does', async () => {
    await expect(searchBookText(deps, as(other), closed.bookTextId, { q: 'السر', ...page })).rejects.toMatchObject({ kind: 'forbidden', message: 'Unauthorized to view this book' });
    await expect(searchBookText(deps, as(), closed.bookTextId, { q: 'السر', ...page })).rejects.toMatchObject({ kind: 'forbidden' });
    expect((await searchBookText(deps, as(owner), closed.bookTextId, { q: 'السر', ...page })).total).toBe(1);
    expect((await searchBookText(deps, as(editor), closed.bookTextId, { q: 'السر', ...page })).total).toBe(1);
  });

  it('answers 404 for a book that is not there and 500 for a malformed id', async () => {
    await expect(searchBookText(deps, as(), '0123456789abcdef01234567', { q: 'x', ...page })).rejects.toMatchObject({ kind: 'not_found', message: 'Book not found' });
    await expect(searchBookText(deps, as(), 'nope', { q: 'x', ...page })).rejects.toMatchObject({ kind: 'internal' });
  });

  it('pages through the hits: disjoint windows, one total', async () => {
    await withPages(open, Array.from({ length: 25 }, (_, i) => `كتاب الصلاة ${i}`));
    const first = await searchBookText(deps, as(), open.bookTextId, { q: 'الصلاه', limit: 10, offset: 0 });
    const third = await searchBookText(deps, as(), open.bookTextId, { q: 'الصلاه', limit: 10, offset: 20 });
    expect([first.total, first.hits.length, third.hits.length]).toEqual([25, 10, 5]);
    expect(new Set([...first.hits, ...third.hits].map((h) => h.pageNumber)).size).toBe(15);
  });
});

describe('the engine query of a search (matchOf)', () => {
  it('ranks the words as typed, in order, first in an all-words or any-word search of two words or more', () => {
    expect(matchOf('طَلَبِ  العِلْمِ')).toEqual({ field: 'stemmed', mode: 'all', terms: ['طلب', 'علم'], phraseFirst: ['طلب', 'العلم'] });
    expect(matchOf('Reading the books', 'any')).toEqual({ field: 'stemmed', mode: 'any', terms: ['read', 'the', 'book'], phraseFirst: ['reading', 'the', 'books'] });
    // Each stem once in the terms; the phrase keeps every word, repeats too.
    expect(matchOf('books book books')).toEqual({ field: 'stemmed', mode: 'all', terms: ['book'], phraseFirst: ['books', 'book', 'books'] });
    // ﷺ is four words.
    expect(matchOf('ﷺ').phraseFirst).toEqual(['صلي', 'الله', 'عليه', 'وسلم']);
  });

  it('leaves a one-word search and a phrase search as they are', () => {
    expect(matchOf('العلم')).toEqual({ field: 'stemmed', mode: 'all', terms: ['علم'] });
    expect(matchOf('العلم', 'any')).toEqual({ field: 'stemmed', mode: 'any', terms: ['علم'] });
    expect(matchOf('طلب العلم', 'phrase')).toEqual({ field: 'exact', mode: 'phrase', terms: ['طلب', 'العلم'] });
    expect(matchOf('"طلب العلم"', 'any')).toEqual({ field: 'exact', mode: 'phrase', terms: ['طلب', 'العلم'] });
  });
});

describe('forgiving what OCR does to print (issue 32)', () => {
  /** Pages as the OCR read them: ع for غ, ث for ش, a comma read as ء, two words run together. */
  const ocrPages = [
    'اهدنا الصراط المستقيم صراط الذين انعمت عليهم غير المعضوب عليهم ولا الضالين',
    'ولا تمش في الارض مرحا انك لن تخرق الارض ولن تبلغ الجبال طولا',
    'وكان يمثي في السوق كل يوم',
    'قالوا حسبنا الله تكفوناء ثم مضوا',
  ];
  let ocr: BookText;
  beforeEach(async () => {
    ({ book: ocr } = await storedJob(world, owner.userId, { status: 'completed', visibility: 'public', language: 'ar' }));
    await withPages(ocr, ocrPages);
  });
  const search = (q: string, mode?: 'all' | 'any' | 'phrase') => searchBookText(deps, as(), ocr.bookTextId, { q, ...(mode ? { mode } : {}), ...page });

  it('finds a word the OCR read with a letter of the same shape, says so, and marks it', async () => {
    const found = await search('غير المغضوب عليهم');
    expect(found.hits[0]).toEqual({
      pageNumber: 1,
      snippet: expect.stringContaining('<mark>غير</mark> <mark>المعضوب</mark> <mark>عليهم</mark>'),
      forgiven: { approximate: [{ word: 'المغضوب', found: 'المعضوب' }], missing: [] },
    });
  });

  it('finds a page lacking one of the words, and a word with another letter wrong, saying which', async () => {
    const found = await search('يمشي في السوق مسرعا');
    expect(found.hits[0]).toMatchObject({ pageNumber: 3, forgiven: { approximate: [{ word: 'يمشي', found: 'يمثي' }], missing: ['مسرعا'] } });
  });

  it('finds a word with the comma the OCR glued to it, and two words the OCR ran together', async () => {
    expect((await search('حسبنا الله تكفونا')).hits[0]).toMatchObject({ pageNumber: 4, forgiven: { approximate: [{ word: 'تكفونا', found: 'تكفوناء' }], missing: [] } });
    const runTogether = await search('و لا الضالين');
    expect(runTogether.hits[0]).toMatchObject({ pageNumber: 1, forgiven: { approximate: [{ word: 'و', found: 'ولا' }, { word: 'لا', found: 'ولا' }], missing: [] } });
  });

  it('ranks the page that holds the words as typed before the one that holds them as misread, and says nothing of what it need not forgive', async () => {
    await withPages(ocr, [...ocrPages, 'غير المغضوب عليهم في الكتاب']);
    const found = await search('غير المغضوب عليهم');
    expect(found.hits.map((h) => h.pageNumber).slice(0, 2)).toEqual([5, 1]);
    expect(found.hits[0]).not.toHaveProperty('forgiven');
  });

  it('keeps a phrase search exact', async () => {
    expect((await search('غير المغضوب عليهم', 'phrase')).total).toBe(0);
    expect((await search('"غير المغضوب عليهم"')).total).toBe(0);
    expect((await search('"غير المعضوب عليهم"')).hits).toEqual([{ pageNumber: 1, snippet: expect.any(String) }]);
  });
});

describe('the plan of a forgiving search (planSearch)', () => {
  const planned = async (q: string, mode?: 'all' | 'any', terms: string[] = []) => {
    const asked: string[][] = [];
    const plan = await planSearch({ similarTerms: async (keys) => (asked.push([...keys]), terms) }, q, mode);
    return { plan, asked };
  };

  it('looks the words up once, and asks nothing of a phrase', async () => {
    // غيره is a letter more than غير, which a word of three letters is not allowed; عير is a confusion of shape.
    const { plan, asked } = await planned('غير المغضوب عليهم', 'all', ['المعضوب', 'عير', 'غيره']);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toEqual(expect.arrayContaining([...variantKeys('المغضوب')]));
    expect(plan.forgiving).toEqual({
      words: [['غير', 'عير'], ['مغضوب', 'معضوب'], ['عليهم']],
      minimumWords: 2,
      nearPhrases: [
        ['عير', 'المغضوب', 'عليهم'],
        ['غير', 'المعضوب', 'عليهم'],
        ['المغضوب', 'عليهم'],
        ['غير', 'عليهم'],
        ['غير', 'المغضوب'],
      ],
    });
    expect((await planned('"غير المغضوب"')).asked).toEqual([]);
  });

  it('lets a page lack one of 2 to 8 words in all-words, and all but one in any-word; more words need every one', async () => {
    const minimum = async (n: number, mode: 'all' | 'any') => (await planned(Array.from({ length: n }, (_, i) => `كلمة${'بتثجحخدذرزسشصضطظعغفقكلمنهوي'[i]}`).join(' '), mode)).plan.forgiving?.minimumWords;
    expect(await minimum(1, 'all')).toBeUndefined(); // nothing to forgive: the plain search
    expect(await minimum(2, 'all')).toBe(1);
    expect(await minimum(8, 'all')).toBe(7);
    expect(await minimum(9, 'all')).toBeUndefined();
    expect(await minimum(3, 'any')).toBe(1);
  });

  it('leaves a search with nothing to forgive as it was', async () => {
    expect((await planned('العلم')).plan).toEqual(matchOf('العلم'));
  });
});
