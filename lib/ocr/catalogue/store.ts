import type { BookTextList, FileRecord, OcrStatus } from '../book-text.ts';

/** Whose books a listing shows (SPEC.md 4.1 `GET /ocr/books`). */
export type CatalogueView = { kind: 'public' } | { kind: 'all' } | { kind: 'publicAndOwn'; ownerId: string };
export type CatalogueOrder = 'date' | 'name' | 'pages';

export interface CatalogueFilter {
  status?: OcrStatus;
  language?: string;
  /** Any of them matches. */
  tags: string[];
  categories: string[];
}

export interface CatalogueQuery {
  view: CatalogueView;
  order: CatalogueOrder;
  descending: boolean;
  filter: CatalogueFilter;
  limit: number;
  offset: number;
}

/** The book listing (SPEC.md 4.1 `GET /ocr/books`). */
export interface CatalogueStore {
  /** One page of the catalogue and the size of the whole (filtered) listing. */
  list(query: CatalogueQuery): Promise<BookTextList>;
  /** Files by id; missing ids are absent from the map. */
  getFiles(fileIds: readonly string[]): Promise<Map<string, FileRecord>>;
}
