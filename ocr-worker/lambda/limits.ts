import { finishLeaseMs } from '../job/finish.ts';
import { pagesPerTask } from '../job/runner.ts';
import { pdfLimits } from '../pdf/limits.ts';

/**
 * The worker's time limits on Lambda, one place: the stack sizes the functions and queues from them
 * (infra/ocr-worker-lambda.ts), so a limit changed here moves the timeouts with it.
 */

/**
 * Per reading of a page (a page may be read twice, in the other script's model): 40 s is about 25
 * times what an A4 300-dpi Arabic page takes on one core (docs/benchmarks.md, "The OCR bench"), and keeps a task whose 8 pages all
 * run into every limit within Lambda's 15 minutes (`worstTaskSeconds`).
 */
export const pageReadingTimeoutMs = 40_000;

/**
 * A PDF page's worst case in its reader process: a new reader opened (the last one was killed by the
 * page before), then parsing, text extraction and rendering up to the page's limit.
 */
const worstPdfPageMs = pdfLimits.openTimeoutMs + pdfLimits.pageTimeoutMs;

/** A task of `pagesPerTask` pages, each at both readings' and its PDF page's limits: 8 × (2 × 40 + 5 + 25) s = 880 s. */
export const worstTaskSeconds = (pagesPerTask * (2 * pageReadingTimeoutMs + worstPdfPageMs)) / 1000;

/**
 * The job function's worst case: the file opened and, for a PDF, up to three sample pages rendered
 * and one read by OCR to decide its text layer (pdf/page-source.ts), then the tasks sent.
 */
export const worstPlanSeconds = (3 * worstPdfPageMs + 2 * pageReadingTimeoutMs) / 1000 + 60;

/**
 * A task that finds another worker posting the job's final result comes back after half the claim's
 * lease: by then the holder has finished (it takes seconds), or on a later try its lease has run out
 * and this task takes over, well within the queue's five receives.
 */
export const finishRetrySeconds = finishLeaseMs / 2 / 1000;

/** SQS SendMessageBatch takes at most 10 messages a call. */
export const tasksPerSend = 10;
