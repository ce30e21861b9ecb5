import { maxPageNumber } from '../ocr/pages/page.ts';
import { maxLimit, maxOffset } from '../paging.ts';
import type { IndexedPage, PageQuery } from './engine.ts';

/**
 * What every search engine (lib/search/engine.ts) accepts, so each stores and matches the same
 * terms: the analysis (lib/search/analysis.ts) must produce only index terms.
 */

/** The longest term, in characters (code points). */
export const maxTermLength = 64;

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
 * Refuses (RangeError) pages an engine cannot store as the others do: a page number out of range,
 * `exact` and `stemmed` of different lengths, a term that is not an index term, an unknown
 * visibility. Checked before anything is written, so a refused batch writes nothing.
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
    checkTerms(page.exact, page, 'exact');
    checkTerms(page.stemmed, page, 'stemmed');
  }
}

/** Refuses (RangeError) a query's paging out of range: 1..maxLimit results from 0..maxOffset. */
export function checkPageQuery(query: PageQuery): void {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > maxLimit) throw new RangeError(`limit must be 1..${maxLimit}`);
  if (!Number.isInteger(query.offset) || query.offset < 0 || query.offset > maxOffset) throw new RangeError(`offset must be 0..${maxOffset}`);
}
