import { maxPageTextLength } from '../../lib/ocr/pages/page.ts';
import { maxPagesOverLimit, maxPagesPerJob, pagesOverLimitMessage, tooManyPagesMessage } from '../limits.ts';
import type { UncertainRange } from '../../lib/ocr/pages/page.ts';
import { PageError, PageOverLimit, UnreadableFile, imageFor, type FileBytes, type OcrEngine, type OcrJobMessage, type OcrModel, type PageSource, type Recognized, type RecognizeOptions } from '../contract.ts';
import { rangesWithin } from '../text/uncertain.ts';
import type { ServiceApi } from '../client/service-api.ts';
import type { JobFiles } from './files.ts';
import { finishJob, type FinishedJob } from './finish.ts';
import type { JobLedger, PageEntry } from './ledger.ts';

/** Pages per task: small enough that a task ends far within a queue's visibility timeout, large enough to keep one engine busy. */
export const pagesPerTask = 8;
/** Past this a page's OCR is a page error, not a stuck worker. */
export const pageTimeoutMs = 120_000;

export const noPagesMessage = 'The file has no pages to read';

export { maxPagesPerJob, tooManyPagesMessage };

export interface RunnerDeps {
  ledger: JobLedger;
  files: JobFiles;
  api: ServiceApi;
  engine: OcrEngine;
  /** Opens the file as pages by its content (PDF, image); rejects with UnreadableFile. */
  openSource(bytes: FileBytes): Promise<PageSource>;
  /** The model for the job's language. */
  modelFor(language: string): OcrModel;
  /**
   * How a page is read with the engine; default one `engine.recognize`. The engine's `readPage` adds
   * the second reading in the other script and the Arabic clean-up.
   */
  read?: (engine: OcrEngine, image: Buffer, model: OcrModel, options: RecognizeOptions) => Promise<Recognized & { uncertain?: UncertainRange[] }>;
  /** This worker's name in finish claims (unique per process or thread). */
  owner: string;
  now?: () => number;
  pagesPerTask?: number;
  pageTimeoutMs?: number;
  finishLeaseMs?: number;
}

/** The work a job message leaves: page numbers in tasks of `pagesPerTask`, none once the job is finished. */
export interface JobPlan {
  pageCount: number;
  tasks: number[][];
}

/**
 * A job message: opens the file, records its page count in the ledger (once; a redelivered message
 * finds it), and returns the pages still to do in tasks, each for `runPages` (on AWS one message each
 * on the pages queue; locally one job of the pool). Reports nothing itself, except the final result
 * of a file that cannot be read, or of a job whose pages were all done before its finish was posted.
 */
export async function planJob(deps: RunnerDeps, message: OcrJobMessage): Promise<JobPlan> {
  const now = deps.now ?? Date.now;
  let job = await deps.ledger.job(message.jobId);
  if (job?.finished) return { pageCount: job.pageCount, tasks: [] };
  if (!job) {
    const opened = await openPages(deps, message);
    if (typeof opened === 'string') {
      job = await deps.ledger.start(message.jobId, { pageCount: 0, failure: opened }, now());
    } else {
      await opened.close();
      job = await deps.ledger.start(message.jobId, { pageCount: opened.pageCount }, now());
    }
  }
  const todo = job.failure === undefined ? await pagesToDo(deps.ledger, message.jobId, job.pageCount, range(1, job.pageCount)) : [];
  if (todo.length === 0) {
    await finishJob(deps, message);
    return { pageCount: job.pageCount, tasks: [] };
  }
  const size = deps.pagesPerTask ?? pagesPerTask;
  const tasks: number[][] = [];
  for (let i = 0; i < todo.length; i += size) tasks.push(todo.slice(i, i + size));
  return { pageCount: job.pageCount, tasks };
}

/**
 * A task of pages: each page not done yet is read (its text layer, else OCR), its image put, its
 * result posted, and then counted done in the ledger; a page the readers cannot read is posted as a
 * page error and counted done. The task that finds every page done posts the final result (once, see
 * finishJob), and returns what it finished. Throws when the service or the stores fail: the queue delivers the task again, and the
 * pages reported before the failure are not read again.
 */
export async function runPages(deps: RunnerDeps, message: OcrJobMessage, pageNumbers: readonly number[]): Promise<FinishedJob | undefined> {
  const job = await deps.ledger.job(message.jobId);
  if (!job) throw new Error(`job ${message.jobId} has no plan: run planJob on its message first`);
  if (job.finished) return undefined;
  if (job.failure !== undefined) return finishJob(deps, message);
  const todo = await pagesToDo(deps.ledger, message.jobId, job.pageCount, pageNumbers);
  let pagesDone = job.pagesDone;
  if (todo.length > 0) {
    const source = await openPages(deps, message);
    if (typeof source === 'string') throw new UnreadableFile(source); // it was readable when planned
    try {
      for (const pageNumber of todo) {
        const entry = await readPage(deps, message, source, pageNumber, job.pageCount, Math.min(job.pageCount, pagesDone + 1));
        const done = await deps.ledger.markPageDone(message.jobId, entry);
        pagesDone = done.pagesDone;
        // A file whose pages keep running into the reader's limits fails here, for every task of it.
        if (done.pagesOverLimit >= maxPagesOverLimit) await deps.ledger.fail(message.jobId, pagesOverLimitMessage());
        if (entry.overLimit && (await deps.ledger.job(message.jobId))?.failure !== undefined) return finishJob(deps, message);
      }
    } finally {
      await source.close();
    }
  }
  if (pagesDone >= job.pageCount || (await deps.ledger.job(message.jobId))!.pagesDone >= job.pageCount) {
    return finishJob(deps, message);
  }
  return undefined;
}

/** The file's pages, or what a user reads about a file that cannot be read. */
export async function openPages(deps: Pick<RunnerDeps, 'files' | 'openSource'>, message: OcrJobMessage): Promise<PageSource | string> {
  try {
    const bytes = await deps.files.open(message.storage.bucket, message.storage.key);
    const source = await deps.openSource(bytes);
    if (source.pageCount > 0 && source.pageCount <= maxPagesPerJob) return source;
    await source.close();
    return source.pageCount > 0 ? tooManyPagesMessage(source.pageCount) : noPagesMessage;
  } catch (error) {
    if (error instanceof UnreadableFile) return error.message;
    throw error;
  }
}

/** One page read, its image put and its result posted; the ledger entry to count it done. */
async function readPage(
  deps: RunnerDeps,
  message: OcrJobMessage,
  source: PageSource,
  pageNumber: number,
  pageCount: number,
  pagesProcessed: number,
): Promise<PageEntry> {
  const { entry, storageKey, uncertain } = await readOnePage(deps, message, source, pageNumber);
  const { jobId, fileId, userId } = message;
  await deps.api.postPage({
    jobId,
    fileId,
    userId,
    pageNumber,
    text: entry.text,
    storageKey,
    pageCount,
    pagesProcessed,
    confidence: entry.confidence ?? null,
    uncertain,
    ...(entry.error === undefined ? {} : { status: 'failed', error: entry.error }),
  });
  return entry;
}

/** A page as read and cut to the service's cap, with its image put and its uncertain words within the text that is posted. */
export async function readOnePage(
  deps: Pick<RunnerDeps, 'files' | 'engine' | 'modelFor' | 'read' | 'pageTimeoutMs'>,
  message: OcrJobMessage,
  source: PageSource,
  pageNumber: number,
  options: { language?: string; layout?: RecognizeOptions['layout'] } = {},
): Promise<{ entry: PageEntry; storageKey: string | null; uncertain: UncertainRange[] }> {
  let storageKey: string | null = null;
  let entry: PageEntry;
  let uncertain: UncertainRange[] = [];
  try {
    const page = await source.page(pageNumber);
    storageKey = await deps.files.putPageImage(message.storage.bucket, message.jobId, pageNumber, page.png);
    if (page.textLayer !== undefined) {
      entry = { pageNumber, text: page.textLayer };
    } else {
      const model = deps.modelFor(options.language ?? message.language);
      const read = await (deps.read ?? recognizeOnce)(deps.engine, imageFor(deps.engine, page), model, {
        timeoutMs: deps.pageTimeoutMs ?? pageTimeoutMs,
        ...(options.layout && { layout: options.layout }),
      });
      entry = { pageNumber, text: read.text, confidence: read.confidence };
      uncertain = read.uncertain ?? [];
    }
  } catch (error) {
    if (!(error instanceof PageError)) throw error;
    entry = { pageNumber, text: '', error: error.message, ...(error instanceof PageOverLimit && { overLimit: true }) };
  }
  // The service refuses a longer page (lib/ocr/pages/page.ts); OCR noise that long is no text anyway. A word cut in two is no longer marked.
  entry.text = entry.text.slice(0, maxPageTextLength);
  return { entry, storageKey, uncertain: rangesWithin(uncertain, entry.text.length) };
}

const recognizeOnce: NonNullable<RunnerDeps['read']> = (engine, image, model, options) => engine.recognize(image, model, options);

/** The listed pages of the job that the ledger does not count done yet, in order, within 1..pageCount. */
async function pagesToDo(ledger: JobLedger, jobId: string, pageCount: number, pageNumbers: readonly number[]): Promise<number[]> {
  const asked = [...new Set(pageNumbers)].filter((n) => Number.isInteger(n) && n >= 1 && n <= pageCount).sort((a, b) => a - b);
  const done = await ledger.donePages(jobId, asked);
  return asked.filter((n) => !done.has(n));
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
