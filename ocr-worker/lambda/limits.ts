import { finishLeaseMs } from '../job/finish.ts';
import { pagesPerTask } from '../job/runner.ts';
import { pdfLimits } from '../pdf/limits.ts';

/**
 * The worker's time limits on Lambda, one place: the stack sizes the functions and queues from them
 * (infra/ocr-worker-lambda.ts), so a limit changed here moves the timeouts with it.
 */

/**
 * Per reading of a page (a page may be read twice, in the other script's model): 40 s is about 25
 * times what an A4 300-dpi Arabic page takes on one core (README), and keeps a task whose 8 pages all
 * run into every limit within Lambda's 15 minutes (`worstTaskSeconds`).
 */
export const pageReadingTimeoutMs = 40_000;

/** A task of `pagesPerTask` pages, each at both readings' and the render's limits: 8 × (2 × 40 + 30) s = 880 s. */
export const worstTaskSeconds = (pagesPerTask * (2 * pageReadingTimeoutMs + pdfLimits.renderTimeoutMs)) / 1000;

/**
 * The job function's worst case: the file opened and, for a PDF, up to three sample pages rendered
 * and one read by OCR to decide its text layer (pdf/page-source.ts), then the tasks sent.
 */
export const worstPlanSeconds = (3 * pdfLimits.renderTimeoutMs + 2 * pageReadingTimeoutMs) / 1000 + 60;

/**
 * A task that finds another worker posting the job's final result comes back after half the claim's
 * lease: by then the holder has finished (it takes seconds), or on a later try its lease has run out
 * and this task takes over, well within the queue's five receives.
 */
export const finishRetrySeconds = finishLeaseMs / 2 / 1000;

/** SQS SendMessageBatch takes at most 10 messages a call. */
export const tasksPerSend = 10;
