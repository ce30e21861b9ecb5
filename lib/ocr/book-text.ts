/** Digitized books (SPEC.md 2.1-2.5): the File, the BookText and its pages, and the store they live in. */
export const ocrStatuses = ['pending', 'processing', 'completed', 'failed', 'submission_failed'] as const;
export type OcrStatus = (typeof ocrStatuses)[number];
export type Visibility = 'public' | 'private';

export const isOcrStatus = (value: unknown): value is OcrStatus => ocrStatuses.includes(value as OcrStatus);

/** The uploaded file (SPEC.md 2.5). */
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

/**
 * The BookText as stored. The spec's metadata keys written by page callbacks (pagesProcessed,
 * lastPageUpdate, pageErrors) are attributes of their own, so that concurrent page callbacks each
 * set one path and never rewrite the client's metadata; `metadataView` puts them back together.
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
  extractedText: string;
  tags: string[];
  categories: string[];
  visibility: Visibility;
  processingTime: number | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** Client metadata plus textStorageKey, textLength, usageInfo, usageError. */
  metadata: Record<string, unknown>;
  pagesProcessed?: number;
  lastPageUpdate?: string;
  /** By page number, one entry per page. */
  pageErrors: Record<string, PageError>;
  /** Old books kept their pages inside the record (SPEC.md 2.3); read only as a fallback. */
  pages?: LegacyPage[];
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

export interface LegacyPage {
  _id?: string;
  pageNumber: number;
  text?: string;
  storageKey?: string | null;
  isAIGenerated?: boolean;
}

export interface BookTextPage {
  pageId: string;
  bookTextId: string;
  pageNumber: number;
  text: string;
  storageKey: string | null;
  isAIGenerated: boolean;
  updatedAt: string;
}

/** The metadata object of SPEC.md 2.2, as clients see it. */
export function metadataView(book: BookText): Record<string, unknown> {
  const pageErrors = Object.values(book.pageErrors ?? {}).sort((a, b) => a.pageNumber - b.pageNumber);
  return {
    ...book.metadata,
    ...(book.pagesProcessed !== undefined ? { pagesProcessed: book.pagesProcessed } : {}),
    ...(book.lastPageUpdate !== undefined ? { lastPageUpdate: book.lastPageUpdate } : {}),
    ...(pageErrors.length ? { pageErrors } : {}),
  };
}

/** What a page callback writes on the BookText (SPEC.md 3.1, second row). */
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
  /** The text kept in the record (the whole text, or the preview of one kept in storage). */
  extractedText?: string;
  /** Set with a long text, removed with a short one. */
  textStorage?: { key: string; length: number } | null;
  /** Merged key by key into metadata. */
  metadata?: Record<string, unknown>;
  error?: string;
  processingTime?: number;
}

/** What PATCH /ocr/books/:bookTextId changes; absent fields keep their stored values. */
export interface BookEdit {
  at: string;
  /** Kept on the BookText too, for the job lists and the catalogue. */
  fileName?: string;
  /** The File's changes; absent when the BookText has no File (an orphan's). */
  file?: { fileName?: string; author?: string };
  language?: string;
  visibility?: Visibility;
  tags?: string[];
  categories?: string[];
  extractedText?: string;
  textStorage?: { key: string; length: number } | null;
}

/** A page change that keeps the page's other fields (PATCH with `pages` as an object). */
export interface PageChange {
  pageId: string;
  pageNumber: number;
  text?: string;
  storageKey?: string | null;
  isAIGenerated?: boolean;
}

/** Whose books a listing shows (SPEC.md 4.1 `GET /ocr/books`). */
export type CatalogueView = { kind: 'public' } | { kind: 'all' } | { kind: 'publicAndOwn'; ownerId: string };
export type CatalogueOrder = 'date' | 'name' | 'pages';

export interface CatalogueFilter {
  status?: OcrStatus;
  language?: string;
  /** Any of them matches. */
  tags: string[];
  categories: string[];
}

export interface CatalogueQuery {
  view: CatalogueView;
  order: CatalogueOrder;
  descending: boolean;
  filter: CatalogueFilter;
  limit: number;
  offset: number;
}

export interface JobPage {
  total: number;
  items: BookText[];
}

export interface OcrStore {
  /**
   * Creates the BookText (with its File, when given) and claims its jobId, all or nothing.
   * Returns false, writing nothing, when the jobId already has a BookText.
   */
  create(bookText: BookText, file?: FileRecord): Promise<boolean>;
  byJobId(jobId: string): Promise<BookText | undefined>;
  get(bookTextId: string): Promise<BookText | undefined>;
  getFile(fileId: string): Promise<FileRecord | undefined>;
  /** Each page is its own item, replaced whole: pages never share an item or a write. */
  putPages(pages: BookTextPage[]): Promise<void>;
  pages(bookTextId: string): Promise<BookTextPage[]>;
  /** Status `processing` plus the page's progress, each written to its own path. */
  recordPage(book: BookText, progress: PageProgress): Promise<void>;
  applyResult(book: BookText, update: ResultUpdate): Promise<void>;
  setMetadata(bookTextId: string, entries: Record<string, unknown>, at: string): Promise<void>;
  /** Files by id; missing ids are absent from the map. */
  getFiles(fileIds: readonly string[]): Promise<Map<string, FileRecord>>;
  /** Pages `offset` .. `offset + limit` in page order, and how many pages the book has. */
  pageWindow(bookTextId: string, offset: number, limit: number): Promise<{ total: number; pages: BookTextPage[] }>;
  /** Changes only the given fields of each page; a missing page is created with the defaults. */
  updatePages(bookTextId: string, changes: PageChange[], at: string): Promise<void>;
  /** The BookText's and its File's changes, all or nothing. */
  edit(book: BookText, edit: BookEdit): Promise<void>;
  /** One page of the catalogue and the size of the whole (filtered) listing. */
  catalogue(query: CatalogueQuery): Promise<JobPage>;
  /** The owner's BookTexts, newest first, optionally of one status. */
  jobsOf(userId: string, options: { status?: OcrStatus; limit: number; offset: number }): Promise<JobPage>;
}
