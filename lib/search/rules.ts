import { maxPageNumber } from '../ocr/pages/page.ts';
import { maxLimit, maxOffset } from '../paging.ts';
import type { BookListQuery, ForgivingQuery, IndexedBook, IndexedPage, PageQuery, SearchView } from './engine.ts';
import { maxFiledLength, maxVariants } from './ocr-variants.ts';

/**
 * What every search engine (lib/search/engine.ts) accepts, so each stores and matches the same
 * terms: the analysis (lib/search/analysis.ts) must produce only index terms.
 */

/** The longest term, in characters (code points). */
export const maxTermLength = 64;
/** The most terms a query (or its `phraseFirst`) holds: lib/search/query.ts refuses more words. */
export const maxQueryTerms = 32;

const letterMarkDigit = /^[\p{L}\p{M}\p{N}]+$/u;

/**
 * Case-folded: no case mapping changes it. Checked per character: `toLowerCase` alone keeps
 * `ς`, `µ`, `ſ` and the like, which Unicode case folding (and SQLite's tokenizer) map to `σ`, `μ`,
 * `s`; their upper case lowered again shows it. An upper case of two characters (`ß`, `ŉ`) has no
 * simple folding, so the character is its own.
 */
function isFolded(char: string): boolean {
  if (char.toLowerCase() !== char) return false;
  const upper = char.toUpperCase();
  return [...upper].length !== 1 || upper.toLowerCase() === char;
}

/**
 * An index term: 1..64 letters, marks and digits (any script), case-folded. Nothing else is
 * indexed, so engines never split, merge or fold a term: SQLite's unicode61 tokenizer (letters,
 * marks and numbers as token characters, no diacritic removal) keeps every such term as one token,
 * unchanged (checked over every code point of this Node's Unicode, issue 17). A query term that is
 * not one (`"`, `*`, `NEAR`, `a-b`) is in no page.
 */
export function isIndexTerm(term: string): boolean {
  if (!letterMarkDigit.test(term)) return false;
  let length = 0;
  for (const char of term) {
    if (++length > maxTermLength || !isFolded(char)) return false;
  }
  return true;
}

/**
 * A revision as engines keep it (engine.ts `rev`, `pageRev`): absent is 0; otherwise a whole number
 * from 0 to 2^53 - 1 (a DynamoDB counter never gets there), else a RangeError naming `where`.
 */
export function revisionOf(rev: unknown, where: string): number {
  if (rev === undefined) return 0;
  if (typeof rev !== 'number' || !Number.isSafeInteger(rev) || rev < 0) throw new RangeError(`${where}: a revision is a whole number from 0`);
  return rev;
}

/**
 * Refuses (RangeError) pages an engine cannot store as the others do: a page number out of range,
 * `exact` and `stemmed` of different lengths, a term that is not an index term, an unknown
 * visibility, a revision that is not a whole number from 0. Checked before anything is written, so
 * a refused batch writes nothing.
 */
export function checkIndexedPages(pages: readonly IndexedPage[]): void {
  const checked = new Set<string>();
  const checkTerms = (terms: readonly string[], page: IndexedPage, field: string) => {
    for (const term of terms) {
      if (checked.has(term)) continue;
      if (typeof term !== 'string' || !isIndexTerm(term)) {
        throw new RangeError(`Page ${page.pageNumber} of ${page.bookTextId}: ${field} term ${JSON.stringify(term)} is not an index term`);
      }
      checked.add(term);
    }
  };
  for (const page of pages) {
    const where = `Page ${page.pageNumber} of ${page.bookTextId}`;
    if (typeof page.bookTextId !== 'string' || page.bookTextId === '') throw new RangeError(`${where}: no bookTextId`);
    if (!Number.isInteger(page.pageNumber) || page.pageNumber < 0 || page.pageNumber > maxPageNumber) {
      throw new RangeError(`${where}: the page number must be a whole number from 0 to ${maxPageNumber}`);
    }
    if (page.visibility !== 'public' && page.visibility !== 'private') throw new RangeError(`${where}: unknown visibility`);
    if (page.exact.length !== page.stemmed.length) throw new RangeError(`${where}: exact and stemmed terms differ in number`);
    revisionOf(page.rev, where);
    revisionOf(page.pageRev, where);
    checkTerms(page.exact, page, 'exact');
    checkTerms(page.stemmed, page, 'stemmed');
  }
}

/**
 * The terms a query can match, or null when it can match no page. A term that is not an index
 * term is in no page: `phrase` and `all` then match nothing, `any` goes on without it.
 */
export function matchableTerms(query: Pick<PageQuery, 'mode' | 'terms'>): string[] | null {
  const terms = query.terms.filter((term) => typeof term === 'string' && isIndexTerm(term));
  if (terms.length === 0 || (query.mode !== 'any' && terms.length < query.terms.length)) return null;
  return terms;
}

/**
 * The terms of a query's `phraseFirst` (lib/search/engine.ts), or null when there is none or it can
 * be on no page (a term that is not an index term). A RangeError when it is not 2..maxQueryTerms terms.
 */
export function phraseFirstTerms(query: Pick<PageQuery, 'phraseFirst'>): string[] | null {
  const phrase: unknown = query.phraseFirst;
  if (phrase === undefined) return null;
  if (!Array.isArray(phrase) || phrase.length < 2 || phrase.length > maxQueryTerms) throw new RangeError(`phraseFirst holds 2 to ${maxQueryTerms} terms`);
  return matchableTerms({ mode: 'phrase', terms: phrase as string[] });
}

/** The most keys a `similarTerms` call looks up (32 words and their run-together pairs, each up to 25 keys), and the most terms it answers. */
export const maxSimilarKeys = 2_048;
export const maxSimilarTerms = 2_000;
/** A forgiving query's bounds (engine.ts `forgiving`): alternatives of a word (itself, its variants, two run-together pairs) and near phrases. */
export const maxAlternatives = 1 + maxVariants + 2;
export const maxNearPhrases = 48;

/**
 * The keys of a `similarTerms` call an engine looks up: RangeError past `maxSimilarKeys` or for a
 * key that is not a string of 1..maxFiledLength characters; a key that is not an index term is filed
 * under no term, so it is left out. Distinct.
 */
export function similarKeys(keys: readonly string[]): string[] {
  if (!Array.isArray(keys) || keys.length > maxSimilarKeys) throw new RangeError(`similarTerms takes at most ${maxSimilarKeys} keys`);
  for (const key of keys) {
    if (typeof key !== 'string' || key === '' || [...key].length > maxFiledLength) throw new RangeError(`A key is 1 to ${maxFiledLength} characters`);
  }
  return [...new Set(keys.filter(isIndexTerm))];
}

/**
 * A query's `forgiving` as engines match it, checked (RangeError when out of contract: not `all` or
 * `any` on `stemmed`, words not led by `terms`, bounds), with every term that is not an index term
 * left out (a word of none is held by no page; a near phrase with one is on no page). Null when the
 * query is not forgiving; `words` null when no page can hold `minimumWords` of them.
 */
export function forgivingTerms(query: Pick<PageQuery, 'mode' | 'field' | 'terms' | 'forgiving'>): { words: string[][]; minimumWords: number; nearPhrases: string[][] } | null {
  const forgiving: unknown = query.forgiving;
  if (forgiving === undefined) return null;
  const { words, minimumWords, nearPhrases } = forgiving as Partial<ForgivingQuery>;
  if (query.field !== 'stemmed' || (query.mode !== 'all' && query.mode !== 'any')) throw new RangeError('A forgiving query is all or any, on stemmed');
  const termLists = (lists: unknown, most: number, length: number, what: string): string[][] => {
    if (!Array.isArray(lists) || lists.length > most) throw new RangeError(`${what}: at most ${most}`);
    return lists.map((list: unknown) => {
      if (!Array.isArray(list) || list.length < 1 || list.length > length || list.some((t) => typeof t !== 'string')) throw new RangeError(`${what}: 1 to ${length} terms each`);
      return list as string[];
    });
  };
  const all = termLists(words, maxQueryTerms, maxAlternatives, 'words');
  if (all.length !== query.terms.length || all.some((alternatives, i) => alternatives[0] !== query.terms[i])) throw new RangeError('Each word leads with its term');
  if (!Number.isInteger(minimumWords) || minimumWords! < 1 || minimumWords! > all.length) throw new RangeError('minimumWords is 1 to the number of words');
  const phrases = termLists(nearPhrases, maxNearPhrases, maxQueryTerms, 'nearPhrases');
  const kept = all.map((alternatives) => [...new Set(alternatives.filter(isIndexTerm))]);
  return {
    words: kept,
    minimumWords: minimumWords!,
    nearPhrases: phrases.filter((phrase) => phrase.every(isIndexTerm)),
  };
}

/** Refuses (RangeError) a query's paging out of range: 1..maxLimit results from 0..maxOffset. */
export function checkPageQuery(query: Pick<PageQuery, 'limit' | 'offset'>): void {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > maxLimit) throw new RangeError(`limit must be 1..${maxLimit}`);
  if (!Number.isInteger(query.offset) || query.offset < 0 || query.offset > maxOffset) throw new RangeError(`offset must be 0..${maxOffset}`);
}

// ---------------------------------------------------------------------------------------------
// The catalogue listing (putBook, listBooks)
// ---------------------------------------------------------------------------------------------

/**
 * The most tags, and the most categories, a listed book may carry; the most values a listing filter
 * may name of each. The service caps neither today (docs/decisions.md, "upload fields": tags and categories are split on
 * commas, trimmed, empties dropped; only the item size bounds them): these are the engines' own.
 */
export const maxListValues = 1_000;
/**
 * The longest string of a listing entry or filter (a tag, a category, a status, a sort key, ...), in
 * characters (code points): at most 4,000 bytes of UTF-8, well under the 32,766 bytes of a Lucene
 * keyword.
 */
export const maxListingChars = 1_000;

/**
 * A string as UTF-8 carries it: each lone surrogate (half of a pair, alone) becomes U+FFFD, as
 * TextEncoder and Buffer encode it. Every engine stores and compares this form, so a tag or a key
 * holding one matches and sorts alike everywhere (and SQLite's binding never sees half a pair).
 */
export const wellFormed = (value: string): string => value.replace(/\p{Cs}/gu, '\uFFFD');

/** At most `max` code points (stops counting past it: a string may be long). */
function fitsChars(value: string, max: number): boolean {
  if (value.length <= max) return true;
  if (value.length > 2 * max) return false;
  let count = 0;
  for (const _ of value) if (++count > max) return false;
  return true;
}

const sortKeys = ['byDate', 'byName', 'byPages'] as const;

/**
 * The listing entry an engine stores for `book`, or a RangeError: every string well-formed
 * (`wellFormed`), tags and categories without repeats or empty strings (no filter names one).
 * Refused: a bookTextId that is empty, holds `#` or a lone surrogate; an empty owner, status or
 * language; an unknown visibility; more than maxListValues tags or categories; a string longer than
 * maxListingChars; a sort key not ending with `#` and the bookTextId. With the id at the end of each
 * key and no `#` in an id, no two books share a key: the listing's order is total.
 */
export function listingBook(book: IndexedBook): IndexedBook {
  const id: unknown = book.bookTextId;
  if (typeof id !== 'string' || id === '' || id.includes('#') || wellFormed(id) !== id || !fitsChars(id, maxListingChars)) {
    throw new RangeError(`A listed book's bookTextId is 1 to ${maxListingChars} characters, without '#'`);
  }
  const where = `Listed book ${id}`;
  const text = (value: unknown, name: string): string => {
    if (typeof value !== 'string' || value === '' || !fitsChars(value, maxListingChars)) throw new RangeError(`${where}: ${name} must be 1 to ${maxListingChars} characters`);
    return wellFormed(value);
  };
  const list = (values: unknown, name: string): string[] => {
    if (!Array.isArray(values) || values.length > maxListValues) throw new RangeError(`${where}: ${name} must be an array of at most ${maxListValues} strings`);
    const kept = new Set<string>();
    for (const value of values as unknown[]) {
      if (typeof value !== 'string' || !fitsChars(value, maxListingChars)) throw new RangeError(`${where}: each of ${name} must be a string of at most ${maxListingChars} characters`);
      if (value !== '') kept.add(wellFormed(value));
    }
    return [...kept];
  };
  if (book.visibility !== 'public' && book.visibility !== 'private') throw new RangeError(`${where}: unknown visibility`);
  const keys = {} as Record<(typeof sortKeys)[number], string>;
  for (const name of sortKeys) {
    const key: unknown = book[name];
    if (typeof key !== 'string' || !key.endsWith(`#${id}`) || !fitsChars(key, maxListingChars)) {
      throw new RangeError(`${where}: ${name} must end with '#' and the bookTextId, at most ${maxListingChars} characters`);
    }
    keys[name] = wellFormed(key);
  }
  return {
    bookTextId: id,
    userId: text(book.userId, 'userId'),
    visibility: book.visibility,
    status: text(book.status, 'status'),
    language: text(book.language, 'language'),
    tags: list(book.tags, 'tags'),
    categories: list(book.categories, 'categories'),
    ...keys,
    rev: revisionOf(book.rev, where),
  };
}

/** A listing query as engines run it (`listingQuery`). */
export interface ListingQuery {
  view: SearchView;
  status?: string;
  language?: string;
  /** Any of them; empty: no filter. Well-formed, no repeats. */
  tags: string[];
  categories: string[];
  order: 'date' | 'name' | 'pages';
  /** The IndexedBook field the order reads. */
  sortKey: 'byDate' | 'byName' | 'byPages';
  descending: boolean;
  limit: number;
  offset: number;
}

const sortKeyOf = { date: 'byDate', name: 'byName', pages: 'byPages' } as const;

/**
 * The query every engine runs for `query`, or null when no book can match it; a RangeError for a
 * query out of contract (paging out of range, an unknown view or order, more than maxListValues
 * tags or categories, a value that is not a string).
 *
 * A filter's strings match a book's exactly, as UTF-8 (`wellFormed`), whatever they hold: quotes,
 * `%`, `*`, JSON or SQL are only characters. A value no listed book can hold (empty, or longer than
 * maxListingChars) matches nothing: a status or language of that kind empties the listing, and so
 * do tags (or categories) that are all of that kind.
 */
export function listingQuery(query: BookListQuery): ListingQuery | null {
  checkPageQuery(query);
  const view = checkView(query.view);
  const sortKey = Object.hasOwn(sortKeyOf, query.order) ? sortKeyOf[query.order] : undefined;
  if (!sortKey) throw new RangeError('order must be date, name or pages');
  if (typeof query.descending !== 'boolean') throw new RangeError('descending must be a boolean');
  const filter: Partial<BookListQuery['filter']> = query.filter ?? {};
  let impossible = false;
  const single = (value: unknown, name: string): string | undefined => {
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw new RangeError(`filter ${name} must be a string`);
    if (value === '' || !fitsChars(value, maxListingChars)) impossible = true;
    return wellFormed(value);
  };
  const anyOf = (values: unknown, name: string): string[] => {
    if (values === undefined) return [];
    if (!Array.isArray(values) || values.length > maxListValues) throw new RangeError(`filter ${name} must be an array of at most ${maxListValues} strings`);
    const kept = new Set<string>();
    for (const value of values as unknown[]) {
      if (typeof value !== 'string') throw new RangeError(`filter ${name} must hold strings only`);
      if (value !== '' && fitsChars(value, maxListingChars)) kept.add(wellFormed(value));
    }
    if (values.length > 0 && kept.size === 0) impossible = true;
    return [...kept];
  };
  const status = single(filter.status, 'status');
  const language = single(filter.language, 'language');
  const tags = anyOf(filter.tags, 'tags');
  const categories = anyOf(filter.categories, 'categories');
  if (impossible) return null;
  return { view, status, language, tags, categories, order: query.order, sortKey, descending: query.descending, limit: query.limit, offset: query.offset };
}

function checkView(view: SearchView): SearchView {
  switch (view?.kind) {
    case 'public':
    case 'all':
      return { kind: view.kind };
    case 'publicAndOwn':
      if (typeof view.ownerId !== 'string') throw new RangeError('ownerId must be a string');
      return { kind: 'publicAndOwn', ownerId: wellFormed(view.ownerId) };
    default:
      throw new RangeError('Unknown view');
  }
}
