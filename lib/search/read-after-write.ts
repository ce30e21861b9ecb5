import { logger } from '../log.ts';
import { indexChanges, type IndexChange, type IndexingDeps } from './indexing.ts';

/**
 * Read after write (issue 26; docs/architecture.md, "Read after write"): a write that changes what a listing, a
 * total or a search shows puts that change into the search index itself before it answers, so the
 * next `GET /ocr/books` (filtered, sorted, deep), `GET /ocr/search` and in-book search show it,
 * whoever asks. The table's stream still feeds the index (lib/search/indexing.ts): it is the repair
 * path, for a write whose index update failed and for writes made around the service.
 *
 * Both paths put what they read from the table, tagged with the record's revision (`rev`, and each
 * page's), and an engine keeps the newest (lib/search/engine.ts): the stream's indexer putting a read
 * older than this write's, a moment later, changes nothing.
 */
export interface IndexWrites {
  /**
   * After the table has stored a write: applies `changes` to the index, reading the named books and
   * pages as they are now, and resolves once a search sees them (the write path's engine waits for
   * visibility). A failure is logged, not thrown: the write is stored and answered, and the stream
   * puts it into the index a moment later.
   */
  written(changes: readonly IndexChange[]): Promise<void>;
  /**
   * Before a write makes a book private: takes it out of every other caller's listings, totals and
   * searches at once (engine.ts `hideBook`), so none counts it even while the write is on its way.
   * Throws when the index cannot, and the write must then not be made. If the write then fails, call
   * `written` for the book: the index takes what the table still holds.
   */
  hiding(bookTextId: string): Promise<void>;
}

/** The change of a book whose record was just created: it has no page yet, so only its listing entry. */
export const created = (bookTextId: string): IndexChange => ({ kind: 'bookText', bookTextId, listingOnly: true });

/** The changes of pages just written. */
export const pagesWritten = (bookTextId: string, pageNumbers: readonly number[]): IndexChange[] =>
  pageNumbers.map((pageNumber) => ({ kind: 'page', bookTextId, pageNumber }));

export function indexWrites(deps: IndexingDeps): IndexWrites {
  return {
    async written(changes) {
      if (changes.length === 0) return;
      try {
        await indexChanges(deps, changes);
      } catch (error) {
        const { name } = error instanceof Error ? error : { name: typeof error };
        const bookTextIds = [...new Set(changes.map((change) => change.bookTextId))].slice(0, 10);
        logger.error('Search index not updated by a write; the table stream will update it', { bookTextIds, error: name });
      }
    },
    hiding: (bookTextId) => deps.engine.hideBook(bookTextId),
  };
}
