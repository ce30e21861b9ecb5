import type { JobGrant } from '../../auth/job-credentials.ts';
import type { User } from '../../auth/users.ts';
import { forbidden, notFound } from '../../errors.ts';
import type { Objects } from '../../objects.ts';
import { canManage } from '../access.ts';
import type { BookText, BookTextStore, OcrStatus } from '../book-text.ts';
import { failureReason } from './outcome.ts';
import { pagesOf } from '../pages/page-list.ts';
import type { PageStore } from '../pages/store.ts';
import { fullText, hasFullText } from '../text-storage.ts';
import type { OcrJobStore } from './store.ts';

/** Reading OCR jobs (docs/SPEC.md 4.1 `GET /ocr/status/:jobId`, `/ocr/text/:jobId`, `/ocr/jobs`). */
export interface JobReadDeps {
  ocrJobs: OcrJobStore;
  bookTexts: BookTextStore;
  pages: PageStore;
  uploads: Objects;
}

async function ownJob(deps: JobReadDeps, user: User, jobId: string, texts: { missing: string; denied: string }) {
  const bookText = await deps.ocrJobs.byJobId(jobId);
  if (!bookText) throw notFound(texts.missing);
  if (!canManage(user, bookText)) throw forbidden(texts.denied);
  return bookText;
}

/** The job's status, for its owner, editors and admins, or the worker holding its credential. */
async function grantedJob(deps: JobReadDeps, grant: JobGrant, jobId: string, texts: { missing: string; denied: string }) {
  if (grant.jobId !== jobId) throw forbidden(texts.denied);
  const bookText = await deps.ocrJobs.byJobId(jobId);
  if (!bookText) throw notFound(texts.missing);
  return bookText;
}

/** How far the job has got and, once it failed, why (in our words): fields this service adds to the spec's job views. */
const progressOf = (bookText: BookText) => ({
  pagesProcessed: bookText.pagesProcessed ?? 0,
  ...(bookText.status === 'failed' ? { error: failureReason(bookText.error) } : {}),
});

export async function jobStatus(deps: JobReadDeps, viewer: User | { grant: JobGrant }, jobId: string) {
  const texts = { missing: 'Job not found', denied: 'Unauthorized to view this job' };
  const bookText = 'grant' in viewer ? await grantedJob(deps, viewer.grant, jobId, texts) : await ownJob(deps, viewer, jobId, texts);
  const { fileId, fileName, status, language, pageCount, processingTime, createdAt, updatedAt, completedAt } = bookText;
  return {
    success: true,
    job: { jobId: bookText.jobId, fileId, fileName, status, language, pageCount, processingTime, ...progressOf(bookText), createdAt, updatedAt, completedAt, hasFullText: hasFullText(bookText) },
  };
}

export async function jobText(deps: JobReadDeps, user: User, jobId: string) {
  const bookText = await ownJob(deps, user, jobId, { missing: 'Text not found', denied: 'Unauthorized to view this text' });
  const [extractedText, pages] = await Promise.all([fullText(deps, bookText), pagesOf(deps, bookText)]);
  const { fileId, fileName, language, pageCount, status, completedAt } = bookText;
  return { success: true, data: { jobId: bookText.jobId, fileId, fileName, extractedText, language, pageCount, pages, status, completedAt } };
}

/** `GET /ocr/jobs`'s query as its contract reads it (functions/ocr-api/contract.ts): a status outside the five is its 400. */
export interface JobListing {
  status?: OcrStatus;
  limit: number;
  offset: number;
}

/** Always the caller's own jobs, editors and admins included; newest first. */
export async function listJobs(deps: JobReadDeps, user: User, { status, limit, offset }: JobListing) {
  const { total, items } = await deps.ocrJobs.jobsOf(user.userId, { status, limit, offset });
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
      ...progressOf(b),
      createdAt: b.createdAt,
      updatedAt: b.updatedAt,
      completedAt: b.completedAt,
    })),
  };
}
