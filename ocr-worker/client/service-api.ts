import type { UncertainRange } from '../../lib/ocr/pages/page.ts';

/**
 * What the worker says to the service: the two callbacks and the job status (docs/SPEC.md 4.1), as
 * "Connecting an OCR worker" documents them. A port, so the job runner is tested with a fake.
 */

/** `POST /ocr/result/page`. */
export interface PageResult {
  jobId: string;
  fileId: string;
  userId: string;
  pageNumber: number;
  text: string;
  /** The page image's key, or null when the page failed before it had one. */
  storageKey: string | null;
  pageCount: number;
  pagesProcessed: number;
  /** The engine's mean word confidence; null for a text layer or a failed page. */
  confidence?: number | null;
  /** Words under the threshold: ranges of `text` (text/uncertain.ts). */
  uncertain?: UncertainRange[];
  /** Set, with `error`, for a page the worker could not read. */
  status?: 'failed';
  error?: string;
  /** The message's `reread.rereadId` when the page answers a reread. */
  rereadId?: string;
}

/** `POST /ocr/result`. */
export interface FinalResult {
  jobId: string;
  fileId: string;
  userId: string;
  status: 'completed' | 'failed';
  extractedText?: string;
  pageCount?: number;
  language?: string;
  processingTime?: number;
  error?: string;
}

export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'submission_failed';

export interface ServiceApi {
  postPage(result: PageResult): Promise<void>;
  /** Resolves with the answer's usageInfo (null when the service could not record usage). */
  postResult(result: FinalResult): Promise<{ usageInfo: unknown }>;
  /** The job's status (`GET /ocr/status/:jobId`); undefined when the service has no such job. */
  jobStatus(jobId: string): Promise<JobStatus | undefined>;
}

/** The service refused a call (a 4xx other than the expected ones): trying again would not help. */
export class ApiRefused extends Error {
  override name = 'ApiRefused';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The service did not answer (5xx, 429, timeout, network) within the attempts: the task may be tried again later. */
export class ApiUnavailable extends Error {
  override name = 'ApiUnavailable';
}
