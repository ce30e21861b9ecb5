import type { Caller } from '../../auth/caller.ts';
import { isStaff, type UserStore } from '../../auth/users.ts';
import { managedBy, readableBy } from '../access.ts';
import { maxLimit } from '../../paging.ts';
import type { SearchEngine } from '../../search/engine.ts';
import { isOcrStatus, type BookText, type BookTextList, type BookTextStore } from '../book-text.ts';
import { listItem } from './list-item.ts';
import type { CatalogueFilter, CatalogueOrder, CatalogueQuery, CatalogueStore, CatalogueView } from './store.ts';

/** Listing digitized books (docs/SPEC.md 4.1 `GET /ocr/books`). */
export interface CatalogueDeps {
  /** Unfiltered first pages, from the table (counted totals, a new book listed at once). */
  catalogue: CatalogueStore;
  /** Every other listing: the search index's listing (lib/search/engine.ts), exact totals in one call. */
  listing: Pick<SearchEngine, 'listBooks'>;
  bookTexts: Pick<BookTextStore, 'getMany'>;
  users: UserStore;
}

/**
 * How far into an unfiltered listing the table serves: one Query page of each source, so its cost is
 * the same whatever the catalogue's size. Deeper pages, and every filtered listing, come from the
 * index, whose one call costs the same at 1,000 books as at 100,000 (issue 17, docs/data-model.md "The catalogue").
 */
export const tableWindow = maxLimit;

/** docs/SPEC.md 4.1's `sort` values; any other reads as `date_desc`. */
export const catalogueSorts = ['date_asc', 'date_desc', 'name_asc', 'name_desc', 'pages_asc', 'pages_desc'] as const;
export type CatalogueSort = (typeof catalogueSorts)[number];
export const defaultCatalogueSort: CatalogueSort = 'date_desc';

/** What each `sort` orders by, and which way. */
export const catalogueSortOrders: Record<CatalogueSort, { order: CatalogueOrder; descending: boolean }> = {
  date_asc: { order: 'date', descending: false },
  date_desc: { order: 'date', descending: true },
  name_asc: { order: 'name', descending: false },
  name_desc: { order: 'name', descending: true },
  pages_asc: { order: 'pages', descending: false },
  pages_desc: { order: 'pages', descending: true },
};

/**
 * `GET /ocr/books`'s query as its contract reads it (functions/ocr-api/contract.ts): `status` as sent,
 * `tags` and `categories` split on commas (a repeated parameter reaches the function joined by commas).
 */
export interface CatalogueListing {
  status?: string;
  language?: string;
  sort?: CatalogueSort;
  tags: string[];
  categories: string[];
  limit: number;
  offset: number;
}

/** Anonymous callers see public books, members public books and their own, editors and admins all. */
export function catalogueView(caller: Caller): CatalogueView {
  if (caller.kind !== 'user') return { kind: 'public' };
  return isStaff(caller.user) ? { kind: 'all' } : { kind: 'publicAndOwn', ownerId: caller.user.userId };
}

const isFiltered = (f: CatalogueFilter) => Boolean(f.status || f.language || f.tags.length || f.categories.length);

/** Whether a stored BookText passes the filter now (the index may lag behind a change). */
const passes = (b: BookText, f: CatalogueFilter) =>
  (!f.status || b.status === f.status) &&
  (!f.language || b.language === f.language) &&
  (!f.tags.length || f.tags.some((tag) => b.tags.includes(tag))) &&
  (!f.categories.length || f.categories.some((category) => b.categories.includes(category)));

/**
 * A window of the index's listing, each book read from the table (one BatchGetItem): a book the
 * caller may no longer see, or that no longer passes the filter, is left out, and the total less the
 * books left out, as search does (lib/search/search.ts).
 */
async function fromIndex(deps: CatalogueDeps, caller: Caller, query: CatalogueQuery & { filter: CatalogueFilter }): Promise<BookTextList> {
  const found = await deps.listing.listBooks(query);
  const stored = await deps.bookTexts.getMany(found.bookTextIds);
  const items = found.bookTextIds.flatMap((id) => {
    const bookText = stored.get(id);
    return bookText && readableBy(caller, bookText) && passes(bookText, query.filter) ? [bookText] : [];
  });
  return { total: Math.max(0, found.total - (found.bookTextIds.length - items.length)), items };
}

/**
 * A first page from the table: its total is the counters'. The table's indexes are eventually
 * consistent too, so a book made private a moment ago is left out here as well.
 */
async function fromTable(deps: CatalogueDeps, caller: Caller, query: CatalogueQuery): Promise<BookTextList> {
  const { total, items } = await deps.catalogue.list(query);
  return { total, items: items.filter((bookText) => readableBy(caller, bookText)) };
}

export async function listCatalogue(deps: CatalogueDeps, caller: Caller, query: CatalogueListing) {
  const { status, language, tags, categories, limit, offset } = query;
  // No book has a status outside the five, so nothing matches it.
  if (status !== undefined && !isOcrStatus(status)) return { success: true, total: 0, limit, offset, books: [] };

  const filter: CatalogueFilter = { status, language, tags, categories };
  const listing: CatalogueQuery = { view: catalogueView(caller), ...catalogueSortOrders[query.sort ?? defaultCatalogueSort], limit, offset };
  const { total, items } =
    isFiltered(filter) || offset + limit > tableWindow ? await fromIndex(deps, caller, { ...listing, filter }) : await fromTable(deps, caller, listing);
  const [files, owners] = await Promise.all([deps.catalogue.getFiles(items.map((b) => b.fileId)), deps.users.getMany(items.map((b) => b.userId))]);
  return {
    success: true,
    total,
    limit,
    offset,
    books: items.map((bookText) => listItem(bookText, files.get(bookText.fileId), owners.get(bookText.userId), managedBy(caller, bookText))),
  };
}
