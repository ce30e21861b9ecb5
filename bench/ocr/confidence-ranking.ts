import { editDistance, normalizeForCer } from '../../ocr-worker/text/cer.ts';

/**
 * Does the page confidence tell a proofreader where to look (issue 33)? Pages sorted by the worker's
 * page confidence, least first: the share of all character errors (edit distance, with diacritics)
 * that the least confident tenth of the pages holds. A tenth is rounded down, at least one page: with
 * 18 pages, one. Ties keep the pages' order. Pages without a confidence (a text layer) are left out.
 */
export interface RankedPage {
  confidence: number | undefined;
  reference: string;
  hypothesis: string;
}

export interface ConfidenceRanking {
  pages: number;
  /** Pages in the least confident tenth. */
  tenth: number;
  errors: number;
  tenthErrors: number;
  /** tenthErrors ÷ errors; 0 when there are no errors. */
  share: number;
  /**
   * The share the tenth of the pages with the most errors holds: what a perfect ranking reaches. On
   * pages damaged alike it is far under a third, and no confidence can meet the target there.
   */
  bestShare: number;
}

export const pageErrors = (reference: string, hypothesis: string): number => editDistance(normalizeForCer(reference), normalizeForCer(hypothesis));

export function confidenceRanking(pages: readonly RankedPage[], fraction = 0.1): ConfidenceRanking {
  const ranked = pages
    .filter((p): p is RankedPage & { confidence: number } => p.confidence !== undefined)
    .map((p) => ({ confidence: p.confidence, errors: pageErrors(p.reference, p.hypothesis) }))
    .sort((a, b) => a.confidence - b.confidence);
  const tenth = Math.min(ranked.length, Math.max(1, Math.floor(ranked.length * fraction)));
  const errors = ranked.reduce((n, p) => n + p.errors, 0);
  const tenthErrors = ranked.slice(0, tenth).reduce((n, p) => n + p.errors, 0);
  const mostErrors = ranked
    .map((p) => p.errors)
    .sort((a, b) => b - a)
    .slice(0, tenth)
    .reduce((n, e) => n + e, 0);
  const of = (n: number) => (errors === 0 ? 0 : n / errors);
  return { pages: ranked.length, tenth, errors, tenthErrors, share: of(tenthErrors), bestShare: of(mostErrors) };
}
