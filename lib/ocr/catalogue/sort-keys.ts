import type { BookText } from '../book-text.ts';

/** How far a name counts in the name order: its first 200 UTF-16 units, never half a pair. */
const nameUnits = 200;

/** The start of `text`, at most `units` UTF-16 units, without a high surrogate cut from its pair. */
function head(text: string, units: number): string {
  const cut = text.slice(0, units);
  return /[\uD800-\uDBFF]$/.test(cut) && text.length > units ? cut.slice(0, -1) : cut;
}

/**
 * The catalogue's sort keys (docs/SPEC.md 4.1 `GET /ocr/books` sorts): by creation, by name (NFKC and
 * case-folded, so capitals do not matter: the spec's name sorts "do not reliably order by name")
 * and by page count, each ending with `#` and the id, so no two books tie. Keys compare as UTF-8
 * bytes, as DynamoDB orders them; the table's catalogue indexes (lib/adapters/dynamo/keys.ts) and
 * the search index's listing (lib/search/indexing.ts) both use these.
 *
 * A name cut at 200 units inside a surrogate pair drops the half pair (since 2026-11-24); a key
 * stored before holds U+FFFD there (UTF-8 has no half pairs) until the book's name is edited: it
 * orders such a book after the others sharing its first 199 units, nothing else.
 */
export const catalogueSortKeys = (book: Pick<BookText, 'bookTextId' | 'createdAt' | 'fileName' | 'pageCount'>) => ({
  byDate: `${book.createdAt}#${book.bookTextId}`,
  byName: `${head((book.fileName ?? '').normalize('NFKC').toLowerCase(), nameUnits)}#${book.bookTextId}`,
  byPages: `${String(Math.max(0, Math.trunc(book.pageCount || 0))).padStart(10, '0')}#${book.bookTextId}`,
});

/** Sort keys in the catalogue's order: their UTF-8 bytes (JavaScript's `<` compares UTF-16 units). */
export const compareSortKeys = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
