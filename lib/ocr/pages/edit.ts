import type { User } from '../../auth/users.ts';
import { forbidden } from '../../errors.ts';
import type { Objects } from '../../objects.ts';
import { canManage, findBookText } from '../access.ts';
import type { BookText, BookTextEdit, BookTextStore, PageEdit, Visibility } from '../book-text.ts';
import { newPage, pageIdOf, type PageFields } from './page.ts';
import { writeWithText } from '../text-storage.ts';
import type { IndexChange } from '../../search/indexing.ts';
import { pagesWritten, type IndexWrites } from '../../search/read-after-write.ts';

/** Editing a digitized book (docs/SPEC.md 4.1 `PATCH /ocr/books/:bookTextId`). */
export interface BookEditDeps {
  bookTexts: BookTextStore;
  uploads: Objects;
  /** The edit is in the index before it answers (lib/search/read-after-write.ts). */
  index: IndexWrites;
  now: () => Date;
}

/** A page an edit writes: replaced whole (absent fields take the defaults), or only the fields given changed. */
export interface PageWrite extends PageFields {
  pageNumber: number;
}

/**
 * `PATCH /ocr/books/:bookTextId`'s body as read (functions/ocr-api/contract.ts): names trimmed and not
 * empty, lists split and within their caps, page numbers whole and within the range, texts within
 * theirs; `visibility` only when one of the two. Only the fields given change.
 */
export interface BookEdit {
  fileName?: string;
  author?: string;
  language?: string;
  extractedText?: string;
  visibility?: Visibility;
  tags?: string[];
  categories?: string[];
  /** An array replaces each listed page whole; an object keyed by page number changes only the fields given. Unlisted pages are untouched. */
  pages?: { replace: PageWrite[] } | { change: PageWrite[] };
}

/** Later entries for the same page win: one write per page. */
const lastPerPage = <T extends { pageNumber: number }>(pages: T[]): T[] => [...new Map(pages.map((p) => [p.pageNumber, p])).values()];

/** An edit's pages as the store writes them. */
function pageEdit(pages: BookEdit['pages'], bookTextId: string, at: string): PageEdit | undefined {
  if (!pages) return undefined;
  if ('replace' in pages) return { replace: lastPerPage(pages.replace.map(({ pageNumber, ...fields }) => newPage(bookTextId, pageNumber, fields, at))) };
  return {
    change: lastPerPage(
      pages.change.map(({ pageNumber, ...fields }) => ({
        pageId: pageIdOf(bookTextId, pageNumber),
        pageNumber,
        ...fields,
        ...(fields.storageKey !== undefined ? { storageKey: fields.storageKey || null } : {}),
      })),
    ),
  };
}

export const bookUpdated = 'Book updated successfully';

/** The book a user may edit (its owner, editors and admins), checked before the edit is read. */
export async function bookToEdit(deps: Pick<BookEditDeps, 'bookTexts'>, user: User, bookTextId: string | undefined): Promise<BookText> {
  const bookText = await findBookText(deps.bookTexts, bookTextId);
  if (!canManage(user, bookText)) throw forbidden('Unauthorized to update this book');
  return bookText;
}

export async function editBookText(deps: BookEditDeps, bookText: BookText, given: BookEdit) {
  const at = deps.now().toISOString();
  const e = { ...given, pages: pageEdit(given.pages, bookText.bookTextId, at) };
  const file = await deps.bookTexts.getFile(bookText.fileId);

  // One write of the record, its File and its pages (the store's `edit`): a PATCH that fails has
  // changed none of them (docs/architecture.md, "Edits are all or nothing").
  const writeBook = () =>
    writeWithText(deps, bookText.jobId, e.extractedText, (text) => {
      const edit: BookTextEdit = {
        at,
        fileName: e.fileName,
        file: file ? { fileName: e.fileName, author: e.author } : undefined,
        language: e.language,
        visibility: e.visibility,
        tags: e.tags,
        categories: e.categories,
        text,
        pages: e.pages,
      };
      return deps.bookTexts.edit(bookText, edit);
    });
  const pageNumbers = !e.pages ? [] : 'replace' in e.pages ? e.pages.replace.map((p) => p.pageNumber) : e.pages.change.map((p) => p.pageNumber);
  // Fields its pages carry in the index change with it (setBookFields); else only its listing entry.
  const book: IndexChange = { kind: 'bookText', bookTextId: bookText.bookTextId, listingOnly: e.visibility === undefined && e.language === undefined };
  // Made private: out of others' listings, totals and searches before the table says so, so no one's
  // total counts it even while this write is on its way.
  const hides = e.visibility === 'private' && bookText.visibility !== 'private';
  if (hides) await deps.index.hiding(bookText.bookTextId);
  try {
    await writeBook();
  } catch (error) {
    // The index takes back what the table still holds (the book public again, if it is).
    if (hides) await deps.index.written([book]);
    throw error;
  }
  await deps.index.written([...pagesWritten(bookText.bookTextId, pageNumbers), book]);

  return {
    success: true,
    message: bookUpdated,
    book: {
      bookTextId: bookText.bookTextId,
      jobId: bookText.jobId,
      fileId: bookText.fileId,
      fileName: e.fileName ?? bookText.fileName,
      author: file ? (e.author ?? file.author) : null,
      visibility: e.visibility ?? bookText.visibility,
      language: e.language ?? bookText.language,
      tags: e.tags ?? bookText.tags,
      categories: e.categories ?? bookText.categories,
      pageCount: bookText.pageCount,
      status: bookText.status,
      createdAt: bookText.createdAt,
      updatedAt: at,
    },
  };
}
