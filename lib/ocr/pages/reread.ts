import type { JobCredentials } from '../../auth/job-credentials.ts';
import type { User } from '../../auth/users.ts';
import { badRequest, forbidden, internal, notFound } from '../../errors.ts';
import { newJobId } from '../../ids.ts';
import { logger } from '../../log.ts';
import type { Queue } from '../../queue.ts';
import { canManage, findBookText } from '../access.ts';
import type { BookTextStore } from '../book-text.ts';
import { jobPageCap, type OcrJobMessage } from '../jobs/upload.ts';

/**
 * Reading one page of a book again (issue 33; docs/interface.md, "Reading a page again"): the owner,
 * editors and admins ask; the OCR worker reads that page of the book's file again and posts it through
 * the page callback, which replaces the page and changes nothing else of the book.
 *
 * Free (docs/decisions.md, "rereads are free"): a job's pages are counted once, when it completes; a
 * reread replaces a page already counted, of a completed book only, and each page has at most one
 * reread pending, so a user keeps the worker busy with at most their book's pages at once.
 */

/** How the engine lays out the page: automatic (tesseract's mode 3, the worker's default) or one block of text (mode 6). */
export const rereadLayouts = ['auto', 'single-block'] as const;
export type RereadLayout = (typeof rereadLayouts)[number];

/** What the job message carries when it asks for one page again (docs/interface.md, "Reading a page again"; the worker reads it as docs/ocr-worker.md says). */
export interface RereadOrder {
  rereadId: string;
  pageNumber: number;
  layout: RereadLayout;
}

/** A reread asked for and not yet posted: at most one per page. */
export interface PendingReread extends RereadOrder {
  bookTextId: string;
  language: string;
  requestedBy: string;
  requestedAt: string;
}

/**
 * A reread still pending after this long is taken for lost (the worker's queue gave up on it) and a
 * new request sends another: longer than a page's reading may take with its retries.
 */
export const rereadPendingMs = 30 * 60_000;

/** The pending rereads, one per (book, page). */
export interface RereadStore {
  /** Records `reread` unless one for its page is pending since `staleBefore` or later; returns the one pending after the call. */
  claim(reread: PendingReread, staleBefore: string): Promise<PendingReread>;
  /** Ends the page's pending reread if it is `rereadId`'s: true when it was (its result is to be applied), false otherwise. */
  settle(bookTextId: string, pageNumber: number, rereadId: string): Promise<boolean>;
}

export interface RereadDeps {
  bookTexts: BookTextStore;
  rereads: RereadStore;
  ocrQueue: Queue;
  uploadsBucket: string;
  jobCredentials: JobCredentials;
  now: () => Date;
}

/** `POST /ocr/books/:bookTextId/pages/:pageNumber/reread`'s body as read (functions/ocr-api/contract.ts). */
export interface RereadRequest {
  /** The book's language when absent. */
  language?: string;
  layout: RereadLayout;
}

export const rereadQueued = 'The page will be read again';
export const notRereadable = 'Only the pages of a completed book can be read again';
export const noSourceFile = 'This book has no uploaded file to read again';
export const pageNotFound = 'Page not found';

export const pagePathRefused = 'pageNumber must be a whole number';

/** The page number in the path: digits only (a page number is at most 99,999), else a 400. */
function pageNumberOf(param: string | undefined): number {
  if (!param || !/^\d{1,6}$/.test(param)) throw badRequest(pagePathRefused);
  return Number(param);
}

export async function requestReread(deps: RereadDeps, user: User, bookTextId: string | undefined, pageParam: string | undefined, asked: RereadRequest) {
  const bookText = await findBookText(deps.bookTexts, bookTextId);
  if (!canManage(user, bookText)) throw forbidden('Unauthorized to read this book again');
  const pageNumber = pageNumberOf(pageParam);
  // Pages are numbered from 1 in file order (docs/ocr-worker.md); the credential grants the job's cap.
  if (pageNumber < 1 || pageNumber > bookText.pageCount || pageNumber > jobPageCap) throw notFound(pageNotFound);
  if (bookText.status !== 'completed') throw badRequest(notRereadable);
  const file = await deps.bookTexts.getFile(bookText.fileId);
  if (!file?.storageKey) throw badRequest(noSourceFile);

  const now = deps.now();
  const wanted: PendingReread = {
    rereadId: newJobId(),
    bookTextId: bookText.bookTextId,
    pageNumber,
    layout: asked.layout,
    language: asked.language ?? bookText.language,
    requestedBy: user.userId,
    requestedAt: now.toISOString(),
  };
  const pending = await deps.rereads.claim(wanted, new Date(now.getTime() - rereadPendingMs).toISOString());
  const answer = { success: true, message: rereadQueued, bookTextId: bookText.bookTextId, pageNumber, rereadId: pending.rereadId, requestedAt: pending.requestedAt };
  // Asked again while one is pending: that one stands; nothing more is sent.
  if (pending.rereadId !== wanted.rereadId) return answer;

  try {
    const credential = await deps.jobCredentials.issue({ jobId: bookText.jobId, userId: bookText.userId, fileId: file.fileId, maxPages: jobPageCap }, now);
    const message: OcrJobMessage = {
      jobId: bookText.jobId,
      fileId: file.fileId,
      bookTextId: bookText.bookTextId,
      userId: bookText.userId,
      storage: { bucket: deps.uploadsBucket, key: file.storageKey },
      fileName: file.fileName,
      fileType: file.fileType,
      fileSize: file.fileSize,
      language: wanted.language,
      customPrompt: null,
      metadata: {},
      credential,
      reread: { rereadId: wanted.rereadId, pageNumber, layout: wanted.layout },
    };
    await deps.ocrQueue.send(message);
  } catch (error) {
    logger.error('Queueing a page to read again failed', { bookTextId: bookText.bookTextId, pageNumber, error: error as Error });
    // Not pending after all: the next request sends it again.
    await deps.rereads.settle(bookText.bookTextId, pageNumber, wanted.rereadId).catch(() => undefined);
    throw internal('The page could not be queued to be read again');
  }
  return answer;
}
