import type { PageConfidence } from './store.ts';

/**
 * The orders a book read can show its pages in (`GET /ocr/books/:bookTextId`'s `pageOrder`): page
 * number, or the least confident first, so that a proofreader starts where the engine was least sure.
 */
export const pageOrders = ['number', 'confidence'] as const;
export type PageOrder = (typeof pageOrders)[number];
export const defaultPageOrder: PageOrder = 'number';

/** Least confident first; pages without a confidence (a text layer, an external worker's) last; ties in page order. */
export function byConfidence(pages: readonly PageConfidence[]): PageConfidence[] {
  const rank = (p: PageConfidence) => p.confidence ?? Number.POSITIVE_INFINITY;
  return [...pages].sort((a, b) => rank(a) - rank(b) || a.pageNumber - b.pageNumber);
}
