import { badRequest } from '../errors.ts';
import { analyze, stem, tokens } from './analysis.ts';
import type { MatchMode, PageQuery, SearchEngine } from './engine.ts';
import { isFiled, skeleton, variantKeys, variantsOf } from './ocr-variants.ts';
import { maxAlternatives, maxNearPhrases, maxQueryTerms } from './rules.ts';

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

/** A word of a forgiving search: as typed, its stem (its term), and the stems it may be found as instead. */
export interface PlannedWord {
  typed: string;
  stem: string;
  alternatives: string[];
}

/**
 * What a query asks the engine: the field, the mode, the analyzed terms and the phrase ranked first;
 * for a forgiving search (`planSearch`) also the engine's `forgiving` and the words it was made of.
 */
export type Match = Pick<PageQuery, 'field' | 'mode' | 'terms' | 'phraseFirst' | 'forgiving'> & { words?: PlannedWord[] };

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

/**
 * Up to this many words, a page that lacks one of them is still found (ranked after those that hold
 * them all); a longer query needs every word (each still by any of its variants).
 */
export const maxForgivenWords = 8;

/**
 * The search a reader's `q` asks for, forgiving what OCR does to print (issue 32; docs/interface.md,
 * "Search"): `matchOf`'s, and, unless it is a phrase, each word may also be found as one of its OCR
 * variants among the indexed terms (lib/search/ocr-variants.ts; one `similarTerms` call), or run
 * together with its neighbour; up to `maxForgivenWords` words, a page may lack one of them (`any`:
 * all but one). Ranked: the words as typed in order; then in order with one slip (a variant, a word
 * left out, two words run together); then every word as typed; then every word; then the rest.
 */
export async function planSearch(engine: Pick<SearchEngine, 'similarTerms'>, q: string | undefined, mode: MatchMode = defaultSearchMode): Promise<Match> {
  const match = matchOf(q, mode);
  if (match.mode === 'phrase') return match;
  const typed = tokens(q!.trim());
  const exact = typed.map((t) => t.term);
  // Each distinct stem once, as first typed.
  const firsts = match.terms.map((s) => typed.find((t) => t.stem === s)!);
  const runs = exact.slice(1).map((term, i) => exact[i]! + term).map((joined, i) => ({ at: i, joined }));
  const keys = [...firsts.flatMap((t) => variantKeys(t.term)), ...runs.filter((r) => isFiled(r.joined)).map((r) => skeleton(r.joined))];
  const similar = keys.length > 0 ? await engine.similarTerms([...new Set(keys)]) : [];
  const found = new Set(similar);
  // Each word measures only the candidates filed under one of its own keys (a query of 32 words would
  // otherwise measure every word against all of up to 2,000 candidates).
  const filedUnder = new Map<string, string[]>();
  for (const term of similar) {
    for (const key of variantKeys(term)) {
      const terms = filedUnder.get(key);
      if (terms) terms.push(term);
      else filedUnder.set(key, [term]);
    }
  }
  const candidatesOf = (term: string) => new Set(variantKeys(term).flatMap((key) => filedUnder.get(key) ?? []));
  const variants = new Map(firsts.map((t) => [t.stem, variantsOf(t.term, candidatesOf(t.term))]));
  const joinedRuns = runs.filter((r) => found.has(r.joined));

  const words = firsts.map((t): PlannedWord => {
    const runsOfWord = joinedRuns.filter((r) => typed[r.at]!.stem === t.stem || typed[r.at + 1]!.stem === t.stem).map((r) => stem(r.joined));
    const alternatives = [...new Set([...variants.get(t.stem)!.map(stem), ...runsOfWord])].filter((s) => s !== t.stem).slice(0, maxAlternatives - 1);
    return { typed: t.end > t.start ? q!.trim().slice(t.start, t.end) : t.term, stem: t.stem, alternatives };
  });
  const n = words.length;
  const minimumWords = match.mode === 'any' ? 1 : n >= 2 && n <= maxForgivenWords ? n - 1 : n;

  // The typed words in order with one slip, for a query of 2 to maxForgivenWords words.
  const near: string[][] = [];
  if (exact.length >= 2 && exact.length <= maxForgivenWords) {
    exact.forEach((term, i) => {
      for (const variant of variants.get(typed[i]!.stem) ?? []) near.push(exact.map((e, j) => (j === i ? variant : e)));
    });
    if (exact.length >= 3) exact.forEach((_, i) => near.push(exact.filter((__, j) => j !== i)));
    for (const r of joinedRuns) near.push([...exact.slice(0, r.at), r.joined, ...exact.slice(r.at + 2)]);
  }
  const nearPhrases = [...new Map(near.map((p) => [p.join(' '), p])).values()].filter((p) => p.join(' ') !== exact.join(' ')).slice(0, maxNearPhrases);
  const forgives = minimumWords < n || nearPhrases.length > 0 || words.some((w) => w.alternatives.length > 0);
  if (!forgives) return match;
  return { ...match, words, forgiving: { words: words.map((w) => [w.stem, ...w.alternatives]), minimumWords, nearPhrases } };
}
