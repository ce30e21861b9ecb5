/**
 * The pages of the default search's terms, kept in memory by the SQLite engine for forgiving searches
 * (issue 32): which pages hold a term and how often, by book, and every page's length. With them a
 * forgiving search is counted, grouped and ranked in a few passes over arrays, where FTS5 paid per
 * statement for its index-wide counts (bm25 counts a term's pages over the whole index in every
 * statement that ranks: 1.5 to 2.5 ms per common term at 20,000 pages) and for testing each match's
 * groups row by row.
 *
 * A term is read from the index the first time a search needs it (FTS5's vocabulary of instances:
 * about 1 µs a posting), then kept up to date by the engine's own writes, which it sees whole (the
 * index file is locked to one process): pages put, each replacing its old terms, and books removed.
 * The terms kept are bounded (`termPagesLimits`), the least recently searched let go first.
 */

/** One term's pages in one book: page numbers ascending, how many times each holds the term, and each page's slot. */
export interface BookPostings {
  pages: number[];
  counts: number[];
  slots: number[];
}

/** One term's pages, by book seq; `pageCount`: how many pages hold it (its document frequency). */
export interface TermPages {
  books: Map<number, BookPostings>;
  pageCount: number;
}

/** A page written: its book seq and page number, its terms (with repeats), and whether it held terms before. */
export interface WrittenPage {
  seq: number;
  pageNumber: number;
  terms: readonly string[];
  replaced: boolean;
}

export interface TermPagesSource {
  /** The (page rowid, count) of every page holding the term, rowids ascending. */
  postings(term: string): Iterable<[rowid: number, count: number]>;
  /** Every page's rowid and length (its number of terms). */
  lengths(): Iterable<[rowid: number, length: number]>;
}

export interface TermPagesCache {
  /** The term's pages (read from the index the first time). */
  pagesOf(term: string): TermPages;
  /**
   * Every page's slot: a small number of its own while it is indexed (a page removed frees its slot
   * for another), so a search keeps what it learns of each page in arrays. `rowids` and `lengths`
   * by slot (a free slot: rowid -1); `pages`: how many are indexed, and `averageLength` their length.
   */
  slots(): { rowids: readonly number[]; lengths: readonly number[]; pages: number; averageLength: number };
  /** After a write committed: its pages. */
  written(pages: readonly WrittenPage[]): void;
  /** After a write committed: the book's pages are gone. */
  removedBook(seq: number): void;
}

/**
 * The most postings kept (three numbers each: about 50 MB), and the most terms (a page written again
 * is looked for in each term kept, its old terms being unknown to a contentless index).
 */
export const termPagesLimits = { postings: 2_000_000, terms: 4_096 };

/** The place of `value` in ascending `values`: its index, or where it would go (`found` false). */
function place(values: readonly number[], value: number): { at: number; found: boolean } {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return { at: low, found: values[low] === value };
}

export function termPagesCache(source: TermPagesSource, pageSpan: number, limits = termPagesLimits): TermPagesCache {
  /** By term, least recently searched first (a Map keeps insertion order). */
  const terms = new Map<string, TermPages>();
  let kept = 0;
  /** Read whole the first time a search needs them. */
  let loaded = false;
  const slotOf = new Map<number, number>();
  const rowids: number[] = [];
  const lengths: number[] = [];
  const free: number[] = [];
  let totalLength = 0;

  const load = (): void => {
    if (loaded) return;
    loaded = true;
    for (const [rowid, length] of source.lengths()) setLength(rowid, length);
  };

  /** A page's slot, given one if it has none. */
  const slot = (rowid: number): number => {
    let at = slotOf.get(rowid);
    if (at === undefined) {
      at = free.pop() ?? rowids.length;
      slotOf.set(rowid, at);
      rowids[at] = rowid;
      lengths[at] = 0;
    }
    return at;
  };

  const setLength = (rowid: number, length: number): void => {
    const at = slot(rowid);
    totalLength += length - lengths[at]!;
    lengths[at] = length;
  };

  const remove = (entry: TermPages, seq: number, pageNumber: number): void => {
    const book = entry.books.get(seq);
    if (!book) return;
    const { at, found } = place(book.pages, pageNumber);
    if (!found) return;
    book.pages.splice(at, 1);
    book.counts.splice(at, 1);
    book.slots.splice(at, 1);
    entry.pageCount--;
    kept--;
    if (book.pages.length === 0) entry.books.delete(seq);
  };

  const add = (entry: TermPages, seq: number, pageNumber: number, count: number): void => {
    let book = entry.books.get(seq);
    if (!book) entry.books.set(seq, (book = { pages: [], counts: [], slots: [] }));
    const { at, found } = place(book.pages, pageNumber);
    if (found) {
      book.counts[at] = count;
      return;
    }
    book.pages.splice(at, 0, pageNumber);
    book.counts.splice(at, 0, count);
    book.slots.splice(at, 0, slot(seq * pageSpan + pageNumber));
    entry.pageCount++;
    kept++;
  };

  return {
    pagesOf(term) {
      const held = terms.get(term);
      if (held) {
        // Most recently searched: last.
        terms.delete(term);
        terms.set(term, held);
        return held;
      }
      load();
      const entry: TermPages = { books: new Map(), pageCount: 0 };
      for (const [rowid, count] of source.postings(term)) add(entry, Math.floor(rowid / pageSpan), rowid % pageSpan, count);
      terms.set(term, entry);
      for (const [oldest, old] of terms) {
        if ((kept <= limits.postings && terms.size <= limits.terms) || old === entry) break;
        terms.delete(oldest);
        kept -= old.pageCount;
      }
      return entry;
    },

    slots() {
      load();
      const pages = slotOf.size;
      return { rowids, lengths, pages, averageLength: pages === 0 ? 0 : totalLength / pages };
    },

    written(pages) {
      for (const page of pages) {
        if (page.replaced) for (const entry of terms.values()) remove(entry, page.seq, page.pageNumber);
        if (loaded) setLength(page.seq * pageSpan + page.pageNumber, page.terms.length);
        const counts = new Map<string, number>();
        for (const term of page.terms) counts.set(term, (counts.get(term) ?? 0) + 1);
        for (const [term, count] of counts) {
          const entry = terms.get(term);
          if (entry) add(entry, page.seq, page.pageNumber, count);
        }
      }
    },

    removedBook(seq) {
      for (const entry of terms.values()) {
        const book = entry.books.get(seq);
        if (!book) continue;
        entry.pageCount -= book.pages.length;
        kept -= book.pages.length;
        entry.books.delete(seq);
      }
      if (!loaded) return;
      // Slots are freed after no term holds them: a freed slot may be given to a page of another book.
      for (const [rowid, at] of slotOf) {
        if (Math.floor(rowid / pageSpan) !== seq) continue;
        totalLength -= lengths[at]!;
        slotOf.delete(rowid);
        rowids[at] = -1;
        lengths[at] = 0;
        free.push(at);
      }
    },
  };
}
