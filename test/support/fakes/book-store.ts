import type { Book, BookImport, BookStore, Line } from '../../../lib/books/book.ts';
import { copy } from './copy.ts';

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** BookStore in memory (lib/adapters/dynamo/books.ts): books, their lines in id order, and import records. */
export class FakeBookStore implements BookStore {
  readonly books = new Map<string, Book>();
  /** By book, then line id. */
  readonly lineItems = new Map<string, Map<string, Line>>();
  readonly imports = new Map<string, BookImport>();

  constructor(books: readonly { book: Book; lines?: Line[] }[] = []) {
    for (const { book, lines = [] } of books) {
      this.putLines(book.bookId, lines);
      this.books.set(book.bookId, copy(book));
    }
  }

  private putLines(bookId: string, lines: readonly Line[]) {
    let stored = this.lineItems.get(bookId);
    if (!stored) this.lineItems.set(bookId, (stored = new Map()));
    for (const line of lines) stored.set(line.lineId, copy(line));
  }

  async create(book: Book, lines: Line[]) {
    this.putLines(book.bookId, lines);
    if (this.books.has(book.bookId)) throw new Error(`Book ${book.bookId} exists (the adapter's condition fails)`);
    this.books.set(book.bookId, copy(book));
  }

  async beginImport(importKey: string, at: string, bookIdOf: (generation: number) => string) {
    const current = this.imports.get(importKey);
    if (current?.state === 'done') return copy(current);
    const generation = current?.state === 'abandoned' ? current.generation + 1 : (current?.generation ?? 0);
    const next: BookImport = { importKey, bookId: bookIdOf(generation), generation, state: 'importing', startedAt: at };
    this.imports.set(importKey, next);
    return copy(next);
  }

  async finishImport(started: BookImport, book: Book, lines: Line[]) {
    this.putLines(book.bookId, lines);
    if (this.books.has(book.bookId)) return false;
    const current = this.imports.get(started.importKey);
    if (current?.state !== 'importing' || current.generation !== started.generation) {
      throw new Error(`Import ${started.importKey} is no longer this attempt's (the adapter's transaction fails)`);
    }
    this.books.set(book.bookId, copy(book));
    current.state = 'done';
    return true;
  }

  async staleImports(before: string, limit: number) {
    return [...this.imports.values()]
      .filter((i) => i.state !== 'done' && i.startedAt < before)
      .sort((a, b) => compare(`${a.startedAt}#${a.importKey}`, `${b.startedAt}#${b.importKey}`))
      .slice(0, limit)
      .map(copy);
  }

  async removeAbandoned(stale: BookImport) {
    const current = this.imports.get(stale.importKey);
    const abandonable =
      current !== undefined &&
      current.generation === stale.generation &&
      ((current.state === 'importing' && current.startedAt === stale.startedAt) || current.state === 'abandoned');
    if (!abandonable) return false;
    current.state = 'abandoned';
    this.lineItems.delete(stale.bookId);
    this.imports.delete(stale.importKey);
    return true;
  }

  async get(bookId: string) {
    const found = this.books.get(bookId);
    return found && copy(found);
  }

  async lines(bookId: string) {
    return [...(this.lineItems.get(bookId)?.values() ?? [])].sort((a, b) => compare(a.lineId, b.lineId)).map(copy);
  }

  async line(bookId: string, lineId: string) {
    const found = this.lineItems.get(bookId)?.get(lineId);
    return found && copy(found);
  }
}
