/**
 * The reference OCR worker (issue 13): a client of the service, not a part of it. It takes the job
 * message as docs/ocr-worker.md "Connecting an OCR worker" documents it, reads the file from the bucket, puts
 * page images under `ocr-pages/<jobId>/` and reports through the two callbacks with an editor token.
 * It shares the project's types and tooling but calls no domain function of the service (the lint
 * rule for this folder holds that).
 *
 * This module is the seam between its parts: the file readers (`files/`, `pdf/`), the engine
 * (`engine/`) and the job runner (`job/`).
 */

/**
 * The job message on the OCR queue, exactly as docs/ocr-worker.md "Connecting an OCR worker" shows it: the
 * service's own type (a worker may share the service's types, never call its code).
 */
export type { OcrJobMessage } from '../lib/ocr/jobs/upload.ts';

/** What a file is, from its first bytes (never from the declared MIME type). */
export type FileFormat = 'pdf' | 'png' | 'jpeg' | 'tiff' | 'webp' | 'gif' | 'bmp';

/** Random access to the job's file without holding it whole: byte ranges (S3 range GETs on AWS). */
export interface FileBytes {
  readonly size: number;
  /** Bytes [start, end) of the file. */
  read(start: number, end: number): Promise<Uint8Array>;
}

/** One page of a source file, ready for the engine or already text. */
export interface SourcePage {
  /** The page image as PNG (rendered at 300 dpi for a PDF, the decoded frame for an image), within the pixel cap. */
  png: Buffer;
  /** The page as the engine reads it, 8-bit greyscale PGM (files/page-image.ts): the same pixels, or with its light evened. */
  grey: Buffer;
  /** The page as the engine reads it as PNG, when that differs from `png` (its light evened: files/even-light.ts). */
  readPng?: Buffer;
  width: number;
  height: number;
  /**
   * The page's text layer when it is trustworthy (present, in logical order, no presentation forms),
   * NFKC-folded; undefined when the page must be read by OCR.
   */
  textLayer?: string;
}

/** A file opened for reading page by page; pages are numbered from 1 in file order. */
export interface PageSource {
  readonly format: FileFormat;
  readonly pageCount: number;
  page(pageNumber: number): Promise<SourcePage>;
  close(): Promise<void>;
}

/** The engine's models: Tesseract's `ara`, `fas`, `urd` and `eng` (the `4.0.0_best_int` data from npm). */
export type OcrModel = 'ara' | 'fas' | 'urd' | 'eng';

/** One word the engine read, with its confidence (0..100), in the order of its text. */
export interface Word {
  text: string;
  confidence: number;
}

export interface Recognized {
  text: string;
  /** Mean word confidence, 0..100. */
  confidence: number;
  /** The words of `text`, in order, each with its confidence; absent when the engine gave none. */
  words?: Word[];
}

/** How the engine finds the text on a page: `auto` (tesseract's page segmentation mode 3) or `single-block` (mode 6). */
export type PageLayout = 'auto' | 'single-block';
export const pageLayouts = ['auto', 'single-block'] as const satisfies readonly PageLayout[];

export interface RecognizeOptions {
  timeoutMs?: number;
  /** Default `auto`. */
  layout?: PageLayout;
}

/** A page's two images (SourcePage): an engine reads one of them faster than the other. */
export type PageImage = 'grey' | 'png';

export interface OcrEngine {
  /** The page image this engine reads faster, measured per engine; what the worker hands it (`imageFor`). */
  readonly reads: PageImage;
  /** Reads one page image (a page's greyscale PGM, or a PNG) with one model; rejects with PageError past `timeoutMs` or when the page cannot be read. */
  recognize(image: Buffer, model: OcrModel, options?: RecognizeOptions): Promise<Recognized>;
  close(): Promise<void>;
}

/** The page's image that `engine` reads faster. */
export const imageFor = (engine: Pick<OcrEngine, 'reads'>, page: Pick<SourcePage, PageImage | 'readPng'>): Buffer =>
  engine.reads === 'png' ? (page.readPng ?? page.png) : page.grey;

/** A page the worker could not read: a page error (docs/SPEC.md 4.1 `status: "failed"`), not a dead job. */
export class PageError extends Error {
  override name = 'PageError';
}

/** A page whose reading was stopped at a limit of time or memory: the file may be built to exhaust readers. */
export class PageOverLimit extends PageError {
  override name = 'PageOverLimit';
}

/** A file the worker cannot read at all: the job ends `failed` with this message, which users read. */
export class UnreadableFile extends Error {
  override name = 'UnreadableFile';
}
