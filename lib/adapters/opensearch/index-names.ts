/**
 * The OpenSearch indexes of one configured name (SEARCH_INDEX, lib/config.ts): the index of pages
 * under that name, the catalogue listing's index beside it, and the index of filed terms (the
 * vocabulary of similar terms, issue 32). Shared by the adapter (search-engine.ts) and the grants
 * that name each index (infra/permissions.ts).
 */

/** The catalogue listing's index: `pages` -> `pages-books`. */
export const booksIndexOf = (pagesIndex: string): string => `${pagesIndex}-books`;

/** The index of filed terms (engine.ts `similarTerms`): `pages` -> `pages-terms`. */
export const termsIndexOf = (pagesIndex: string): string => `${pagesIndex}-terms`;
