import type { Caller } from '../../auth/caller.ts';
import { settleOwed, type OwedUsage, type OwedUsageStore } from '../../billing/owed-usage.ts';
import type { UsageDeps, UsageInfo } from '../../billing/usage.ts';
import { forbidden, internal } from '../../errors.ts';
import { isJobId, isObjectId, newObjectId } from '../../ids.ts';
import { logger } from '../../log.ts';
import type { Objects } from '../../objects.ts';
import { writeWithText } from '../text-storage.ts';
import { newBookText, type BookText, type BookTextStore, type OcrStatus } from '../book-text.ts';
import { newPage, type PageFields, type PageReading } from '../pages/page.ts';
import type { PageStore } from '../pages/store.ts';
import type { RereadStore } from '../pages/reread.ts';
import type { OcrJobStore, ResultUpdate } from './store.ts';
import { ocrOutcome } from './outcome.ts';
import { tellOutcome } from '../../notifications/job-outcomes.ts';
import type { NotifyDeps } from '../../notifications/notify.ts';
import { pagesWritten, type IndexWrites } from '../../search/read-after-write.ts';

/** The OCR worker's callbacks (docs/SPEC.md 4.1 `POST /ocr/result/page`, `POST /ocr/result`; state table 3.1). */
export interface CallbackDeps extends UsageDeps {
  ocrJobs: OcrJobStore;
  bookTexts: BookTextStore;
  pages: PageStore;
  /** Completions whose usage is not yet recorded (the billing worker settles what a callback could not). */
  owedUsage: OwedUsageStore;
  uploads: Objects;
  /** What a callback wrote is in the index before it answers (lib/search/read-after-write.ts). */
  index: IndexWrites;
  /** The owner's inbox and devices: a job's outcome is told there (lib/notifications/job-outcomes.ts). */
  inbox: NotifyDeps;
  /** A page read again is applied once, while its reread is pending (lib/ocr/pages/reread.ts). */
  rereads: Pick<RereadStore, 'settle'>;
  now: () => Date;
}

/** The ids every callback names: its job, and the file and owner an orphan is created with. */
export interface JobIds {
  jobId: string;
  fileId: string;
  userId: string;
}

/**
 * `POST /ocr/result/page`'s body as read (functions/ocr-callbacks/contract.ts): a page number of the
 * range, a text within its cap; fields of the wrong type are absent, a page count that is not a
 * whole number up to maxPageCount too (a fractional or huge count would otherwise be billed).
 */
export interface PageResult extends JobIds, PageFields, PageReading {
  pageNumber: number;
  status?: string;
  error?: string;
  pageCount?: number;
  pagesProcessed?: number;
  /** Set when the page answers a reread (lib/ocr/pages/reread.ts): then it replaces the page and nothing else. */
  rereadId?: string;
}

/** One page of a final result: a whole page number of the range; absent fields take the defaults. */
export interface ResultPage extends PageFields, PageReading {
  pageNumber: number;
}

/** `POST /ocr/result`'s body as read: every field checked, the metadata without the service's keys. */
export interface FinalResult extends JobIds {
  extractedText?: string;
  language?: string;
  pageCount?: number;
  pages?: ResultPage[];
  metadata?: Record<string, unknown>;
  status?: OcrStatus;
  error?: string;
  processingTime?: number;
}

/**
 * The BookText of a job, created when the worker reports on a job the service does not know (the
 * orphan rule). Concurrent callbacks for one unknown job create one BookText: the job id is claimed
 * in the same transaction.
 */
async function bookTextForJob(deps: CallbackDeps, ids: JobIds, orphan: Partial<BookText>): Promise<BookText> {
  const { jobId } = ids;
  const existing = await deps.ocrJobs.byJobId(jobId);
  if (existing) return existing;
  // The ids become the orphan's keys (docs/SPEC.md 4.1: jobId a UUID, fileId and userId ObjectIds); else the spec's validation 500.
  if (!isJobId(jobId)) throw internal('jobId must be a UUID');
  for (const name of ['fileId', 'userId'] as const) if (!isObjectId(ids[name])) throw internal(`${name} must be an ObjectId`);
  const { fileId } = ids;
  const file = await deps.bookTexts.getFile(fileId);
  const created = newBookText(
    { bookTextId: newObjectId(), jobId, fileId, userId: ids.userId, fileName: file?.fileName ?? null, status: 'processing', ...orphan },
    deps.now().toISOString(),
  );
  if (await deps.ocrJobs.create(created)) return created;
  const winner = await deps.ocrJobs.byJobId(jobId);
  if (!winner) throw new Error(`job ${jobId} was claimed but its BookText is missing`);
  return winner;
}

/** What a worker holding a job credential reads when its call goes beyond the credential's job. */
export const outsideGrant = 'Unauthorized to report on this job';

/**
 * A caller with a job credential reports on its job alone: its ids, its owner, and page numbers and
 * counts within its cap (so it can bill no one else, and its owner for no more than the cap).
 * Editors and admins report on any job, as docs/SPEC.md 4.1 says.
 */
function checkWithinGrant(caller: Caller | undefined, body: JobIds, pageNumbers: readonly number[], pageCount: number | undefined): void {
  if (caller?.kind !== 'job') return;
  const { grant } = caller;
  const sameJob = body.jobId === grant.jobId && body.userId === grant.userId && body.fileId === grant.fileId;
  const withinCap = pageNumbers.every((n) => n <= grant.maxPages) && (pageCount === undefined || pageCount <= grant.maxPages);
  if (!sameJob || !withinCap) throw forbidden(outsideGrant);
}

export async function recordPageResult(deps: CallbackDeps, page: PageResult, caller?: Caller): Promise<{ success: true }> {
  const { pageNumber } = page;
  checkWithinGrant(caller, page, [pageNumber], page.pageCount);
  if (page.rereadId !== undefined) return recordReread(deps, page, page.rereadId);
  const bookText = await bookTextForJob(deps, page, {});
  const at = deps.now().toISOString();

  await deps.pages.putPages([newPage(bookText.bookTextId, pageNumber, page, at)]);
  await deps.ocrJobs.recordPage(bookText, {
    at,
    pageCount: page.pageCount || undefined,
    pagesProcessed: page.pagesProcessed,
    pageError: page.status === 'failed' && page.error ? { pageNumber, error: page.error, timestamp: at } : undefined,
  });
  // A book already processing changed only its listing's fields (its page count); else its status too.
  const listingOnly = bookText.status === 'processing';
  await deps.index.written([...pagesWritten(bookText.bookTextId, [pageNumber]), { kind: 'bookText', bookTextId: bookText.bookTextId, listingOnly }]);
  return { success: true };
}

/**
 * A page read again (docs/interface.md, "Reading a page again"): applied only by ending its pending
 * reread, so a redelivered or late post (its reread already ended, or superseded) writes nothing. It
 * replaces the page whole and changes nothing else of the book: not its status (a completed book stays
 * completed), its progress or its page errors. A page the worker could not read leaves the page as it
 * was. The reread ends before the page is written: a failure between the two loses the reread (asked
 * again, it is read again), never writes a page twice.
 */
async function recordReread(deps: CallbackDeps, page: PageResult, rereadId: string): Promise<{ success: true }> {
  const bookText = await deps.ocrJobs.byJobId(page.jobId);
  if (!bookText || !(await deps.rereads.settle(bookText.bookTextId, page.pageNumber, rereadId))) return { success: true };
  if (page.status === 'failed') {
    logger.warn('A page read again could not be read; it stays as it was', { jobId: page.jobId, pageNumber: page.pageNumber, error: page.error });
    return { success: true };
  }
  // Written with the record, as an edit is: the record's revision rises with the page, so an index put
  // of the page as it was before (read a moment earlier) never undoes this one (lib/search/engine.ts).
  const at = deps.now().toISOString();
  await deps.bookTexts.edit(bookText, { at, pages: { replace: [newPage(bookText.bookTextId, page.pageNumber, page, at)] } });
  await deps.index.written(pagesWritten(bookText.bookTextId, [page.pageNumber]));
  return { success: true };
}

export const resultSaved = 'OCR result saved successfully';

export interface ResultAnswer {
  message: string;
  bookTextId: string;
  status: OcrStatus;
  usageInfo: UsageInfo | null;
}

/** Records the final result, read whole before anything is written: a bad field fails the call with nothing stored. */
export async function recordFinalResult(deps: CallbackDeps, result: FinalResult, caller?: Caller): Promise<ResultAnswer> {
  checkWithinGrant(caller, result, (result.pages ?? []).map((p) => p.pageNumber), result.pageCount);
  const bookText = await bookTextForJob(deps, result, {
    // An orphan is completed by applyResult below, never by its creation: that write commits the owed usage with the status.
    status: result.status === 'completed' ? 'processing' : (result.status ?? 'pending'),
    language: result.language ?? 'ar',
    pageCount: result.pageCount ?? 0,
    metadata: result.metadata ?? {},
  });
  const at = deps.now().toISOString();
  const update: ResultUpdate = {
    at,
    status: result.status,
    language: result.language,
    pageCount: result.pageCount,
    error: result.error,
    processingTime: result.processingTime,
  };

  if (result.extractedText !== undefined && result.metadata) update.metadata = result.metadata;
  const pages = result.pageCount || result.pages?.length || bookText.pageCount;
  if (result.status === 'completed' && pages > 0) {
    update.owed = { jobId: bookText.jobId, bookTextId: bookText.bookTextId, userId: result.userId, pages, since: at };
  }
  if (result.pages?.length) await deps.pages.putPages(result.pages.map((p) => newPage(bookText.bookTextId, p.pageNumber, p, at)));
  await writeWithText(deps, bookText.jobId, result.extractedText, (text) => deps.ocrJobs.applyResult(bookText, { ...update, text }));
  await deps.index.written([
    ...pagesWritten(bookText.bookTextId, (result.pages ?? []).map((p) => p.pageNumber)),
    { kind: 'bookText', bookTextId: bookText.bookTextId },
  ]);

  const status = result.status ?? bookText.status;
  const usageInfo = update.owed ? await chargePages(deps, update.owed, at) : null;
  // Told once per job and outcome, however often the result is posted (the notification's id is fixed).
  const outcome = ocrOutcome({ ...bookText, status, language: result.language ?? bookText.language, error: result.error ?? bookText.error, pageCount: pages });
  if (outcome) await tellOutcome(deps.inbox, outcome);
  return { message: resultSaved, bookTextId: bookText.bookTextId, status, usageInfo };
}

/** What metadata.usageError says when usage could not be recorded (the cause is in the log). */
export const usageErrorText = 'Page usage could not be recorded';

/**
 * Usage on completion; a failure to record is stored on the BookText and never fails the callback:
 * the usage stays owed (committed with the status) and the billing worker records it within minutes
 * (lib/billing/owed-usage.ts). A repeated completion answers the usage already recorded.
 */
async function chargePages(deps: CallbackDeps, owed: OwedUsage, at: string): Promise<UsageInfo | null> {
  try {
    return await settleOwed(deps, owed, at);
  } catch (error) {
    // Provider and SDK text (it can name accounts and roles) goes to the log; the record keeps our words.
    logger.error('Recording page usage failed; it stays owed', { jobId: owed.jobId, userId: owed.userId, error: error as Error });
    await deps.ocrJobs.setUsage(owed.bookTextId, { usageError: usageErrorText }, at).catch(() => undefined);
    return null;
  }
}
