import type { BookText, BookTextStore } from '../ocr/book-text.ts';
import type { BookTextPage } from '../ocr/pages/page.ts';
import type { PageStore } from '../ocr/pages/store.ts';
import { analyze } from './analysis.ts';
import { logger } from '../log.ts';
import { catalogueSortKeys } from '../ocr/catalogue/sort-keys.ts';
import type { IndexedBook, IndexedBookFields, IndexedPage, SearchEngine } from './engine.ts';
import { maxListingChars, maxListValues } from './rules.ts';

/**
 * Keeping the search index in step with the table (issue 17). The table is the truth: a change only
 * names what changed (a page, a book), and the indexer reads the record as it is now, so changes that
 * arrive twice, late or out of order all end with the index holding the table's current state. Nothing
 * of a change's content is trusted (on AWS a change comes from the table's stream: functions/search-indexer/handler.ts;
 * locally from DynamoDB Local's stream: infra/local/stream-poller.ts).
 *
 * The index holds page items only (lib/ocr/pages/store.ts): the pages embedded in old records
 * (`BookText.pages`, read only as a fallback) are not indexed, as search's snippets come from page
 * items too (lib/search/search.ts).
 */

/**
 * What changed: a page (its text, replaced or updated) or a book (its indexed fields, or the book
 * itself). `listingOnly`: only fields of its catalogue listing changed (tags, name, ...), none that
 * its pages carry, so its pages are left alone (on OpenSearch, setting them is a write per page).
 */
export type IndexChange = { kind: 'page'; bookTextId: string; pageNumber: number } | { kind: 'bookText'; bookTextId: string; listingOnly?: boolean };

export interface IndexingDeps {
  engine: SearchEngine;
  bookTexts: Pick<BookTextStore, 'getMany'>;
  pages: Pick<PageStore, 'pagesAt'>;
}

export interface ReindexDeps extends Omit<IndexingDeps, 'pages'> {
  pages: Pick<PageStore, 'pages'>;
}

export interface IndexingReport {
  /** Pages written to the index (each with its book's current fields). */
  pagesIndexed: number;
  /** Books whose fields were set on their indexed pages. */
  booksUpdated: number;
  /** Books no longer in the table, removed from the index. */
  booksRemoved: number;
  /**
   * Named pages not indexed: the page is no longer stored (the index has no page removal, and pages
   * are never deleted today; a reindex of the book puts what is stored), or its BookText is not.
   */
  pagesSkipped: number;
}

/** What one call reads per store call and writes per putPages: the stores' batch limit. */
export const indexingChunk = 100;

const chunks = <T>(items: readonly T[], size = indexingChunk): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** The fields of a book that every one of its index entries carries. */
export const indexedFields = (book: BookText): IndexedBookFields => ({
  userId: book.userId,
  visibility: book.visibility,
  status: book.status,
  language: book.language,
  rev: book.rev ?? 0,
});

/**
 * A BookText's entry in the catalogue listing (GET /ocr/books, lib/ocr/catalogue/listing.ts), or
 * undefined for a book the index cannot list: a language or status longer than the index holds
 * (lib/search/rules.ts maxListingChars; the service caps what it writes far below: lib/ocr/book-text.ts
 * bookFieldLimits). Tags and categories past the index's limits (books written before the service's
 * caps) are left out of the entry: no filter of GET /ocr/books can name them.
 */
export function indexedBook(book: BookText): IndexedBook | undefined {
  const fits = (value: string) => [...value].length <= maxListingChars;
  if (!fits(book.language) || !fits(book.status) || book.language === '') return undefined;
  const listable = (values: readonly string[]) => values.filter((value) => value !== '' && fits(value)).slice(0, maxListValues);
  return {
    ...indexedFields(book),
    bookTextId: book.bookTextId,
    tags: listable(book.tags),
    categories: listable(book.categories),
    ...catalogueSortKeys(book),
  };
}

/**
 * Puts a book's listing entry, or leaves the book out of the listing when it cannot be listed (only a
 * book written before the service's caps can be: no write since can make a listed book unlistable).
 */
async function putListing(engine: SearchEngine, book: BookText): Promise<void> {
  const entry = indexedBook(book);
  if (entry) return engine.putBook(entry);
  logger.warn('Book left out of the catalogue listing: a field is past what the index holds', { bookTextId: book.bookTextId });
}

const sameFields = (a: IndexedBookFields, b: IndexedBookFields): boolean =>
  a.userId === b.userId && a.visibility === b.visibility && a.status === b.status && a.language === b.language && a.rev === b.rev;

/** A page's index entry: its text analyzed once (lib/search/analysis.ts), with its book's fields. */
export function indexedPage(page: BookTextPage, fields: IndexedBookFields): IndexedPage {
  const { exact, stemmed } = analyze(typeof page.text === 'string' ? page.text : '');
  // The page's revision is its book's, read before the page (engine.ts `pageRev`).
  return { ...fields, bookTextId: page.bookTextId, pageNumber: page.pageNumber, exact, stemmed, pageRev: fields.rev };
}

async function readBooks(deps: Pick<IndexingDeps, 'bookTexts'>, ids: readonly string[]): Promise<Map<string, BookText>> {
  const found = new Map<string, BookText>();
  for (const part of chunks(ids)) {
    for (const [id, book] of await deps.bookTexts.getMany(part)) found.set(id, book);
  }
  return found;
}

/**
 * Applies changes to the index: duplicates count once; the named BookTexts and pages are read as they
 * are now (batch reads of at most 100), each page analyzed and put with its book's current fields, and
 * each changed book's fields set on its indexed pages and its listing entry put (`indexedBook`), or
 * the book removed when it is no longer stored.
 * The work is bounded by the changes given: no read or write covers a whole book (a field change is one
 * engine call, whatever the book's size).
 *
 * Why the index converges even against concurrent writes: the fields put with a page come from the
 * read just made, so they are at least as new as the change being applied. A field change made after
 * that read is a write of the BookText, which reaches the indexer as its own change; a BookText and its
 * pages share a partition, so the stream delivers their changes in order on one shard and that later
 * change is applied after this call (Lambda runs one batch per shard at a time; so does the local
 * poller). Applying it sets the new fields on every indexed page, those put here included.
 */
export async function indexChanges(deps: IndexingDeps, changes: readonly IndexChange[]): Promise<IndexingReport> {
  const report: IndexingReport = { pagesIndexed: 0, booksUpdated: 0, booksRemoved: 0, pagesSkipped: 0 };
  const pages = new Map<string, { bookTextId: string; pageNumber: number }>();
  // Per changed book: whether every change named only its listing.
  const changedBooks = new Map<string, boolean>();
  for (const change of changes) {
    if (change.kind === 'page') pages.set(`${change.bookTextId}#${change.pageNumber}`, { bookTextId: change.bookTextId, pageNumber: change.pageNumber });
    else changedBooks.set(change.bookTextId, (changedBooks.get(change.bookTextId) ?? true) && change.listingOnly === true);
  }
  const books = await readBooks(deps, [...new Set([...changedBooks.keys(), ...[...pages.values()].map((p) => p.bookTextId)])]);

  // Only pages of stored books are read; the others are skipped (their book's removal, if any, is its own change).
  const wanted = [...pages.values()].filter((p) => books.has(p.bookTextId));
  report.pagesSkipped += pages.size - wanted.length;
  const putPages = async () => {
    const written = new Set<string>();
    for (const part of chunks(wanted)) {
      const found = await deps.pages.pagesAt(part);
      const entries = found.flatMap((page) => {
        const book = books.get(page.bookTextId);
        return book ? [indexedPage(page, indexedFields(book))] : [];
      });
      report.pagesSkipped += part.length - entries.length;
      if (entries.length) await deps.engine.putPages(entries);
      report.pagesIndexed += entries.length;
      for (const entry of entries) written.add(entry.bookTextId);
    }
    // A page new to the index takes the fields it was put with, whatever its book's revision there
    // (an engine keeps fields per page): a book made private since they were read would have a page
    // counted as public until its next change. So its book is read again, and newer fields set.
    if (written.size === 0) return;
    const now = await readBooks(deps, [...written]);
    for (const [bookTextId, book] of now) {
      if (!sameFields(indexedFields(book), indexedFields(books.get(bookTextId)!))) await deps.engine.setBookFields(bookTextId, indexedFields(book));
    }
  };
  const updateBooks = async () => {
    for (const [bookTextId, listingOnly] of changedBooks) {
      const book = books.get(bookTextId);
      if (book) {
        if (!listingOnly) await deps.engine.setBookFields(bookTextId, indexedFields(book));
        await putListing(deps.engine, book);
        report.booksUpdated++;
      } else {
        await deps.engine.removeBook(bookTextId);
        report.booksRemoved++;
      }
    }
  };
  // Side by side: each put carries the revision it read, so their order does not matter, and a write
  // path that waits for each to be searchable (OpenSearch's refresh) waits once, not once per part.
  await Promise.all([putPages(), updateBooks()]);
  return report;
}

/**
 * Indexes all of a book's stored pages, 100 per putPages (a backfill: books written before the index
 * existed, or an index rebuilt). A book no longer stored is removed from the index. The book is read
 * again once its pages are put: a field change that a live indexer applied meanwhile (before these
 * pages were put with the older fields) is set again, so a backfill running beside the indexer cannot
 * leave a book's pages with stale fields; its listing entry is put from that second read.
 */
export async function reindexBookText(deps: ReindexDeps, bookTextId: string): Promise<IndexingReport> {
  const report: IndexingReport = { pagesIndexed: 0, booksUpdated: 0, booksRemoved: 0, pagesSkipped: 0 };
  const book = (await deps.bookTexts.getMany([bookTextId])).get(bookTextId);
  if (!book) {
    await deps.engine.removeBook(bookTextId);
    report.booksRemoved++;
    return report;
  }
  const fields = indexedFields(book);
  for (const part of chunks(await deps.pages.pages(bookTextId))) {
    await deps.engine.putPages(part.map((page) => indexedPage(page, fields)));
    report.pagesIndexed += part.length;
  }
  const now = (await deps.bookTexts.getMany([bookTextId])).get(bookTextId);
  if (!now) {
    await deps.engine.removeBook(bookTextId);
    report.booksRemoved++;
  } else {
    if (!sameFields(indexedFields(now), fields)) {
      await deps.engine.setBookFields(bookTextId, indexedFields(now));
      report.booksUpdated++;
    }
    await putListing(deps.engine, now);
  }
  return report;
}

/** Reindexes every book of `bookTextIds` (one at a time), adding up the reports; `progress` after each. */
export async function reindexBookTexts(
  deps: ReindexDeps,
  bookTextIds: AsyncIterable<string> | Iterable<string>,
  progress?: (done: number, report: IndexingReport) => void,
): Promise<IndexingReport & { books: number }> {
  const total = { books: 0, pagesIndexed: 0, booksUpdated: 0, booksRemoved: 0, pagesSkipped: 0 };
  for await (const bookTextId of bookTextIds) {
    const one = await reindexBookText(deps, bookTextId);
    total.books++;
    total.pagesIndexed += one.pagesIndexed;
    total.booksUpdated += one.booksUpdated;
    total.booksRemoved += one.booksRemoved;
    total.pagesSkipped += one.pagesSkipped;
    progress?.(total.books, total);
  }
  return total;
}
