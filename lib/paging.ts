import { badRequest } from './errors.ts';

/**
 * Paging parameters from query strings, and every paging maximum, shared by every list endpoint.
 * SPEC.md 8 gives defaults and leaves the maxima open ("not shown"); these are ours (README, Choices):
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

type Query = Record<string, string | undefined>;

/**
 * A whole number of at least `min` from a query value, else the default (as the spec's defaults
 * apply). Only digits count; a number too long for a double reads as Infinity, past every maximum.
 */
export function queryInt(value: string | undefined, fallback: number, min: number): number {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return fallback;
  const n = Number(value);
  return n >= min ? n : fallback;
}

/** A page size: 1..`max`, default `fallback`. */
export const queryLimit = (value: string | undefined, fallback: number, max = maxLimit): number => Math.min(queryInt(value, fallback, 1), max);

/** A position: 0..maxOffset, default 0; past the window a 400 that names the parameter and the maximum. */
export function queryOffset(value: string | undefined, name = 'offset'): number {
  const n = queryInt(value, 0, 0);
  if (n > maxOffset) throw badRequest(`${name} must be at most ${maxOffset}`);
  return n;
}

/** `limit` (1..maxLimit, default `defaultLimit`) and `offset` (0..maxOffset, default 0). */
export function limitOffset(query: Query, defaultLimit = 20) {
  return { limit: queryLimit(query.limit, defaultLimit), offset: queryOffset(query.offset) };
}

/** A 1-based `page` of `limit` entries must start inside the window, else a 400. */
export function checkPage({ page, limit }: { page: number; limit: number }): void {
  const lastPage = Math.floor(maxOffset / limit) + 1;
  if (page > lastPage) throw badRequest(`page must be at most ${lastPage} for limit ${limit}`);
}

/** A book read's page window (SPEC.md 4.1): `pageLimit` (1..maxPageLimit, default 50), `pageOffset` (0..maxOffset, default 0). */
export function pageWindow(query: Query) {
  return { pageLimit: queryLimit(query.pageLimit, 50, maxPageLimit), pageOffset: queryOffset(query.pageOffset, 'pageOffset') };
}
