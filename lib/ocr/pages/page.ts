import { createHash } from 'node:crypto';

/**
 * A BookText page (docs/SPEC.md 2.3), modelled once: its number range, its id, its defaults, the legacy
 * embedded form of old books, and which page images belong to the book.
 */

/**
 * Page numbers run 0..maxPageNumber: every one sorts in its fixed-width key, and a book stays bounded.
 * Every write reads a page number, and its caps (a 400), by its route's body schema (functions/_shared/contract/ocr-shapes.ts).
 */
export const maxPageNumber = 99_999;
/** The most pages a book can count: page numbers run from 0 to maxPageNumber. */
export const maxPageCount = maxPageNumber + 1;
/** Pages one request may write (PATCH `pages`, a result's `pages`); a 1,000-page book fits in one. */
export const maxPagesPerRequest = 2_000;
/** One page's text: a page item stays far below DynamoDB's 400 KB (4 bytes per character at worst). */
export const maxPageTextLength = 60_000;
/**
 * Uncertain words a page may mark (docs/interface.md, "Confidence"): at most this many ranges, so a
 * page item stays under DynamoDB's 400 KB (1,000 pairs are about 12 KB beside at most 240 KB of text).
 */
export const maxUncertainRanges = 1_000;

/** A word the engine read with low confidence: characters [start, end) of the page's text (UTF-16 code units, as JavaScript indexes strings). */
export type UncertainRange = [start: number, end: number];

export interface BookTextPage {
  pageId: string;
  bookTextId: string;
  pageNumber: number;
  text: string;
  storageKey: string | null;
  isAIGenerated: boolean;
  /** The engine's confidence in its reading, 0..100; absent (null) for a text layer, an external worker that gave none, or an older page. */
  confidence?: number | null;
  /** Words read under the worker's threshold, in text order; absent is none. Dropped when an edit sends the page's text. */
  uncertain?: UncertainRange[];
  updatedAt: string;
}

/** Old books kept their pages inside the record (docs/SPEC.md 2.3); read only as a fallback. */
export interface LegacyPage {
  _id?: string;
  pageNumber: number;
  text?: string;
  storageKey?: string | null;
  isAIGenerated?: boolean;
}

/** The page fields a client may supply; absent ones stay absent. */
export interface PageFields {
  text?: string;
  storageKey?: string | null;
  isAIGenerated?: boolean;
}

/** What only the OCR worker reports of a page (its page callback): how sure its engine was. */
export interface PageReading {
  confidence?: number | null;
  uncertain?: UncertainRange[];
}

/** A page's confidence and uncertain words as every page view shows them: null and none when not reported. */
export const readingOf = (page: PageReading): { confidence: number | null; uncertain: UncertainRange[] } => ({
  confidence: page.confidence ?? null,
  uncertain: page.uncertain ?? [],
});

/** docs/SPEC.md 2.3: text empty, no image, AI-generated. */
export const pageDefaults = { text: '', storageKey: null, isAIGenerated: true } as const satisfies Required<PageFields>;

/** Pages are replaced whole, so each keeps the same id across upserts: derived from (BookText, pageNumber). */
export const pageIdOf = (bookTextId: string, pageNumber: number): string =>
  createHash('sha256').update(`${bookTextId}:${pageNumber}`).digest('hex').slice(0, 24);

/** A page replaced whole: absent fields take the defaults (no confidence, no uncertain words). */
export function newPage(bookTextId: string, pageNumber: number, fields: PageFields & PageReading, at: string): BookTextPage {
  return {
    pageId: pageIdOf(bookTextId, pageNumber),
    bookTextId,
    pageNumber,
    text: fields.text ?? pageDefaults.text,
    storageKey: fields.storageKey || pageDefaults.storageKey,
    isAIGenerated: fields.isAIGenerated ?? pageDefaults.isAIGenerated,
    ...(typeof fields.confidence === 'number' && { confidence: fields.confidence }),
    ...(fields.uncertain?.length && { uncertain: fields.uncertain }),
    updatedAt: at,
  };
}

/** An old book's embedded pages as page records, in page order. */
export function legacyPages(bookTextId: string, pages: readonly LegacyPage[] | undefined): Omit<BookTextPage, 'updatedAt'>[] {
  return [...(pages ?? [])]
    .sort((a, b) => a.pageNumber - b.pageNumber)
    .map((p) => ({
      pageId: p._id ?? `${bookTextId}-${p.pageNumber}`,
      bookTextId,
      pageNumber: p.pageNumber,
      text: p.text ?? pageDefaults.text,
      storageKey: p.storageKey ?? pageDefaults.storageKey,
      isAIGenerated: p.isAIGenerated ?? pageDefaults.isAIGenerated,
    }));
}

/** Where the worker puts a job's page images (docs/ocr-worker.md, "Connecting an OCR worker"). */
export const pageImagePrefix = (jobId: string) => `ocr-pages/${jobId}/`;

/**
 * Whether a page's storageKey names an image of this book: its own upload, or one under the job's
 * page-image prefix. Any other key, stored by a careless or hostile client, gets no presigned URL
 * (docs/SPEC.md 4.1: imageUrl is null when there is no image). `..` and empty segments are refused so
 * no path trick leaves the prefix.
 */
export function isOwnImage(key: string | null, book: { jobId: string }, upload: string | null | undefined): boolean {
  if (!key) return false;
  if (upload && key === upload) return true;
  const prefix = pageImagePrefix(book.jobId);
  if (!key.startsWith(prefix) || key.length === prefix.length) return false;
  return key
    .slice(prefix.length)
    .split('/')
    .every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
