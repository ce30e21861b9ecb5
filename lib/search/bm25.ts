/**
 * Okapi BM25 as FTS5's bm25() computes it (k1 1.2, b 0.75; Lucene's defaults too): a page's score is
 * the sum of one part per term (or phrase) it holds. The SQLite engine's forgiving search and the
 * in-memory engine rank with these, so the two agree to the last bit when they sum in the same order.
 */
export const bm25 = { k1: 1.2, b: 0.75 } as const;

/** A term's idf: ln((N - n + 0.5) / (n + 0.5)), N the pages indexed and n those holding it; 1e-6 when not positive (FTS5's floor). */
export function idf(pages: number, holding: number): number {
  const value = Math.log((pages - holding + 0.5) / (holding + 0.5));
  return value > 0 ? value : 1e-6;
}

/** A page's length against the average, as BM25 weighs it. */
export const lengthNorm = (length: number, averageLength: number): number => 1 - bm25.b + (bm25.b * length) / averageLength;

/** One term's part of a page's score: held `count` times on a page of length norm `norm`. */
export const bm25Part = (termIdf: number, count: number, norm: number): number => (termIdf * count * (bm25.k1 + 1)) / (count + bm25.k1 * norm);
