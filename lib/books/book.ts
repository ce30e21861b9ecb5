/** Bilingual line books (docs/SPEC.md 2.6). */
export const accessModels = ['free', 'creator_subscription'] as const;
export type AccessModel = (typeof accessModels)[number];
export type Visibility = 'public' | 'private';

export interface Book {
  bookId: string;
  title: string;
  author: string;
  ownerId: string;
  contributors: string[];
  visibility: Visibility;
  accessModel: AccessModel;
  /** The creator tier a `creator_subscription` book requires; null otherwise. */
  requiredSubscriptionTier: string | null;
  metadata: Record<string, unknown>;
  lineCount: number;
  createdAt: string;
  updatedAt: string;
}

export const lineFields = ['arabic', 'english', 'commentary', 'rootwords'] as const;
export type LineField = (typeof lineFields)[number];

export interface Line {
  bookId: string;
  /** Line ids of a book increase in book order (see lib/ids.ts sequentialObjectIds). */
  lineId: string;
  arabic: string;
  english: string;
  commentary: string;
  rootwords: string;
}

/**
 * An import in progress or done (lib/ocr/export/import.ts), keyed by what it imports: a retry or a
 * concurrent request finds it and writes the same book id and line ids, so nothing is doubled.
 * `generation` moves on when the sweeper has removed an abandoned attempt's lines, so a later
 * attempt never writes ids a sweep is deleting.
 */
export interface BookImport {
  importKey: string;
  bookId: string;
  generation: number;
  state: 'importing' | 'done' | 'abandoned';
  startedAt: string;
}

export interface BookStore {
  /** Writes the lines first and the book last, so a book is never seen half written. */
  create(book: Book, lines: Line[]): Promise<void>;
  /**
   * Starts or resumes the import under `importKey`, the book id given by `bookIdOf(generation)`;
   * a finished import is returned as it is (state `done`).
   */
  beginImport(importKey: string, at: string, bookIdOf: (generation: number) => string): Promise<BookImport>;
  /**
   * Writes the import's lines (same ids on every attempt: a retry overwrites), then the book and the
   * import's end in one transaction. False when the book was already there (a concurrent import made it).
   */
  finishImport(started: BookImport, book: Book, lines: Line[]): Promise<boolean>;
  /** Imports not finished and started before `before` (ISO time), oldest first, at most `limit`. */
  staleImports(before: string, limit: number): Promise<BookImport[]>;
  /** Marks a stale import abandoned (unless it was resumed or finished meanwhile), removes its lines, then the record. */
  removeAbandoned(stale: BookImport): Promise<boolean>;
  get(bookId: string): Promise<Book | undefined>;
  /** All lines in book order. */
  lines(bookId: string): Promise<Line[]>;
  /** One line, by one GetItem. */
  line(bookId: string, lineId: string): Promise<Line | undefined>;
}
