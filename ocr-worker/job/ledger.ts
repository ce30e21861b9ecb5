/**
 * The worker's own record of its jobs (never the service's state): what a job holds, which pages are
 * done, and who posts the final result. It is what makes a redelivered message, a crashed worker or
 * two workers on one job post the final result once and OCR no reported page again.
 */

export interface JobEntry {
  jobId: string;
  pageCount: number;
  /** When the job was first planned (epoch ms): the final result's processingTime runs from here. */
  startedAt: number;
  /** Pages counted done (reported, or failed as a page error), each once. */
  pagesDone: number;
  /** Set when the file could not be read: the job ends `failed` with this message (our words). */
  failure?: string;
  /** Pages whose reading was stopped at a limit of time or memory (pdf/reader-process.ts), each once. */
  pagesOverLimit?: number;
  /** Who is posting the final result, since when (epoch ms); a lease another worker may take over when it is old. */
  claim?: { owner: string; claimedAt: number };
  /** The final result was posted (or found posted): nothing is left to do for this job. */
  finished: boolean;
}

/** A page done: its text, or the page error the worker reported for it. */
export interface PageEntry {
  pageNumber: number;
  text: string;
  /** Mean word confidence 0..100 when the page was read by OCR. */
  confidence?: number;
  error?: string;
  /** The page error is a limit of time or memory that stopped the page's reading. */
  overLimit?: boolean;
}

export interface JobLedger {
  /** Records the job (its page count, or why its file cannot be read) unless it is recorded already; returns the job as stored. */
  start(jobId: string, plan: { pageCount: number; failure?: string }, at: number): Promise<JobEntry>;
  job(jobId: string): Promise<JobEntry | undefined>;
  /** Which of these pages are done (without their text). */
  donePages(jobId: string, pageNumbers: readonly number[]): Promise<Set<number>>;
  /** The job's done pages with their text, in page order. */
  pages(jobId: string): Promise<PageEntry[]>;
  /**
   * Records a page done and counts it, in one step: a page recorded already (a redelivery, a racing
   * worker) is neither replaced nor counted again. Returns the job's done count after it.
   */
  markPageDone(jobId: string, page: PageEntry): Promise<{ counted: boolean; pagesDone: number; pagesOverLimit: number }>;
  /** Ends the job as `failed` with this message (our words), unless it failed or finished already. */
  fail(jobId: string, failure: string): Promise<void>;
  /**
   * Claims the posting of the final result: granted when nobody holds the claim, when `owner` holds it,
   * or when the holder's claim is older than `leaseMs` (it crashed); never while the job is finished.
   */
  claimFinish(jobId: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  markFinished(jobId: string): Promise<void>;
}
