/**
 * The full-text search port (issue 17). Text is analyzed in our own code (lib/search/analysis.ts:
 * normalization, stemming) into terms; an engine only stores and matches those terms, so every
 * engine (SQLite FTS5 locally, OpenSearch on AWS) gives the same hits and totals. Which terms an
 * engine accepts, and its limits, are lib/search/rules.ts.
 */

/** Whose pages a search may return (the visibility rules of GET /ocr/books). */
export type SearchView = { kind: 'public' } | { kind: 'all' } | { kind: 'publicAndOwn'; ownerId: string };

/**
 * What a page's index entry knows of its book, copied on each page so one query filters and counts.
 * Every page of a book carries the book's current fields: a change goes through `setBookFields`
 * (an engine may keep them once per book, as the SQLite one does).
 */
export interface IndexedBookFields {
  userId: string;
  visibility: 'private' | 'public';
  status: string;
  language: string;
  /**
   * The BookText's revision (`BookText.rev`, raised by every write of the record; absent: 0). An
   * engine keeps, per book, the fields put with the highest revision: a put (putPages, setBookFields,
   * putBook) carrying a lower one changes none of them, an equal one replaces them (equal revisions
   * carry equal fields). So writers that race (the write path, the stream's indexer putting what it
   * read a moment earlier) never take the index back to an older state (docs/architecture.md, "Read after write").
   */
  rev?: number;
}

/** A BookText as the catalogue lists it (GET /ocr/books): its view fields, filters and sort keys. */
export interface IndexedBook extends IndexedBookFields {
  bookTextId: string;
  tags: string[];
  categories: string[];
  /** The listing's sort keys (lib/adapters/dynamo/keys.ts catalogueSort), ordered as UTF-8 bytes. */
  byDate: string;
  byName: string;
  byPages: string;
}

export interface BookListQuery {
  view: SearchView;
  /** `tags` and `categories`: any of them (none: no filter). */
  filter: { status?: string; language?: string; tags: string[]; categories: string[] };
  order: 'date' | 'name' | 'pages';
  descending: boolean;
  limit: number; // 1..100
  offset: number; // 0..maxOffset (lib/paging.ts)
}

export interface IndexedPage extends IndexedBookFields {
  bookTextId: string;
  /** 0..maxPageNumber (lib/ocr/pages/page.ts). */
  pageNumber: number;
  /** Analyzed terms in text order, unstemmed (exact phrases). Each one `isIndexTerm`. */
  exact: string[];
  /** The same terms stemmed, position for position (the default search): as many as `exact`. */
  stemmed: string[];
  /**
   * The revision of the page's terms (absent: 0): an engine keeps, per page, the terms put with the
   * highest one (equal: the later put). The book fields a page carries follow `rev`, apart from its
   * terms. The indexing code gives it the BookText's `rev`, read before the page: every write of a
   * page is followed, before it answers, by a write of its BookText, which raises `rev`, so a page
   * read under a higher revision is never older than one read under a lower (lib/search/indexing.ts).
   */
  pageRev?: number;
}

export type MatchMode = 'phrase' | 'all' | 'any';

export interface PageQuery {
  /** `phrase`: the terms consecutively, in order; `all`: every term somewhere; `any`: at least one. */
  mode: MatchMode;
  /** `exact` for phrases the reader quoted; `stemmed` for the default search. */
  field: 'exact' | 'stemmed';
  /**
   * Analyzed terms in the field's form: 1..32 of them, each 1..64 characters, letters/marks/digits
   * only. A term that is not an index term (`isIndexTerm`: `"`, `*`, `NEAR`, ...) is matched
   * literally, so it is in no page: never an error, never query syntax.
   */
  terms: string[];
  /**
   * Phrase hits first: the pages whose `exact` field holds these terms consecutively, in order,
   * rank before all other matching pages; each group is ranked as without it (BM25, then the
   * tie-break). It changes the order only: which pages match, and the total, are `mode`'s and
   * `terms`'. 2..32 unstemmed terms (a RangeError otherwise), each checked like `terms`: a term
   * that is not an index term is in no page, so no page is a phrase hit. lib/search/query.ts
   * `matchOf` sets it to the words of an all-words or any-word search of two words or more.
   */
  phraseFirst?: string[];
  /**
   * The forgiving search (issue 32; lib/search/query.ts `planSearch`), of `all` and `any` on `stemmed`
   * only. With it, which pages match and how they rank are these, not `mode`'s:
   * - `words[i]`: the i-th distinct word's alternatives in the field's form, `terms[i]` (the word as
   *   typed) first, then its variants (lib/search/ocr-variants.ts), 1..1 + maxVariants + 2 of them. A
   *   page *holds* a word when it holds any of its alternatives.
   * - A page matches when it holds at least `minimumWords` of the words (1..words.length).
   * - Ranked by the first of these groups a page is in: the phrase hits of `phraseFirst`; the pages of
   *   `exact` holding any of `nearPhrases` (the typed words with one slip: a variant, a word left out,
   *   two words run together; 0..48 of them, each 1..32 terms); the pages holding every `terms` (the
   *   words as typed); those holding every word; then the rest; within a group by BM25, then the
   *   tie-break. (Only the first group counts: a near-phrase hit that also holds every typed term
   *   ranks with the other near-phrase hits, by BM25, so an engine reads each group's pages on their own.)
   * - The BM25 of the first three groups is the typed terms' (those among the words' alternatives),
   *   as a search that does not forgive ranks; of the last two, every alternative's. A phrase hit is
   *   what the reader typed: its variants' terms found elsewhere on its page say nothing of it.
   */
  forgiving?: ForgivingQuery;
  /** Only this BookText's pages (search within a book). */
  bookTextId?: string;
  /** Only books of this language. */
  language?: string;
  view: SearchView;
  limit: number; // 1..100
  offset: number; // 0..maxOffset (lib/paging.ts)
}

export interface ForgivingQuery {
  words: string[][];
  minimumWords: number;
  nearPhrases: string[][];
}

export interface PageHit {
  bookTextId: string;
  pageNumber: number;
}

/**
 * Whether a write is seen by the next search or listing once its call resolves: always on the SQLite
 * engine; on OpenSearch when the engine was made for the write path (`refreshOnPut: 'wait_for'`,
 * functions/_shared/adapters/search.ts), which read-after-write needs; the stream's indexer does not wait.
 */
export interface SearchEngine {
  /** Adds or replaces pages (one entry per bookTextId + pageNumber). Pages that break the rules are refused whole. */
  putPages(pages: IndexedPage[]): Promise<void>;
  /**
   * Copies a book's changed fields to all its pages (visibility, status, ...), each page only if its
   * fields' revision is not higher than `fields.rev`. A book with no pages: nothing.
   */
  setBookFields(bookTextId: string, fields: IndexedBookFields): Promise<void>;
  /**
   * Makes a book private in the index at once, its listing entry and every page, whatever their
   * revisions and without changing them: run before the table makes the book private, so no total
   * counts it for others even for a moment. The next put of its fields at a revision not lower than
   * the one held sets what the table holds (the book made public again, if the table's write failed).
   */
  hideBook(bookTextId: string): Promise<void>;
  /**
   * The indexed exact terms filed under any of `keys` (lib/search/ocr-variants.ts `variantKeys`; every
   * page's terms, whatever its book's visibility: the answer only widens a query, whose hits each
   * view still filters), distinct, in UTF-8 byte order, at most `maxSimilarTerms`. Terms stay filed
   * once indexed, after their pages are replaced or removed (a term no page holds widens nothing). 0..
   * maxSimilarKeys keys, each 1..maxFiledLength characters.
   */
  similarTerms(keys: readonly string[]): Promise<string[]>;
  /** Removes a book's pages and its listing entry. */
  removeBook(bookTextId: string): Promise<void>;
  /**
   * Matching pages, best first (the phrase hits of `phraseFirst` first, if given; then BM25; ties
   * by bookTextId, then pageNumber), and how many match in all (exact). Scores are each engine's
   * own: the hits, the totals and the phrase hits first are the contract, not the order of
   * differently scored pages across engines.
   */
  search(query: PageQuery): Promise<{ total: number; hits: PageHit[] }>;
  /**
   * Adds or replaces a book's listing entry (checked by lib/search/rules.ts `listingBook`), unless the
   * entry held has a higher `rev`. Apart from pages: putPages and setBookFields leave it alone, putBook
   * leaves the pages alone.
   */
  putBook(book: IndexedBook): Promise<void>;
  /**
   * One window of the listing in order, and the exact size of the whole filtered listing. The order
   * is the sort key's UTF-8 bytes (descending: reversed); keys end with `#bookTextId`, so no two
   * books tie. Strings match as lib/search/rules.ts `listingQuery` says (exactly, as UTF-8).
   */
  listBooks(query: BookListQuery): Promise<{ total: number; bookTextIds: string[] }>;
}
