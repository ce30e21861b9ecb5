import type { BookTextList, FileRecord, OcrStatus } from '../book-text.ts';

/** Whose books a listing shows (docs/SPEC.md 4.1 `GET /ocr/books`). */
export type CatalogueView = { kind: 'public' } | { kind: 'all' } | { kind: 'publicAndOwn'; ownerId: string };
export type CatalogueOrder = 'date' | 'name' | 'pages';

/** A listing's filter (any filter is served by the search index's listing: listing.ts). */
export interface CatalogueFilter {
  status?: OcrStatus;
  language?: string;
  /** Any of them matches. */
  tags: string[];
  categories: string[];
}

/** An unfiltered listing window. */
export interface CatalogueQuery {
  view: CatalogueView;
  order: CatalogueOrder;
  descending: boolean;
  limit: number;
  offset: number;
}

/** The book listing (docs/SPEC.md 4.1 `GET /ocr/books`) as the table keeps it. */
export interface CatalogueStore {
  /** One window of the unfiltered catalogue, and the size of the whole (the view's counters). */
  list(query: CatalogueQuery): Promise<BookTextList>;
  /** Files by id; missing ids are absent from the map. */
  getFiles(fileIds: readonly string[]): Promise<Map<string, FileRecord>>;
}
