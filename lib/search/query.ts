import { badRequest } from '../errors.ts';
import { analyze } from './analysis.ts';
import type { MatchMode, PageQuery } from './engine.ts';
import { maxQueryTerms } from './rules.ts';

/** How a search's words must appear on a page (docs/interface.md, "Search"). */
export const searchModes = ['all', 'any', 'phrase'] as const satisfies readonly MatchMode[];
export const defaultSearchMode: MatchMode = 'all';

/**
 * Hits a search answers at most (issue 27): each hit reads its whole page from the table for its
 * snippet, up to 120 KB (60,000 Arabic characters), so 100 hits were 12 MB and about 1,500 read units
 * on AWS for one anonymous request; 20 are at most 2.4 MB.
 */
export const maxSearchHits = 20;

/** A query's length in characters, and its words once analyzed: bounded work per request. */
export const maxQueryLength = 256;
export const maxQueryWords = maxQueryTerms;

export const queryRequired = 'q is required: the words to search for';
export const queryTooLong = `q must be at most ${maxQueryLength} characters`;
export const queryWithoutWords = 'q has no word to search for (letters or digits)';
export const queryTooManyWords = `q must have at most ${maxQueryWords} words`;

/** What a query asks the engine: the field, the mode, the analyzed terms and the phrase ranked first. */
export type Match = Pick<PageQuery, 'field' | 'mode' | 'terms' | 'phraseFirst'>;

/**
 * The engine's match for `q`. A phrase is matched on the unstemmed terms (exact words, in order);
 * all-words and any-word on the stems, each stem once, and of two words or more, the pages holding
 * the words as typed, in order (the unstemmed terms as a phrase), rank first: a reader who types a
 * run of words from a page finds that page first. Either way the words are normalized first
 * (lib/search/analysis.ts): diacritics, alef and yeh forms, presentation forms and digits do not
 * matter. `q` wholly in double quotes is a phrase whatever the mode.
 */
export function matchOf(q: string | undefined, mode: MatchMode = defaultSearchMode): Match {
  const text = q?.trim() ?? '';
  if (text === '') throw badRequest(queryRequired);
  if (text.length > maxQueryLength) throw badRequest(queryTooLong);
  const quoted = text.length > 1 && text.startsWith('"') && text.endsWith('"');
  const effective: MatchMode = quoted ? 'phrase' : mode;
  const { exact, stemmed } = analyze(quoted ? text.slice(1, -1) : text);
  if (exact.length === 0) throw badRequest(queryWithoutWords);
  if (exact.length > maxQueryWords) throw badRequest(queryTooManyWords);
  if (effective === 'phrase') return { field: 'exact', mode: 'phrase', terms: exact };
  const terms = [...new Set(stemmed)];
  return exact.length >= 2 ? { field: 'stemmed', mode: effective, terms, phraseFirst: exact } : { field: 'stemmed', mode: effective, terms };
}
