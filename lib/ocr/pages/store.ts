import { pageDefaults, type BookTextPage, type PageFields } from './page.ts';

/** A page change that keeps the page's other fields (PATCH with `pages` as an object). */
export interface PageChange extends PageFields {
  pageId: string;
  pageNumber: number;
}

/**
 * The page as a change leaves it: the change's fields over the stored page's (a new page's defaults where there is none), written at `at`.
 * A change that sends the text drops the uncertain words, which indexed the engine's text (docs/interface.md, "Confidence"); the confidence stays.
 */
export function changedPage(bookTextId: string, stored: BookTextPage | undefined, c: PageChange, at: string): BookTextPage {
  const keptUncertain = c.text === undefined && stored?.uncertain?.length ? { uncertain: stored.uncertain } : {};
  return {
    pageId: stored?.pageId ?? c.pageId,
    bookTextId,
    pageNumber: c.pageNumber,
    text: c.text ?? stored?.text ?? pageDefaults.text,
    storageKey: c.storageKey !== undefined ? c.storageKey : (stored?.storageKey ?? pageDefaults.storageKey),
    isAIGenerated: c.isAIGenerated ?? stored?.isAIGenerated ?? pageDefaults.isAIGenerated,
    ...(typeof stored?.confidence === 'number' && { confidence: stored.confidence }),
    ...keptUncertain,
    updatedAt: at,
  };
}

/** A page's number and confidence: what ordering a book's pages by confidence reads. */
export interface PageConfidence {
  pageNumber: number;
  confidence: number | null;
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
  /** Every page's number and confidence (null when it has none), in page order: a projection, not the texts. */
  confidences(bookTextId: string): Promise<PageConfidence[]>;
  /** Changes only the given fields of each page; a missing page is created with the defaults. A change that sends the text drops the uncertain words. */
  updatePages(bookTextId: string, changes: PageChange[], at: string): Promise<void>;
}
