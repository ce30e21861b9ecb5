import { badRequest } from './errors.ts';

/**
 * How paging values are read from query strings, and every paging maximum, shared by every list
 * endpoint (the routes' query schemas apply them: functions/_shared/contract/shapes.ts).
 * docs/SPEC.md 8 gives defaults and leaves the maxima open ("not shown"); these are ours (docs/decisions.md):
 * - a value that is not a whole number (`1e3`, `-5`, `1.5`, empty) takes the spec's default, as before;
 * - a page size past `maxLimit` is read as `maxLimit` (the answer echoes the size used);
 * - a position past `maxOffset` is a 400 naming the maximum, like Elasticsearch's result window:
 *   clamping it would hand a client paging to the end the same page for ever.
 */

/** The most entries one page holds. */
export const maxLimit = 100;
/** The furthest position a listing can start at: no request reads past `maxOffset + maxLimit` entries of a list. */
export const maxOffset = 10_000;
/** The most index entries one list request reads from one source (the listing window). */
export const maxWindow = maxOffset + maxLimit;
/** The most pages one book read returns (`pageLimit`): one answer stays well inside a Lambda response. */
export const maxPageLimit = 200;
/** docs/SPEC.md 8: list pages (`limit`) hold 20 entries unless asked otherwise, a book read (`pageLimit`) 50 pages. */
export const defaultListLimit = 20;
export const defaultPageLimit = 50;

/**
 * A whole number of at least `min` from a query value, else the default (as the spec's defaults
 * apply). Only digits count; a number too long for a double reads as the largest double, a whole
 * number past every maximum.
 */
export function queryInt(value: string | undefined, fallback: number, min: number): number {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return fallback;
  const n = Math.min(Number(value), Number.MAX_VALUE);
  return n >= min ? n : fallback;
}

/** A 1-based `page` of `limit` entries must start inside the window, else a 400. */
export function checkPage({ page, limit }: { page: number; limit: number }): void {
  const lastPage = Math.floor(maxOffset / limit) + 1;
  if (page > lastPage) throw badRequest(`page must be at most ${lastPage} for limit ${limit}`);
}
