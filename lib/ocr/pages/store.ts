import type { BookTextPage, PageFields } from './page.ts';

/** A page change that keeps the page's other fields (PATCH with `pages` as an object). */
export interface PageChange extends PageFields {
  pageId: string;
  pageNumber: number;
}

/** A BookText's pages (docs/SPEC.md 2.3), each its own item. */
export interface PageStore {
  /** Each page is replaced whole: pages never share an item or a write. */
  putPages(pages: BookTextPage[]): Promise<void>;
  /** All of a BookText's pages, in page order. */
  pages(bookTextId: string): Promise<BookTextPage[]>;
  /** The pages named, read together (at most 100); a missing page is absent from the answer. */
  pagesAt(pages: readonly { bookTextId: string; pageNumber: number }[]): Promise<BookTextPage[]>;
  /** Pages `offset` .. `offset + limit` in page order, and how many pages the book has. */
  pageWindow(bookTextId: string, offset: number, limit: number): Promise<{ total: number; pages: BookTextPage[] }>;
  /** Changes only the given fields of each page; a missing page is created with the defaults. */
  updatePages(bookTextId: string, changes: PageChange[], at: string): Promise<void>;
}
