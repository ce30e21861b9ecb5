import type { FileBytes } from '../contract.ts';
import { pageImagePrefix } from '../../lib/ocr/pages/page.ts';

/** The job's files in the bucket: the upload read by ranges, the page images written. */
export interface JobFiles {
  open(bucket: string, key: string): Promise<FileBytes>;
  /** Puts a page image at its key (pageImageKey) and returns the key. */
  putPageImage(bucket: string, jobId: string, pageNumber: number, png: Buffer): Promise<string>;
}

/** Where a page's image goes: `ocr-pages/<jobId>/<pageNumber>.png` (docs/ocr-worker.md, "Connecting an OCR worker"). */
export const pageImageKey = (jobId: string, pageNumber: number): string => `${pageImagePrefix(jobId)}${pageNumber}.png`;
