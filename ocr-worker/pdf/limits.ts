import { maxPagesPerJob } from '../limits.ts';

/** The worker's caps on a PDF, one place: a hostile file fails its own job or page, never the process. */
export const pdfLimits = {
  /** Pages per file (ocr-worker/limits.ts): refused at open, before a page is read. */
  maxPages: maxPagesPerJob,
  /** The render resolution for OCR (Tesseract reads best at 300 dpi). */
  dpi: 300,
  /**
   * Pixels per rendered page: an A4 page at 300 dpi is 8.7 MP; 40 MP (160 MB of RGBA) still fits
   * A3 at 300 dpi. A larger page (a poster, a forged MediaBox) renders at the dpi that fits.
   */
  maxPixels: 40_000_000,
  /** Pixels per image in a page (pdfjs's `maxImageSize`): a larger image is left out, never decoded. */
  maxImagePixels: 40_000_000,
  /**
   * Per page, in the reader process (pdf/reader-process.ts): parsing, text extraction and rendering
   * together. An A4 page takes well under a second; past this the process is killed.
   */
  pageTimeoutMs: 25_000,
  /** Starting a reader process and opening the document in it (also after a page killed the last one). */
  openTimeoutMs: 5_000,
  /**
   * The reader process's resident memory: a 40 MP page (160 MB of RGBA, its PNG and grey copies) and
   * images up to the pixel cap fit in far less; the rest of the OCR worker's 2 GB holds tesseract.
   */
  maxReaderMemoryMb: 1_024,
  /** Bytes per range read (one S3 range GET on AWS). */
  rangeChunkSize: 256 * 1024,
} as const;
