import type { Caller } from '../../auth/caller.ts';
import type { UserStore } from '../../auth/users.ts';
import { forbidden } from '../../errors.ts';
import { logger } from '../../log.ts';
import type { Objects } from '../../objects.ts';
import { findBookText, managedBy } from '../access.ts';
import { metadataView, type BookText, type BookTextStore } from '../book-text.ts';
import { identity, privateFields } from '../book-view.ts';
import { fullText } from '../text-storage.ts';
import { isOwnImage, legacyPages, pageImagePrefix, type BookTextPage } from './page.ts';
import type { PageStore } from './store.ts';

/** Reading one digitized book (SPEC.md 4.1 `GET /ocr/books/:bookTextId`). */
export interface BookReadDeps {
  bookTexts: BookTextStore;
  pages: PageStore;
  users: UserStore;
  uploads: Objects;
}

/** Page images are linked for an hour (SPEC.md section 8). */
export const imageUrlSeconds = 3600;

/**
 * Signed URLs for a window's page images, of this book only (`isOwnImage`): the worker's images under
 * one grant for the job's prefix, the book's own upload alone; null for none, a foreign key, or a
 * failed signing (SPEC.md 4.1).
 */
async function imageUrls(uploads: Objects, keys: readonly (string | null)[], book: BookText, upload: string | null | undefined): Promise<(string | null)[]> {
  const shown = keys.map((key) => (isOwnImage(key, book, upload) ? key! : null));
  const prefix = pageImagePrefix(book.jobId);
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

/** A window of the book's pages in page order; old books without page records use their embedded pages. */
async function pageWindow(pages: PageStore, book: BookText, offset: number, limit: number): Promise<{ total: number; pages: Omit<BookTextPage, 'updatedAt'>[] }> {
  const window = await pages.pageWindow(book.bookTextId, offset, limit);
  if (window.total > 0 || !book.pages?.length) return window;
  const legacy = legacyPages(book.bookTextId, book.pages);
  return { total: legacy.length, pages: legacy.slice(offset, offset + limit) };
}

/** `GET /ocr/books/:bookTextId`'s query as its contract reads it (functions/api/ocr-api.ts). */
export interface BookReading {
  pageLimit: number;
  pageOffset: number;
  includeText: boolean;
}

export async function readBookText(deps: BookReadDeps, caller: Caller, bookTextId: string | undefined, { pageLimit, pageOffset, includeText }: BookReading) {
  const book = await findBookText(deps.bookTexts, bookTextId);
  const manager = managedBy(caller, book);
  if (book.visibility !== 'public' && !manager) throw forbidden('Unauthorized to view this book');

  const [file, owner, window, extractedText] = await Promise.all([
    deps.bookTexts.getFile(book.fileId),
    deps.users.get(book.userId),
    pageWindow(deps.pages, book, pageOffset, pageLimit),
    includeText ? fullText(deps, book) : undefined,
  ]);
  const urls = await imageUrls(deps.uploads, window.pages.map((p) => p.storageKey), book, file?.storageKey);
  const pages = window.pages.map((p, i) => ({
    pageNumber: p.pageNumber,
    text: p.text,
    storageKey: p.storageKey,
    imageUrl: urls[i]!,
    isAIGenerated: p.isAIGenerated,
  }));
  return {
    success: true,
    book: {
      ...identity(book, file),
      ...privateFields(manager, { storageKey: file?.storageKey ?? null }),
      userId: book.userId,
      username: owner?.username ?? null,
      ...privateFields(manager, { userEmail: owner?.email ?? null }),
      ...(includeText ? { extractedText } : {}),
      language: book.language,
      tags: book.tags,
      categories: book.categories,
      pageCount: book.pageCount,
      totalPages: window.total,
      pageLimit,
      pageOffset,
      hasMore: pageOffset + pages.length < window.total,
      pages,
      status: book.status,
      processingTime: book.processingTime,
      ...privateFields(manager, { metadata: metadataView(book) }),
      createdAt: book.createdAt,
      updatedAt: book.updatedAt,
      completedAt: book.completedAt,
      visibility: book.visibility,
    },
  };
}
