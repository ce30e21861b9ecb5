import type { BookText } from '../book-text.ts';
import { legacyPages, readingOf, type UncertainRange } from './page.ts';
import type { PageStore } from './store.ts';

/** A page as the job text and the Word export show it (docs/SPEC.md 2.3). */
export interface PageView {
  _id: string;
  pageNumber: number;
  text: string;
  storageKey: string | null;
  isAIGenerated: boolean;
  /** Added by this service (docs/interface.md, "Confidence"). */
  confidence: number | null;
  uncertain: UncertainRange[];
}

/** Page records in page order, else the legacy pages embedded in old records (docs/SPEC.md 2.3). */
export async function pagesOf(deps: { pages: Pick<PageStore, 'pages'> }, bookText: BookText): Promise<PageView[]> {
  const pages = await deps.pages.pages(bookText.bookTextId);
  const inOrder = pages.length ? pages : legacyPages(bookText.bookTextId, bookText.pages);
  return inOrder.map((p) => ({ _id: p.pageId, pageNumber: p.pageNumber, text: p.text, storageKey: p.storageKey, isAIGenerated: p.isAIGenerated, ...readingOf(p) }));
}
