/** Bilingual line books (SPEC.md 2.6). */
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

export interface BookStore {
  /** Writes the lines first and the book last, so a book is never seen half written. */
  create(book: Book, lines: Line[]): Promise<void>;
  get(bookId: string): Promise<Book | undefined>;
  /** All lines in book order. */
  lines(bookId: string): Promise<Line[]>;
  /** One line, by one GetItem. */
  line(bookId: string, lineId: string): Promise<Line | undefined>;
}
