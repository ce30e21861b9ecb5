/** Whose pages a search may return (the visibility rules of GET /ocr/books). */
export type SearchView = { kind: 'public' } | { kind: 'all' } | { kind: 'publicAndOwn'; ownerId: string };

/** What a page's index entry knows of its book, copied on each page so one query filters and counts. */
export interface IndexedBookFields {
  userId: string;
  visibility: 'private' | 'public';
  status: string;
  language: string;
}

export interface IndexedPage extends IndexedBookFields {
  bookTextId: string;
  pageNumber: number;
  /** Analyzed terms in text order, unstemmed (exact phrases). */
  exact: string[];
  /** The same terms stemmed, position for position (the default search). */
  stemmed: string[];
}

export type MatchMode = 'phrase' | 'all' | 'any';

export interface PageQuery {
  mode: MatchMode;
  /** `exact` for phrases the reader quoted; `stemmed` for the default search. */
  field: 'exact' | 'stemmed';
  /** Analyzed terms in the field's form: 1..32 of them, each 1..64 characters, letters/marks/digits only. */
  terms: string[];
  /** Only this BookText's pages (search within a book). */
  bookTextId?: string;
  /** Only books of this language. */
  language?: string;
  view: SearchView;
  limit: number;  // 1..100
  offset: number; // 0..10000
}

export interface PageHit { bookTextId: string; pageNumber: number }

export interface SearchEngine {
  /** Adds or replaces pages (one entry per bookTextId + pageNumber). */
  putPages(pages: IndexedPage[]): Promise<void>;
  /** Copies a book's changed fields to all its pages (visibility, status, ...). */
  setBookFields(bookTextId: string, fields: IndexedBookFields): Promise<void>;
  /** Removes a book's pages. */
  removeBook(bookTextId: string): Promise<void>;
  /** Matching pages, best first (BM25; ties by bookTextId, then pageNumber), and how many match in all (exact). */
  search(query: PageQuery): Promise<{ total: number; hits: PageHit[] }>;
}
