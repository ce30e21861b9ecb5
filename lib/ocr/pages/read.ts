import type { Caller } from '../../auth/caller.ts';
import type { UserStore } from '../../auth/users.ts';
import { logger } from '../../log.ts';
import type { Objects } from '../../objects.ts';
import { findReadableBookText, managedBy } from '../access.ts';
import { metadataView, type BookText, type BookTextStore } from '../book-text.ts';
import { identity, privateFields } from '../book-view.ts';
import { fullText } from '../text-storage.ts';
import { isOwnImage, legacyPages, pageImagePrefix, readingOf, type BookTextPage } from './page.ts';
import { byConfidence, type PageOrder } from './page-order.ts';
import type { PageStore } from './store.ts';

/** Reading one digitized book (docs/SPEC.md 4.1 `GET /ocr/books/:bookTextId`). */
export interface BookReadDeps {
  bookTexts: BookTextStore;
  pages: PageStore;
  users: UserStore;
  uploads: Objects;
}

/** Page images are linked for an hour (docs/SPEC.md section 8). */
export const imageUrlSeconds = 3600;

/**
 * Signed URLs for a window's page images, of this book only (`isOwnImage`): the worker's images under
 * one grant for the job's prefix, the book's own upload alone; null for none, a foreign key, or a
 * failed signing (docs/SPEC.md 4.1).
 */
async function imageUrls(uploads: Objects, keys: readonly (string | null)[], bookText: BookText, upload: string | null | undefined): Promise<(string | null)[]> {
  const shown = keys.map((key) => (isOwnImage(key, bookText, upload) ? key! : null));
  const prefix = pageImagePrefix(bookText.jobId);
  const distinct = [...new Set(shown.filter((key) => key !== null))];
  const underJob = distinct.filter((key) => key.startsWith(prefix));
  const urls = new Map<string, string>();
  const signing = async (what: string[], sign: () => Promise<string[]>) => {
    try {
      (await sign()).forEach((url, i) => urls.set(what[i]!, url));
    } catch (error) {
      logger.warn('Signing page image URLs failed', { storageKeys: what.slice(0, 3), error: error as Error });
    }
  };
  await signing(underJob, () => uploads.presignGetAll(prefix, underJob, imageUrlSeconds));
  for (const key of distinct.filter((k) => !k.startsWith(prefix))) await signing([key], async () => [await uploads.presignGet(key, imageUrlSeconds)]);
  return shown.map((key) => (key === null ? null : (urls.get(key) ?? null)));
}

type Window = { total: number; pages: Omit<BookTextPage, 'updatedAt'>[] };

/** A window of the book's pages in page order; old books without page records use their embedded pages. */
async function pageWindow(pages: PageStore, bookText: BookText, offset: number, limit: number): Promise<Window> {
  const window = await pages.pageWindow(bookText.bookTextId, offset, limit);
  if (window.total > 0 || !bookText.pages?.length) return window;
  const legacy = legacyPages(bookText.bookTextId, bookText.pages);
  return { total: legacy.length, pages: legacy.slice(offset, offset + limit) };
}

/**
 * A window of the pages least confident first (`byConfidence`): every page's confidence is read (a
 * projection, not the texts), then only the window's pages. Old books' embedded pages have no confidence: page order.
 */
async function confidenceWindow(pages: PageStore, bookText: BookText, offset: number, limit: number): Promise<Window> {
  const order = byConfidence(await pages.confidences(bookText.bookTextId));
  if (order.length === 0) return pageWindow(pages, bookText, offset, limit);
  const wanted = order.slice(offset, offset + limit).map((p) => p.pageNumber);
  const found = new Map((await pages.pagesAt(wanted.map((pageNumber) => ({ bookTextId: bookText.bookTextId, pageNumber })))).map((p) => [p.pageNumber, p]));
  // A page deleted between the two reads is left out.
  return { total: order.length, pages: wanted.flatMap((n) => (found.has(n) ? [found.get(n)!] : [])) };
}

/** `GET /ocr/books/:bookTextId`'s query as its contract reads it (functions/ocr-api/contract.ts). */
export interface BookReading {
  pageLimit: number;
  pageOffset: number;
  includeText: boolean;
  /** `number` (default) or `confidence`: the least confident pages first. */
  pageOrder?: PageOrder;
}

export async function readBookText(deps: BookReadDeps, caller: Caller, bookTextId: string | undefined, { pageLimit, pageOffset, includeText, pageOrder }: BookReading) {
  const bookText = await findReadableBookText(deps.bookTexts, caller, bookTextId);
  const manager = managedBy(caller, bookText);

  const [file, owner, window, extractedText] = await Promise.all([
    deps.bookTexts.getFile(bookText.fileId),
    deps.users.get(bookText.userId),
    (pageOrder === 'confidence' ? confidenceWindow : pageWindow)(deps.pages, bookText, pageOffset, pageLimit),
    includeText ? fullText(deps, bookText) : undefined,
  ]);
  const urls = await imageUrls(deps.uploads, window.pages.map((p) => p.storageKey), bookText, file?.storageKey);
  const pages = window.pages.map((p, i) => ({
    pageNumber: p.pageNumber,
    text: p.text,
    storageKey: p.storageKey,
    imageUrl: urls[i]!,
    isAIGenerated: p.isAIGenerated,
    ...readingOf(p),
  }));
  return {
    success: true,
    book: {
      ...identity(bookText, file),
      ...privateFields(manager, { storageKey: file?.storageKey ?? null }),
      userId: bookText.userId,
      username: owner?.username ?? null,
      ...privateFields(manager, { userEmail: owner?.email ?? null }),
      ...(includeText ? { extractedText } : {}),
      language: bookText.language,
      tags: bookText.tags,
      categories: bookText.categories,
      pageCount: bookText.pageCount,
      totalPages: window.total,
      pageLimit,
      pageOffset,
      hasMore: pageOffset + pages.length < window.total,
      pages,
      status: bookText.status,
      processingTime: bookText.processingTime,
      ...privateFields(manager, { metadata: metadataView(bookText) }),
      createdAt: bookText.createdAt,
      updatedAt: bookText.updatedAt,
      completedAt: bookText.completedAt,
      visibility: bookText.visibility,
    },
  };
}
