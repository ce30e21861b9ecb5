import { maxPagesPerRequest } from '../lib/ocr/pages/page.ts';

/**
 * The most pages one job reads, whatever the file (PDF, multi-page TIFF): the service's own cap on
 * pages in one request (and on an import), so the final result can list every page and a digitized
 * book can be edited and imported whole. A 100,000-page file fails its job before any work.
 */
export const maxPagesPerJob = maxPagesPerRequest;

/** What a user reads when a file is over the cap: one message whatever the file. */
export const tooManyPagesMessage = (pages: number, max: number = maxPagesPerJob) =>
  `The file has ${pages.toLocaleString('en-US')} pages; at most ${max.toLocaleString('en-US')} pages can be read in one job. Split it and upload the parts.`;

/**
 * Pages of one job whose reading may be stopped at a limit of time or memory before the job fails:
 * a file whose every page is a bomb (2,000 pages can share one bomb stream) costs three pages' limits,
 * not two thousand, and the worker's pool goes on to other users' jobs.
 */
export const maxPagesOverLimit = 3;

export const pagesOverLimitMessage = (count: number = maxPagesOverLimit) =>
  `The file could not be read: ${count} of its pages took longer or needed more memory than a page may. It may be damaged, or made to exhaust readers.`;
