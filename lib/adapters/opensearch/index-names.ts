/**
 * The OpenSearch indexes of one configured name (SEARCH_INDEX, lib/config.ts): the index of pages
 * under that name, and the catalogue listing's index beside it. Shared by the adapter
 * (search-engine.ts) and the grants that name each index (infra/permissions.ts).
 */

/** The catalogue listing's index: `pages` -> `pages-books`. */
export const booksIndexOf = (pagesIndex: string): string => `${pagesIndex}-books`;
