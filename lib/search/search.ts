import type { Caller } from '../auth/caller.ts';
import { findReadableBookText, readableBy } from '../ocr/access.ts';
import type { BookText, BookTextStore } from '../ocr/book-text.ts';
import { catalogueView } from '../ocr/catalogue/listing.ts';
import type { PageStore } from '../ocr/pages/store.ts';
import type { MatchMode, PageHit, SearchEngine } from './engine.ts';
import { matchOf, planSearch, type Match, type PlannedWord } from './query.ts';
import { matchedWords, matcherFor, snippet, snippetBudgetChars, type Matcher } from './snippet.ts';

/**
 * Full-text search of digitized books (issue 17; docs/interface.md, "Search"): the engine finds and counts the
 * pages, the table decides what is shown. Each hit's BookText is read from the table and shown only
 * if the caller may read it now (a book made private is gone from its results at once, before the
 * index has caught up), and its snippet is made from the page as stored. Two engine calls (the words'
 * similar terms, the query) and at most two batch reads of 100 items per request.
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
 * What a hit of a forgiving search holds otherwise than typed (docs/interface.md, "Search"): the words
 * found only as a variant (the first such word of the page, as written there), and those not on it.
 * Absent when the page holds every word as typed (in any of its inflections).
 */
export interface Forgiven {
  approximate: { word: string; found: string }[];
  missing: string[];
}

/** How a page holds a forgiving search's words, from its matching words (snippet.ts `matchedWords`). */
function forgivenOn(text: string, words: PlannedWord[], matches: Matcher): Forgiven | undefined {
  const found = matchedWords(text, matches);
  const approximate: Forgiven['approximate'] = [];
  const missing: string[] = [];
  for (const word of words) {
    if (found.some((t) => t.stem === word.stem)) continue;
    const other = found.find((t) => word.alternatives.includes(t.stem));
    if (other) approximate.push({ word: word.typed, found: text.slice(other.start, other.end) });
    else missing.push(word.typed);
  }
  return approximate.length > 0 || missing.length > 0 ? { approximate, missing } : undefined;
}

interface Shown {
  snippet: string;
  forgiven?: Forgiven;
}

/**
 * The snippets of the hits, from their pages as stored (a page no longer stored gives an empty one),
 * each marking the words as typed and as found; for a forgiving search, what each page forgave. One
 * budget for the request's pages (snippet.ts), and the process is let go between pages, so other
 * requests are served while a long listing's snippets are made.
 */
async function shown(deps: SearchDeps, hits: PageHit[], match: Match): Promise<Map<string, Shown>> {
  const key = (h: PageHit) => `${h.bookTextId}#${h.pageNumber}`;
  const pages = await deps.pages.pagesAt(hits);
  const matches = matcherFor(match.field, [...new Set([...match.terms, ...(match.words ?? []).flatMap((w) => w.alternatives)])]);
  const budget = { chars: snippetBudgetChars };
  const made = new Map<string, Shown>();
  for (const page of pages) {
    const forgiven = match.words && forgivenOn(page.text, match.words, matches);
    made.set(key(page), { snippet: snippet(page.text, matches, {}, budget), ...(forgiven ? { forgiven } : {}) });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return made;
}

/** What the engine is asked: the match without the planner's words. */
const engineQuery = ({ words: _words, ...query }: Match) => query;

const shownOf = (all: Map<string, Shown>, hit: PageHit): Shown => all.get(`${hit.bookTextId}#${hit.pageNumber}`) ?? { snippet: '' };

/** `GET /ocr/search`: pages of the books the caller may list (the visibility rules of `GET /ocr/books`). */
export async function searchCatalogue(deps: SearchDeps, caller: Caller, query: Searching & { language?: string }) {
  const match = await planSearch(deps.engine, query.q, query.mode);
  const { limit, offset, language } = query;
  const found = await deps.engine.search({ ...engineQuery(match), view: catalogueView(caller), language, limit, offset });
  const bookTexts = await deps.bookTexts.getMany([...new Set(found.hits.map((h) => h.bookTextId))]);
  const readable = (b: BookText | undefined): b is BookText => b !== undefined && readableBy(caller, b);
  const visible = found.hits.filter((h) => readable(bookTexts.get(h.bookTextId)));
  const pages = await shown(deps, visible, match);
  return {
    success: true,
    // The engine's count, less the hits of this window that the table no longer shows this caller.
    total: Math.max(0, found.total - (found.hits.length - visible.length)),
    limit,
    offset,
    hits: visible.map((h) => {
      const bookText = bookTexts.get(h.bookTextId)!;
      return { bookTextId: h.bookTextId, fileName: bookText.fileName, language: bookText.language, pageNumber: h.pageNumber, ...shownOf(pages, h) };
    }),
  };
}

/** `GET /ocr/books/:bookTextId/search`: pages of one book, readable as `GET /ocr/books/:bookTextId` is. */
export async function searchBookText(deps: SearchDeps, caller: Caller, bookTextId: string | undefined, query: Searching) {
  matchOf(query.q, query.mode); // a bad query is refused before the book is looked for
  const bookText = await findReadableBookText(deps.bookTexts, caller, bookTextId);
  const match = await planSearch(deps.engine, query.q, query.mode);
  const { limit, offset } = query;
  const found = await deps.engine.search({ ...engineQuery(match), bookTextId: bookText.bookTextId, view: { kind: 'all' }, limit, offset });
  const pages = await shown(deps, found.hits, match);
  return {
    success: true,
    bookTextId: bookText.bookTextId,
    total: found.total,
    limit,
    offset,
    hits: found.hits.map((h) => ({ pageNumber: h.pageNumber, ...shownOf(pages, h) })),
  };
}
