import type { JobCredentials } from '../../auth/job-credentials.ts';
import type { Queue } from '../../queue.ts';
import { logger } from '../../log.ts';
import { later, sweepOpenJobs, visitOpenJob, type StallOutcome, type StallTimes } from '../../stalled-jobs.ts';
import type { BookText } from '../book-text.ts';
import { jobPageCap, type OcrJobMessage, type QueuedOcrJob } from './upload.ts';
import { ocrOutcome } from './outcome.ts';
import { tellOutcome } from '../../notifications/job-outcomes.ts';
import type { NotifyDeps } from '../../notifications/notify.ts';

/**
 * Stalled OCR jobs (issue 29): a job accepted (201) whose message never reached a worker (the send
 * failed after its records were written, docs/SPEC.md 4.1; a local queue lost with a crash) or whose
 * worker gave up on it without a result stays pending or processing for good. The sweeper finds the
 * open jobs that have not moved for `ocrStallMinutes` and sends their message again.
 *
 * Sending again is safe while a worker is still on the job: the worker's ledger counts each page once
 * and posts the final result once (ocr-worker/job/ledger.ts). Each requeue is taken by a conditional
 * write on the job's `updatedAt` and requeue count, so a job that moved meanwhile, or that a racing
 * sweep took first, is not queued twice by one look.
 */

/**
 * Minutes without a page callback (or any other write of the BookText) before a job is queued again.
 * Above the OCR worker's longest silence while alive: a task of 8 pages reports each page within
 * about 2 minutes, and a task whose worker died comes back after the pages queue's visibility timeout
 * (2 × 880 s, about 29 minutes; ocr-worker/lambda/limits.ts). An hour leaves the queues' own
 * redeliveries to come first. The sweeper runs hourly, so a stalled job is queued again one to two
 * hours after it last moved.
 */
export const ocrStallMinutes = 60;

/**
 * Requeues before the sweeper gives a job up and fails it: a job that never moves after this many
 * fresh messages (about six hours) is not waiting on a lost message but failing in the worker each time.
 */
export const maxOcrRequeues = 5;

export const ocrJobStalled = 'The OCR job stopped making progress and was given up after several attempts';

/** A job the sweeper looks after: its claim, with the message it was queued with. */
export interface OpenOcrJob {
  jobId: string;
  bookTextId: string;
  queued: QueuedOcrJob;
  requeues?: number;
  requeuedAt?: string;
}

export interface StalledOcrJobStore {
  /** Open jobs last seen moving before `before`, oldest first, at most `limit`. */
  openBefore(before: string, limit: number): Promise<OpenOcrJob[]>;
  bookText(bookTextId: string): Promise<BookText | undefined>;
  /** The job ended: it leaves the list. */
  close(job: OpenOcrJob): Promise<void>;
  /** The job moved at `movedAt`: it is listed from then, so the next sweeps pass it by until it stalls. */
  seenMoving(job: OpenOcrJob, movedAt: string): Promise<void>;
  /**
   * Counts a requeue, on condition that the BookText is still open with `seenUpdatedAt` and the job's
   * requeue count is still the one read; false (nothing written) otherwise.
   */
  takeRequeue(job: OpenOcrJob, seenUpdatedAt: string, at: string): Promise<boolean>;
  /** Fails the job with `error`, on the same condition; false otherwise. */
  giveUp(job: OpenOcrJob, bookText: BookText, error: string, at: string): Promise<boolean>;
}

export interface StalledOcrDeps {
  stalledOcrJobs: StalledOcrJobStore;
  ocrQueue: Queue;
  jobCredentials: JobCredentials;
  /** A job given up is told to its owner (lib/notifications/job-outcomes.ts). */
  inbox: NotifyDeps;
}

const openStatuses: readonly string[] = ['pending', 'processing'];
/** One sweep over the open OCR jobs: each ended one leaves the list, each stalled one is queued again. */
export async function requeueStalledOcrJobs(deps: StalledOcrDeps, now: Date, rounds = 10) {
  const list = (before: string, limit: number) => deps.stalledOcrJobs.openBefore(before, limit);
  return sweepOpenJobs('OCR job', now, ocrStallMinutes, list, (job, times) => visit(deps, job, times), (job) => job.jobId, rounds);
}

async function visit(deps: StalledOcrDeps, job: OpenOcrJob, { before, at }: StallTimes): Promise<StallOutcome> {
  const store = deps.stalledOcrJobs;
  const bookText = await store.bookText(job.bookTextId);
  if (!bookText || !openStatuses.includes(bookText.status)) {
    await store.close(job);
    return 'passed';
  }
  const movedAt = later(bookText.updatedAt, job.requeuedAt);
  return visitOpenJob({ open: true, movedAt, requeues: job.requeues }, { before, maxRequeues: maxOcrRequeues }, {
    close: () => store.close(job),
    seenMoving: () => store.seenMoving(job, movedAt),
    async giveUp() {
      if (!(await store.giveUp(job, bookText, ocrJobStalled, at))) return false;
      logger.error('Gave up a stalled OCR job', { jobId: job.jobId, requeues: job.requeues });
      await tellOutcome(deps.inbox, ocrOutcome({ ...bookText, status: 'failed', error: ocrJobStalled })!);
      return true;
    },
    async requeue() {
      // Issued first: a key that cannot sign uses up no requeue.
      const credential = await deps.jobCredentials.issue({ jobId: job.jobId, userId: job.queued.userId, fileId: job.queued.fileId, maxPages: jobPageCap }, new Date(at));
      if (!(await store.takeRequeue(job, bookText.updatedAt, at))) return false;
      // A failed send leaves the requeue counted: the job is stalled again an interval later and sent then.
      await deps.ocrQueue.send({ ...job.queued, credential } satisfies OcrJobMessage);
      logger.info('Queued a stalled OCR job again', { jobId: job.jobId, requeues: (job.requeues ?? 0) + 1, lastMoved: movedAt });
      return true;
    },
  });
}
