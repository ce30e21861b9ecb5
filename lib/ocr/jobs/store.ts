import type { OwedUsage } from '../../billing/owed-usage.ts';
import type { BookText, BookTextList, FileRecord, OcrStatus, PageError, TextPlacement, TextWrite } from '../book-text.ts';
import type { QueuedOcrJob } from './upload.ts';

/** What a page callback writes on the BookText (docs/SPEC.md 3.1, second row). */
export interface PageProgress {
  at: string;
  pageCount?: number;
  pagesProcessed?: number;
  pageError?: PageError;
}

/** What a final-result callback writes on the BookText; absent fields keep their stored values. */
export interface ResultUpdate {
  at: string;
  status?: OcrStatus;
  language?: string;
  pageCount?: number;
  text?: TextPlacement;
  /** Client keys merged key by key into metadata. */
  metadata?: Record<string, unknown>;
  error?: string;
  processingTime?: number;
  /**
   * A completion's usage, committed owed in the same write as the status (lib/billing/owed-usage.ts),
   * so a completed job is never left without its usage being recorded or owed. A marker already
   * owed keeps its `since`.
   */
  owed?: OwedUsage;
}

/** What the page-level usage outcome of a completion leaves on the record (docs/SPEC.md 4.1 usage rule). */
export type UsageOutcome = { usageInfo: Record<string, unknown> } | { usageError: string };

/** An OCR job's life (docs/SPEC.md 3.1): its creation, the worker's callbacks, its usage, its owner's list. */
export interface OcrJobStore {
  /**
   * Creates the BookText (with its File, when given) and claims its jobId, all or nothing.
   * Returns false, writing nothing, when the jobId already has a BookText. A job given its `queued`
   * message is listed open for the sweeper (lib/ocr/jobs/stalled.ts) until it ends.
   */
  create(bookText: BookText, file?: FileRecord, queued?: QueuedOcrJob): Promise<boolean>;
  byJobId(jobId: string): Promise<BookText | undefined>;
  /** Status `processing` plus the page's progress, each written to its own path. */
  recordPage(bookText: BookText, progress: PageProgress): Promise<void>;
  /** A text in the update replaces whichever text the record holds when it is written. */
  applyResult(bookText: BookText, update: ResultUpdate): Promise<TextWrite>;
  /** Records the usage outcome of a completion (service-owned; never in client metadata). */
  setUsage(bookTextId: string, outcome: UsageOutcome, at: string): Promise<void>;
  /** The owner's BookTexts, newest first, optionally of one status. */
  jobsOf(userId: string, options: { status?: OcrStatus; limit: number; offset: number }): Promise<BookTextList>;
}
