import type { BookTextPage, LegacyPage } from './pages/page.ts';
import type { PageChange } from './pages/store.ts';

/**
 * Digitized books (docs/SPEC.md 2.1-2.5): the File and the BookText, and the store of both. Each part of
 * lib/ocr has its own store port: jobs/store.ts, pages/store.ts, catalogue/store.ts.
 */
export const ocrStatuses = ['pending', 'processing', 'completed', 'failed', 'submission_failed'] as const;
export type OcrStatus = (typeof ocrStatuses)[number];
export const visibilities = ['private', 'public'] as const;
export type Visibility = (typeof visibilities)[number];

export const isOcrStatus = (value: unknown): value is OcrStatus => ocrStatuses.includes(value as OcrStatus);

/** Tags and categories as sent: `"a, b,,c"` -> `['a', 'b', 'c']`; an array is taken as it is. */
export function splitList(value: unknown): string[] {
  const parts = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [];
  return parts.map((part) => part.trim()).filter(Boolean);
}

/**
 * The most tags, and the most categories, a book carries, each of at most `chars` characters, and
 * the most a `GET /ocr/books` filter names (docs/decisions.md, "Maxima and caps"): a listing entry and a filter stay small
 * whatever a client sends. `language` is a short code too. Books written before these caps may hold
 * more; the search index lists what fits its own limits (lib/search/indexing.ts).
 */
export const bookFieldLimits = { listValues: 100, listValueChars: 200, languageChars: 100 } as const;

export const tooManyValues = (name: string) => `${name} must have at most ${bookFieldLimits.listValues} values`;
export const valueTooLong = (name: string) => `each of ${name} must be at most ${bookFieldLimits.listValueChars} characters`;
export const languageTooLong = `language must be at most ${bookFieldLimits.languageChars} characters`;

/** Why tags or categories about to be stored break the caps, or undefined when they do not. */
export function listFieldProblem(values: readonly string[], name: 'tags' | 'categories'): string | undefined {
  if (values.length > bookFieldLimits.listValues) return tooManyValues(name);
  if (values.some((value) => [...value].length > bookFieldLimits.listValueChars)) return valueTooLong(name);
  return undefined;
}

/** Why a language about to be stored breaks its cap, or undefined. */
export const languageProblem = (language: string | undefined): string | undefined =>
  language !== undefined && [...language].length > bookFieldLimits.languageChars ? languageTooLong : undefined;

/** The uploaded file (docs/SPEC.md 2.5). */
export interface FileRecord {
  fileId: string;
  userId: string;
  fileName: string;
  author: string;
  fileType: string;
  fileSize: number;
  tags: string[];
  categories: string[];
  visibility: Visibility;
  storageKey: string;
  createdAt: string;
  updatedAt: string;
}

export interface PageError {
  pageNumber: number;
  error: string;
  timestamp: string;
}

/** Where a long text lives: its own version under the job (`textKey`), and its length. */
export interface StoredText {
  version: string;
  length: number;
}

/**
 * Where a stored text lives: derived from the job and a version the record holds, never from client
 * data. Each text gets a key of its own (docs/SPEC.md names `ocr-results/<jobId>.txt`; a version per text
 * is what lets racing writers each commit a whole text: no writer overwrites or deletes an object
 * that the record still names).
 */
export const textKey = (jobId: string, version: string) => `ocr-results/${jobId}/${version}.txt`;

/**
 * The BookText as stored. What the service owns (the stored text, usage, page progress) are
 * attributes of their own; `metadata` holds only what clients sent (`jobMetadata`, a result's
 * `metadata`), so no client value can stand in for a service fact. `metadataView` composes the
 * spec's metadata object from both.
 */
export interface BookText {
  bookTextId: string;
  jobId: string;
  fileId: string;
  userId: string;
  /** Copied from the File at creation, so status and job lists need no second read. */
  fileName: string | null;
  status: OcrStatus;
  language: string;
  pageCount: number;
  /** The whole text, or the preview of one kept in storage (`storedText`). */
  extractedText: string;
  tags: string[];
  categories: string[];
  visibility: Visibility;
  processingTime: number | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** Client-supplied keys only (docs/SPEC.md 2.2 "other keys"). */
  metadata: Record<string, unknown>;
  /** Set while the whole text is in storage (over inlineTextLimit characters, text-storage.ts). */
  storedText?: StoredText;
  usageInfo?: Record<string, unknown>;
  usageError?: string;
  pagesProcessed?: number;
  lastPageUpdate?: string;
  /** By page number, one entry per page. */
  pageErrors: Record<string, PageError>;
  /** Old books kept their pages inside the record (docs/SPEC.md 2.3); read only as a fallback. */
  pages?: LegacyPage[];
  /**
   * The record's revision, raised by every write of it (absent on records written before: 0). The
   * search index keeps what it was given at the highest revision (lib/search/engine.ts), so a late
   * put of an older read never undoes a newer one. The service's own: never shown, never taken from a client.
   */
  rev?: number;
}

/** A new BookText: private, nothing extracted yet; `fields` names the job and overrides defaults. */
export function newBookText(
  fields: Pick<BookText, 'bookTextId' | 'jobId' | 'fileId' | 'userId' | 'fileName' | 'status'> & Partial<BookText>,
  at: string,
): BookText {
  return {
    language: 'ar',
    pageCount: 0,
    extractedText: '',
    tags: [],
    categories: [],
    visibility: 'private',
    processingTime: null,
    error: null,
    createdAt: at,
    updatedAt: at,
    completedAt: null,
    metadata: {},
    pageErrors: {},
    ...fields,
  };
}

/** The metadata keys of docs/SPEC.md 2.2 the service writes; a client's value for one is dropped. */
export const serviceMetadataKeys = [
  'pagesProcessed',
  'lastPageUpdate',
  'pageErrors',
  'textStorageKey',
  'textLength',
  'usageInfo',
  'usageError',
  'importedFromVision',
] as const;

/** Client metadata is kept in the record, so its size is bounded well inside an item's 400 KB. */
export const maxClientMetadataBytes = 16_384;

/**
 * A client's metadata as stored: the service's keys dropped, at most maxClientMetadataBytes of JSON.
 * `tooLarge` is the caller's error for an oversized object (each route answers in its own words).
 */
export function clientMetadata(value: Record<string, unknown>, tooLarge: (message: string) => Error): Record<string, unknown> {
  const reserved: ReadonlySet<string> = new Set(serviceMetadataKeys);
  const kept = Object.fromEntries(Object.entries(value).filter(([name]) => !reserved.has(name) && name !== ''));
  if (Buffer.byteLength(JSON.stringify(kept)) > maxClientMetadataBytes) {
    throw tooLarge(`metadata is larger than ${maxClientMetadataBytes} bytes of JSON`);
  }
  return kept;
}

/** The metadata object of docs/SPEC.md 2.2, as clients see it: their keys, then the service's, which always win. */
export function metadataView(bookText: BookText): Record<string, unknown> {
  const reserved: ReadonlySet<string> = new Set(serviceMetadataKeys);
  const pageErrors = Object.values(bookText.pageErrors ?? {}).sort((a, b) => a.pageNumber - b.pageNumber);
  return {
    ...Object.fromEntries(Object.entries(bookText.metadata ?? {}).filter(([name]) => !reserved.has(name))),
    ...(bookText.pagesProcessed !== undefined ? { pagesProcessed: bookText.pagesProcessed } : {}),
    ...(bookText.lastPageUpdate !== undefined ? { lastPageUpdate: bookText.lastPageUpdate } : {}),
    ...(pageErrors.length ? { pageErrors } : {}),
    ...(bookText.storedText ? { textStorageKey: textKey(bookText.jobId, bookText.storedText.version), textLength: bookText.storedText.length } : {}),
    ...(bookText.usageInfo !== undefined ? { usageInfo: bookText.usageInfo } : {}),
    ...(bookText.usageError !== undefined ? { usageError: bookText.usageError } : {}),
  };
}

/** A new book-level text as the record keeps it: inline, or a preview with the stored version. */
export interface TextPlacement {
  extractedText: string;
  stored: StoredText | null;
}

/** A write that replaced the book-level text reports the stored text it replaced, so its object can go. */
export interface TextWrite {
  replaced?: StoredText;
}

/** What PATCH /ocr/books/:bookTextId changes; absent fields keep their stored values. */
export interface BookTextEdit {
  at: string;
  /** Kept on the BookText too, for the job lists and the catalogue. */
  fileName?: string;
  /** The File's changes; absent when the BookText has no File (an orphan's). */
  file?: { fileName?: string; author?: string };
  language?: string;
  visibility?: Visibility;
  tags?: string[];
  categories?: string[];
  text?: TextPlacement;
  /** Pages written with the record, all or nothing (docs/architecture.md, "Edits are all or nothing"). */
  pages?: PageEdit;
}

/** `pages` of a PATCH: listed pages replaced whole, or only the given fields of each changed. */
export type PageEdit = { replace: BookTextPage[] } | { change: PageChange[] };

/**
 * A stored text object that may be named by no record: noted before it is put, and when a write
 * replaces it (in the write's own transaction), so the sweeper finds every possible stray by key
 * (lib/ocr/loose-texts.ts) instead of listing the bucket.
 */
export interface LooseText {
  jobId: string;
  version: string;
  /** When it was noted: the sweeper leaves alone what a write in flight may still commit. */
  at: string;
}

/** One window of a list of BookTexts and the size of the whole list. */
export interface BookTextList {
  total: number;
  items: BookText[];
}

/** The BookTexts and their Files, read by every part of lib/ocr. */
export interface BookTextStore {
  get(bookTextId: string): Promise<BookText | undefined>;
  /** BookTexts by id, read together (at most 100); missing ids are absent from the map. */
  getMany(bookTextIds: readonly string[]): Promise<Map<string, BookText>>;
  getFile(fileId: string): Promise<FileRecord | undefined>;
  /**
   * The BookText's, its File's and its pages' changes, all or nothing; a text replaces whichever the
   * record holds, and the text it replaced is noted loose in the same write.
   */
  edit(bookText: BookText, edit: BookTextEdit): Promise<TextWrite>;
  /** Notes a text object about to be put: until a record names it, it may be a stray. */
  noteLooseText(text: LooseText): Promise<void>;
  /** Drops the note once the object is gone (or named: the sweeper checks). */
  forgetLooseText(text: Pick<LooseText, 'jobId' | 'version'>): Promise<void>;
  /** The oldest notes made before `before`, at most `limit`: read by key, never by a scan. */
  looseTexts(before: string, limit: number): Promise<LooseText[]>;
  /**
   * Takes back edits too large for one transaction that were left part way (a writer stopped
   * before committing or undoing) and started before `before`; returns how many.
   */
  undoStaleEdits(before: string, limit: number): Promise<number>;
}
