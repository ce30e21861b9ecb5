import type { PageReadOptions, RawPage } from './page-read.ts';

/**
 * The messages between the worker and its PDF reader process (pdf/reader-process.ts and
 * pdf/reader-child.ts), over Node's IPC channel with structured clone (`serialization: 'advanced'`),
 * so byte arrays cross without base64.
 */
export type ToReader =
  | { type: 'open'; size: number; maxPages: number; rangeChunkSize: number }
  | { type: 'page'; pageNumber: number; options: PageReadOptions }
  | { type: 'layer'; pageNumber: number }
  | { type: 'bytes'; id: number; data?: Uint8Array };

export type FromReader =
  | { type: 'read'; id: number; start: number; end: number }
  | { type: 'opened'; pageCount: number }
  | { type: 'page'; page: RawPage }
  | { type: 'layer'; layer: string }
  /** The file's or the page's fault, in words users read (UnreadableFile at open, PageError on a page). */
  | { type: 'refused'; message: string; overLimit?: boolean }
  /** A range read failed: not the file's fault; the parent holds the read's own error. */
  | { type: 'readFailed' };
