import type { Caller } from '../../auth/caller.ts';
import { isStaff, type UserStore } from '../../auth/users.ts';
import { managedBy } from '../access.ts';
import { isOcrStatus } from '../book-text.ts';
import { listItem } from './list-item.ts';
import type { CatalogueOrder, CatalogueStore, CatalogueView } from './store.ts';

/** Listing digitized books (SPEC.md 4.1 `GET /ocr/books`). */
export interface CatalogueDeps {
  catalogue: CatalogueStore;
  users: UserStore;
}

/** SPEC.md 4.1's `sort` values; any other reads as `date_desc`. */
export const catalogueSorts = ['date_asc', 'date_desc', 'name_asc', 'name_desc', 'pages_asc', 'pages_desc'] as const;
export type CatalogueSort = (typeof catalogueSorts)[number];
export const defaultCatalogueSort: CatalogueSort = 'date_desc';

const sorts: Record<CatalogueSort, { order: CatalogueOrder; descending: boolean }> = {
  date_asc: { order: 'date', descending: false },
  date_desc: { order: 'date', descending: true },
  name_asc: { order: 'name', descending: false },
  name_desc: { order: 'name', descending: true },
  pages_asc: { order: 'pages', descending: false },
  pages_desc: { order: 'pages', descending: true },
};

/**
 * `GET /ocr/books`'s query as its contract reads it (functions/api/ocr-api.ts): `status` as sent,
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
  if (caller.kind === 'anonymous') return { kind: 'public' };
  return isStaff(caller.user) ? { kind: 'all' } : { kind: 'publicAndOwn', ownerId: caller.user.userId };
}

export async function listCatalogue(deps: CatalogueDeps, caller: Caller, query: CatalogueListing) {
  const { status, language, tags, categories, limit, offset } = query;
  // No book has a status outside the five, so nothing matches it.
  if (status !== undefined && !isOcrStatus(status)) return { success: true, total: 0, limit, offset, books: [] };

  const { total, items } = await deps.catalogue.list({
    view: catalogueView(caller),
    ...sorts[query.sort ?? defaultCatalogueSort],
    filter: { status, language, tags, categories },
    limit,
    offset,
  });
  // The indexes are eventually consistent: a book made private a moment ago must not be shown.
  const visible = items.filter((bookText) => bookText.visibility === 'public' || managedBy(caller, bookText));
  const [files, owners] = await Promise.all([deps.catalogue.getFiles(visible.map((b) => b.fileId)), deps.users.getMany(visible.map((b) => b.userId))]);
  return {
    success: true,
    total,
    limit,
    offset,
    books: visible.map((bookText) => listItem(bookText, files.get(bookText.fileId), owners.get(bookText.userId), managedBy(caller, bookText))),
  };
}
