import type { Caller } from '../../auth/caller.ts';
import type { User, UserStore } from '../../auth/users.ts';
import { forbidden, notFound } from '../../errors.ts';
import { checkId } from '../../ids.ts';
import { logger } from '../../log.ts';
import type { Objects } from '../../objects.ts';
import { metadataView, type BookText, type FileRecord, type OcrStore } from '../book-text.ts';
import { canManage } from '../jobs/reads.ts';
import { isOwnImage, legacyPages, pageImagePrefix, type BookTextPage } from './page.ts';
import { fullText, hasFullText } from '../text-storage.ts';

/** Reading one digitized book (SPEC.md 4.1 `GET /ocr/books/:bookTextId`). */
export interface BookReadDeps {
  ocr: OcrStore;
  users: UserStore;
  uploads: Objects;
}

/** Page images are linked for an hour (SPEC.md section 8). */
export const imageUrlSeconds = 3600;

/** The BookText a book path names: a malformed id is a 500 (SPEC.md section 7), a missing one a 404. */
export async function findBookText(ocr: OcrStore, bookTextId: string | undefined): Promise<BookText> {
  const book = await ocr.get(checkId(bookTextId, 'bookText'));
  if (!book) throw notFound('Book not found');
  return book;
}

/** The owner, editors and admins: they read private books and see userEmail, storageKey and metadata. */
export const managedBy = (caller: Caller, book: Pick<BookText, 'userId'>): boolean => caller.kind === 'user' && canManage(caller.user, book);

/** Fields only the owner, editors and admins see; for everyone else the keys are absent. */
const privateFields = <T extends object>(show: boolean, fields: T): Partial<T> => (show ? fields : {});

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
async function pageWindow(ocr: OcrStore, book: BookText, offset: number, limit: number): Promise<{ total: number; pages: Omit<BookTextPage, 'updatedAt'>[] }> {
  const window = await ocr.pageWindow(book.bookTextId, offset, limit);
  if (window.total > 0 || !book.pages?.length) return window;
  const legacy = legacyPages(book.bookTextId, book.pages);
  return { total: legacy.length, pages: legacy.slice(offset, offset + limit) };
}

type FileFields = Pick<FileRecord, 'author' | 'fileType' | 'fileSize'>;

/** The fields a book answer opens with; the File's are null for a BookText without one (an orphan's). */
const identity = (book: BookText, file: FileFields | undefined) => ({
  bookTextId: book.bookTextId,
  jobId: book.jobId,
  fileId: book.fileId,
  fileName: book.fileName,
  author: file?.author ?? null,
  fileType: file?.fileType ?? null,
  fileSize: file?.fileSize ?? null,
});

/** `GET /ocr/books/:bookTextId`'s query as its contract reads it (functions/api/ocr-api.ts). */
export interface BookReading {
  pageLimit: number;
  pageOffset: number;
  includeText: boolean;
}

export async function readBook(deps: BookReadDeps, caller: Caller, bookTextId: string | undefined, { pageLimit, pageOffset, includeText }: BookReading) {
  const book = await findBookText(deps.ocr, bookTextId);
  const manager = managedBy(caller, book);
  if (book.visibility !== 'public' && !manager) throw forbidden('Unauthorized to view this book');

  const [file, owner, window, extractedText] = await Promise.all([
    deps.ocr.getFile(book.fileId),
    deps.users.get(book.userId),
    pageWindow(deps.ocr, book, pageOffset, pageLimit),
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

/** One book of `GET /ocr/books`: userEmail and metadata only on the caller's own items, or for staff. */
export function listItem(book: BookText, file: FileFields | undefined, owner: User | undefined, manager: boolean) {
  return {
    ...identity(book, file),
    userId: book.userId,
    username: owner?.username ?? null,
    ...privateFields(manager, { userEmail: owner?.email ?? null }),
    status: book.status,
    language: book.language,
    tags: book.tags,
    categories: book.categories,
    pageCount: book.pageCount,
    processingTime: book.processingTime,
    ...privateFields(manager, { metadata: metadataView(book) }),
    visibility: book.visibility,
    hasFullText: hasFullText(book),
    createdAt: book.createdAt,
    updatedAt: book.updatedAt,
    completedAt: book.completedAt,
  };
}
