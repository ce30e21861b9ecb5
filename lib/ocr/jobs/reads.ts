import { isStaff, type User } from '../../auth/users.ts';
import { forbidden, notFound } from '../../errors.ts';
import type { Objects } from '../../objects.ts';
import type { BookText, OcrStatus, OcrStore } from '../book-text.ts';
import { legacyPages } from '../pages/page.ts';
import { fullText, hasFullText } from '../text-storage.ts';

/** Reading OCR jobs (SPEC.md 4.1 `GET /ocr/status/:jobId`, `/ocr/text/:jobId`, `/ocr/jobs`). */
export interface JobReadDeps {
  ocr: OcrStore;
  uploads: Objects;
}

/** The job's creator, editors and admins. */
export const canManage = (user: User, book: Pick<BookText, 'userId'>): boolean => isStaff(user) || book.userId === user.userId;

async function ownJob(deps: JobReadDeps, user: User, jobId: string, texts: { missing: string; denied: string }) {
  const book = await deps.ocr.byJobId(jobId);
  if (!book) throw notFound(texts.missing);
  if (!canManage(user, book)) throw forbidden(texts.denied);
  return book;
}

export async function jobStatus(deps: JobReadDeps, user: User, jobId: string) {
  const book = await ownJob(deps, user, jobId, { missing: 'Job not found', denied: 'Unauthorized to view this job' });
  const { fileId, fileName, status, language, pageCount, processingTime, createdAt, updatedAt, completedAt } = book;
  return {
    success: true,
    job: { jobId: book.jobId, fileId, fileName, status, language, pageCount, processingTime, createdAt, updatedAt, completedAt, hasFullText: hasFullText(book) },
  };
}

export interface PageView {
  _id: string;
  pageNumber: number;
  text: string;
  storageKey: string | null;
  isAIGenerated: boolean;
}

/** Page records in page order, else the legacy pages embedded in old records (SPEC.md 2.3). */
export async function pagesOf(deps: Pick<JobReadDeps, 'ocr'>, book: BookText): Promise<PageView[]> {
  const pages = await deps.ocr.pages(book.bookTextId);
  const inOrder = pages.length ? pages : legacyPages(book.bookTextId, book.pages);
  return inOrder.map((p) => ({ _id: p.pageId, pageNumber: p.pageNumber, text: p.text, storageKey: p.storageKey, isAIGenerated: p.isAIGenerated }));
}

export async function jobText(deps: JobReadDeps, user: User, jobId: string) {
  const book = await ownJob(deps, user, jobId, { missing: 'Text not found', denied: 'Unauthorized to view this text' });
  const [extractedText, pages] = await Promise.all([fullText(deps, book), pagesOf(deps, book)]);
  const { fileId, fileName, language, pageCount, status, completedAt } = book;
  return { success: true, data: { jobId: book.jobId, fileId, fileName, extractedText, language, pageCount, pages, status, completedAt } };
}

/** `GET /ocr/jobs`'s query as its contract reads it (functions/api/ocr-api.ts): a status outside the five is its 400. */
export interface JobListing {
  status?: OcrStatus;
  limit: number;
  offset: number;
}

/** Always the caller's own jobs, editors and admins included; newest first. */
export async function listJobs(deps: JobReadDeps, user: User, { status, limit, offset }: JobListing) {
  const { total, items } = await deps.ocr.jobsOf(user.userId, { status, limit, offset });
  return {
    success: true,
    total,
    limit,
    offset,
    jobs: items.map((b) => ({
      jobId: b.jobId,
      bookTextId: b.bookTextId,
      fileId: b.fileId,
      fileName: b.fileName,
      status: b.status,
      language: b.language,
      tags: b.tags,
      categories: b.categories,
      pageCount: b.pageCount,
      processingTime: b.processingTime,
      createdAt: b.createdAt,
      updatedAt: b.updatedAt,
      completedAt: b.completedAt,
    })),
  };
}
