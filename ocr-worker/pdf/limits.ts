import { maxPagesPerRequest } from '../../lib/ocr/page.ts';

/** The worker's caps on a PDF, one place: a hostile file fails its own job or page, never the process. */
export const pdfLimits = {
  /**
   * Pages per file: the final `POST /ocr/result` lists every page in one request, which the service
   * caps at maxPagesPerRequest; a longer file could not be reported, so it fails before any work.
   */
  maxPages: maxPagesPerRequest,
  /** The render resolution for OCR (Tesseract reads best at 300 dpi). */
  dpi: 300,
  /**
   * Pixels per rendered page: an A4 page at 300 dpi is 8.7 MP; 40 MP (160 MB of RGBA) still fits
   * A3 at 300 dpi. A larger page (a poster, a forged MediaBox) renders at the dpi that fits.
   */
  maxPixels: 40_000_000,
  /** Per-page render time; an A4 page renders in well under a second. */
  renderTimeoutMs: 30_000,
  /** Bytes per range read (one S3 range GET on AWS). */
  rangeChunkSize: 256 * 1024,
} as const;
