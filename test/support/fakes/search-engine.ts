import type { BookListQuery, IndexedBook, IndexedBookFields, IndexedPage, PageHit, PageQuery, SearchEngine, SearchView } from '../../../lib/search/engine.ts';
import { isFiled, variantKeys } from '../../../lib/search/ocr-variants.ts';
import { checkIndexedPages, checkPageQuery, forgivingTerms, listingBook, listingQuery, maxSimilarTerms, phraseFirstTerms, similarKeys } from '../../../lib/search/rules.ts';
import { bm25Part, idf as idfOf, lengthNorm as lengthNormOf } from '../../../lib/search/bm25.ts';
import { copy } from './copy.ts';

/** A book's fields as a page carries them, with their revision. */
const fieldsOf = ({ userId, visibility, status, language, rev }: IndexedBookFields): IndexedBookFields => ({ userId, visibility, status, language, rev });

const visibleIn = (view: SearchView, page: IndexedBookFields): boolean =>
  view.kind === 'all' || page.visibility === 'public' || (view.kind === 'publicAndOwn' && page.userId === view.ownerId);

/** How many times `phrase` occurs in `terms`, consecutively (overlapping occurrences each count). */
function occurrences(terms: readonly string[], phrase: readonly string[]): number {
  let count = 0;
  for (let i = 0; i + phrase.length <= terms.length; i++) {
    if (phrase.every((term, j) => terms[i + j] === term)) count++;
  }
  return count;
}

/** UTF-8 byte order (DynamoDB's and Lucene's), not JavaScript's UTF-16 `<`. */
const byUtf8 = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * SearchEngine in memory (lib/adapters/sqlite/search-engine.ts): every page kept whole, each
 * search a scan. A term matches a page's term only if equal, so a term the rules refuse (never
 * stored) matches nothing.
 *
 * Ranking is Okapi BM25 (k1 1.2, b 0.75) as FTS5's bm25() computes it: one part per phrase (the
 * whole phrase in `phrase` mode, each term otherwise), idf = ln((N - n + 0.5) / (n + 0.5)) or
 * 1e-6 when that is not positive, N every indexed page and n those holding the phrase in the
 * field, visible or not, and a page's length against the average over every page; the phrase
 * hits of `phraseFirst` before the others. A forgiving query scores its typed terms (first three
 * groups) or every alternative of every word (the others) as `any` would, within its groups (engine.ts
 * `forgiving`), as the SQLite engine does to the last bit (lib/search/bm25.ts).
 * (The SQLite engine's other searches' N and average length also count pages since replaced or
 * removed, so after such writes their order of close scores can differ: the contract is the hits and totals.)
 */
export class FakeSearchEngine implements SearchEngine {
  /** By `${bookTextId} ${pageNumber}`. */
  readonly pages = new Map<string, IndexedPage>();
  /** The listing, by bookTextId: each entry as lib/search/rules.ts `listingBook` makes it. */
  readonly books = new Map<string, IndexedBook>();
  /** Every filed term ever put (ocr-variants.ts `isFiled`). */
  readonly vocabulary = new Set<string>();

  async putPages(pages: IndexedPage[]): Promise<void> {
    checkIndexedPages(pages);
    for (const page of pages) for (const term of page.exact) if (isFiled(term)) this.vocabulary.add(term);
    for (const page of pages) {
      const key = `${page.bookTextId} ${page.pageNumber}`;
      const held = this.pages.get(key);
      if (!held) {
        this.pages.set(key, copy(page));
        continue;
      }
      // The terms follow pageRev, the book's fields rev: each kept from the newest put.
      if ((page.pageRev ?? 0) >= (held.pageRev ?? 0)) Object.assign(held, { exact: [...page.exact], stemmed: [...page.stemmed], pageRev: page.pageRev });
      if ((page.rev ?? 0) >= (held.rev ?? 0)) Object.assign(held, fieldsOf(page));
    }
  }

  async setBookFields(bookTextId: string, fields: IndexedBookFields): Promise<void> {
    if (fields.visibility !== 'public' && fields.visibility !== 'private') throw new RangeError(`${bookTextId}: unknown visibility`);
    for (const page of this.pages.values()) {
      if (page.bookTextId === bookTextId && (page.rev ?? 0) <= (fields.rev ?? 0)) Object.assign(page, fieldsOf(fields));
    }
  }

  async hideBook(bookTextId: string): Promise<void> {
    for (const page of this.pages.values()) {
      if (page.bookTextId === bookTextId) page.visibility = 'private';
    }
    const entry = this.books.get(bookTextId);
    if (entry) entry.visibility = 'private';
  }

  async removeBook(bookTextId: string): Promise<void> {
    this.books.delete(bookTextId);
    for (const [key, page] of this.pages) {
      if (page.bookTextId === bookTextId) this.pages.delete(key);
    }
  }

  async putBook(book: IndexedBook): Promise<void> {
    const entry = listingBook(book);
    if ((this.books.get(entry.bookTextId)?.rev ?? 0) > (entry.rev ?? 0)) return;
    this.books.set(entry.bookTextId, entry);
  }

  async listBooks(query: BookListQuery): Promise<{ total: number; bookTextIds: string[] }> {
    const q = listingQuery(query);
    if (!q) return { total: 0, bookTextIds: [] };
    const listed = [...this.books.values()]
      .filter(
        (book) =>
          visibleIn(q.view, book) &&
          (q.status === undefined || book.status === q.status) &&
          (q.language === undefined || book.language === q.language) &&
          (q.tags.length === 0 || q.tags.some((tag) => book.tags.includes(tag))) &&
          (q.categories.length === 0 || q.categories.some((category) => book.categories.includes(category))),
      )
      .sort((x, y) => byUtf8(x[q.sortKey], y[q.sortKey]));
    if (q.descending) listed.reverse();
    return { total: listed.length, bookTextIds: listed.slice(q.offset, q.offset + q.limit).map((book) => book.bookTextId) };
  }

  async similarTerms(keys: readonly string[]): Promise<string[]> {
    const wanted = new Set(similarKeys(keys));
    return [...this.vocabulary]
      .filter((term) => variantKeys(term).some((key) => wanted.has(key)))
      .sort(byUtf8)
      .slice(0, maxSimilarTerms);
  }

  async search(query: PageQuery): Promise<{ total: number; hits: PageHit[] }> {
    checkPageQuery(query);
    const phraseFirst = phraseFirstTerms(query);
    const forgiving = forgivingTerms(query);
    if (query.terms.length === 0) return { total: 0, hits: [] };
    const all = [...this.pages.values()];
    const scoredTerms = forgiving ? [...new Set(forgiving.words.flat())] : query.terms;
    const phrases = query.mode === 'phrase' ? [query.terms] : scoredTerms.map((term) => [term]);
    const idf = phrases.map((phrase) => idfOf(all.length, all.filter((page) => occurrences(page[query.field], phrase) > 0).length));
    const averageLength = all.reduce((sum, page) => sum + page[query.field].length, 0) / all.length;

    /** A forgiving query's groups, best first (engine.ts `forgiving`); every page is in group 0 otherwise. */
    const groups = (page: IndexedPage): number[] => {
      if (!forgiving) return [];
      const holds = (term: string) => page.stemmed.includes(term);
      return [
        forgiving.nearPhrases.some((phrase) => occurrences(page.exact, phrase) > 0),
        query.terms.every(holds),
        forgiving.words.every((alternatives) => alternatives.some(holds)),
      ].map(Number);
    };
    const held = (page: IndexedPage): boolean => forgiving!.words.filter((alternatives) => alternatives.some((t) => page.stemmed.includes(t))).length >= forgiving!.minimumWords;

    // The typed terms' parts, summed in the order of the scored terms (as the SQLite engine sums them).
    const typed = new Set(forgiving ? query.terms : []);
    const scored: { page: IndexedPage; score: number; typedScore: number; phraseHit: boolean; groups: number[] }[] = [];
    for (const page of all) {
      if (!visibleIn(query.view, page)) continue;
      if (query.language !== undefined && page.language !== query.language) continue;
      if (query.bookTextId !== undefined && page.bookTextId !== query.bookTextId) continue;
      const counts = phrases.map((phrase) => occurrences(page[query.field], phrase));
      const matches = forgiving ? held(page) : query.mode === 'any' ? counts.some((c) => c > 0) : counts.every((c) => c > 0);
      if (!matches) continue;
      const norm = lengthNormOf(page[query.field].length, averageLength);
      const score = counts.reduce((sum, c, i) => sum + bm25Part(idf[i]!, c, norm), 0);
      const typedScore = counts.reduce((sum, c, i) => (typed.has(scoredTerms[i]!) ? sum + bm25Part(idf[i]!, c, norm) : sum), 0);
      scored.push({ page, score, typedScore, phraseHit: phraseFirst !== null && occurrences(page.exact, phraseFirst) > 0, groups: groups(page) });
    }
    /** The first group a page is in (the phrase hits' first), or after them all: each page ranks by it, then by BM25. */
    const firstGroup = (x: { phraseHit: boolean; groups: number[] }): number => {
      const all = [Number(x.phraseHit), ...x.groups];
      const at = all.indexOf(1);
      return at < 0 ? all.length : at;
    };
    /** A forgiving query's first three groups rank by the typed terms' BM25, the rest by every alternative's (engine.ts `forgiving`). */
    const rankScore = (x: (typeof scored)[number]): number => (forgiving && firstGroup(x) <= 2 ? x.typedScore : x.score);
    scored.sort(
      (x, y) =>
        firstGroup(x) - firstGroup(y) ||
        rankScore(y) - rankScore(x) ||
        (x.page.bookTextId < y.page.bookTextId ? -1 : x.page.bookTextId > y.page.bookTextId ? 1 : 0) ||
        x.page.pageNumber - y.page.pageNumber,
    );
    return {
      total: scored.length,
      hits: scored.slice(query.offset, query.offset + query.limit).map(({ page }) => ({ bookTextId: page.bookTextId, pageNumber: page.pageNumber })),
    };
  }
}
