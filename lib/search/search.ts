import type { Caller } from '../auth/caller.ts';
import { findReadableBookText, readableBy } from '../ocr/access.ts';
import type { BookText, BookTextStore } from '../ocr/book-text.ts';
import { catalogueView } from '../ocr/catalogue/listing.ts';
import type { PageStore } from '../ocr/pages/store.ts';
import type { MatchMode, PageHit, SearchEngine } from './engine.ts';
import { matchOf, type Match } from './query.ts';
import { matcherFor, snippet, snippetBudgetChars } from './snippet.ts';

/**
 * Full-text search of digitized books (issue 17; docs/interface.md, "Search"): the engine finds and counts the
 * pages, the table decides what is shown. Each hit's BookText is read from the table and shown only
 * if the caller may read it now (a book made private is gone from its results at once, before the
 * index has caught up), and its snippet is made from the page as stored. One engine query and at most
 * two batch reads of 100 items per request.
 */
export interface SearchDeps {
  engine: SearchEngine;
  bookTexts: Pick<BookTextStore, 'get' | 'getMany'>;
  pages: Pick<PageStore, 'pagesAt'>;
}

/** The query of both search routes as their contracts read it (functions/search-api/contract.ts). */
export interface Searching {
  q?: string;
  mode?: MatchMode;
  limit: number;
  offset: number;
}

/**
 * The snippets of the hits, from their pages as stored; a page no longer stored gives an empty one.
 * One budget for the request's pages (snippet.ts), and the process is let go between pages, so
 * other requests are served while a long listing's snippets are made.
 */
async function snippets(deps: SearchDeps, hits: PageHit[], match: Match): Promise<Map<string, string>> {
  const key = (h: PageHit) => `${h.bookTextId}#${h.pageNumber}`;
  const pages = await deps.pages.pagesAt(hits);
  const matches = matcherFor(match.field, match.terms);
  const budget = { chars: snippetBudgetChars };
  const made = new Map<string, string>();
  for (const page of pages) {
    made.set(key(page), snippet(page.text, matches, {}, budget));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return made;
}

const snippetOf = (all: Map<string, string>, hit: PageHit) => all.get(`${hit.bookTextId}#${hit.pageNumber}`) ?? '';

/** `GET /ocr/search`: pages of the books the caller may list (the visibility rules of `GET /ocr/books`). */
export async function searchCatalogue(deps: SearchDeps, caller: Caller, query: Searching & { language?: string }) {
  const match = matchOf(query.q, query.mode);
  const { limit, offset, language } = query;
  const found = await deps.engine.search({ ...match, view: catalogueView(caller), language, limit, offset });
  const bookTexts = await deps.bookTexts.getMany([...new Set(found.hits.map((h) => h.bookTextId))]);
  const readable = (b: BookText | undefined): b is BookText => b !== undefined && readableBy(caller, b);
  const shown = found.hits.filter((h) => readable(bookTexts.get(h.bookTextId)));
  const texts = await snippets(deps, shown, match);
  return {
    success: true,
    // The engine's count, less the hits of this window that the table no longer shows this caller.
    total: Math.max(0, found.total - (found.hits.length - shown.length)),
    limit,
    offset,
    hits: shown.map((h) => {
      const bookText = bookTexts.get(h.bookTextId)!;
      return { bookTextId: h.bookTextId, fileName: bookText.fileName, language: bookText.language, pageNumber: h.pageNumber, snippet: snippetOf(texts, h) };
    }),
  };
}

/** `GET /ocr/books/:bookTextId/search`: pages of one book, readable as `GET /ocr/books/:bookTextId` is. */
export async function searchBookText(deps: SearchDeps, caller: Caller, bookTextId: string | undefined, query: Searching) {
  const match = matchOf(query.q, query.mode);
  const bookText = await findReadableBookText(deps.bookTexts, caller, bookTextId);
  const { limit, offset } = query;
  const found = await deps.engine.search({ ...match, bookTextId: bookText.bookTextId, view: { kind: 'all' }, limit, offset });
  const texts = await snippets(deps, found.hits, match);
  return {
    success: true,
    bookTextId: bookText.bookTextId,
    total: found.total,
    limit,
    offset,
    hits: found.hits.map((h) => ({ pageNumber: h.pageNumber, snippet: snippetOf(texts, h) })),
  };
}
