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
  /**
   * How well the confidence orders the pages by their errors, whatever their spread: Spearman's rank
   * correlation of confidence with errors, negated (1: the less confident, the more errors, on every
   * pair; 0: no relation). Ties take their mean rank.
   */
  rankCorrelation: number;
}

/** Each value's rank from 0 (ties: the mean of their ranks). */
function ranks(values: readonly number[]): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const result = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.v === order[start]!.v) end++;
    for (let k = start; k <= end; k++) result[order[k]!.i] = (start + end) / 2;
    start = end + 1;
  }
  return result;
}

/** Pearson's correlation of two rank lists (Spearman's rho with ties); 0 when either is constant. */
function rankPearson(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / n;
  const [ma, mb] = [mean(a), mean(b)];
  let [ab, aa, bb] = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    ab += (a[i]! - ma) * (b[i]! - mb);
    aa += (a[i]! - ma) ** 2;
    bb += (b[i]! - mb) ** 2;
  }
  return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb);
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
  const rankCorrelation = -rankPearson(ranks(ranked.map((p) => p.confidence)), ranks(ranked.map((p) => p.errors)));
  return { pages: ranked.length, tenth, errors, tenthErrors, share: of(tenthErrors), bestShare: of(mostErrors), rankCorrelation: rankCorrelation === 0 ? 0 : rankCorrelation };
}
