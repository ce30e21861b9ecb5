/** Paging parameters from query strings, shared by every list endpoint. */

/** The spec sets no maximum page size; one page is at most this many, so a request stays bounded. */
export const maxLimit = 100;

/** A whole number of at least `min` from a query value, else the default (as the spec's defaults apply). */
export function queryInt(value: string | undefined, fallback: number, min: number): number {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return fallback;
  const n = Number(value);
  return n >= min ? n : fallback;
}

/** `limit` (1..maxLimit, default `defaultLimit`) and `offset` (0 and up, default 0). */
export function limitOffset(query: Record<string, string | undefined>, defaultLimit = 20) {
  return { limit: Math.min(queryInt(query.limit, defaultLimit, 1), maxLimit), offset: queryInt(query.offset, 0, 0) };
}
