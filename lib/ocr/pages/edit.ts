import type { User } from '../../auth/users.ts';
import { forbidden, internal } from '../../errors.ts';
import type { Objects } from '../../objects.ts';
import { canManage, findBookText } from '../access.ts';
import { languageProblem, listFieldProblem, splitList, type BookTextEdit, type BookTextStore, type PageEdit, type Visibility } from '../book-text.ts';
import { checkPageCount, checkPageRange, checkPageText, newPage, pageIdOf, pageNumberOf, type PageFields } from './page.ts';
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

type Body = Record<string, unknown>;

/** The spec answers a bad edit with its 500 (it lists no 400 here); nothing is written before the whole body is checked. */
const invalid = (message: string) => internal(message);

function nonEmptyString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`${name} must be a non-empty string`);
  return value.trim();
}

function list(value: unknown, name: 'tags' | 'categories'): string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) {
    throw invalid(`${name} must be an array of strings or a comma-separated string`);
  }
  const values = splitList(value);
  const problem = listFieldProblem(values, name);
  if (problem) throw invalid(problem);
  return values;
}

function language(value: unknown): string | undefined {
  const given = nonEmptyString(value, 'language');
  const problem = languageProblem(given);
  if (problem) throw invalid(problem);
  return given;
}

/** The page fields an edit may supply, checked; absent ones stay absent. */
function pageFields(value: unknown, where: string): PageFields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`${where} must be an object`);
  const { text, storageKey, isAIGenerated } = value as Body;
  if (text !== undefined && typeof text !== 'string') throw invalid(`${where}.text must be a string`);
  checkPageText(text, `${where}.text`);
  if (storageKey !== undefined && storageKey !== null && typeof storageKey !== 'string') throw invalid(`${where}.storageKey must be a string or null`);
  if (isAIGenerated !== undefined && typeof isAIGenerated !== 'boolean') throw invalid(`${where}.isAIGenerated must be a boolean`);
  return {
    ...(text !== undefined ? { text } : {}),
    ...(storageKey !== undefined ? { storageKey: storageKey || null } : {}),
    ...(isAIGenerated !== undefined ? { isAIGenerated } : {}),
  };
}

/** A malformed page number is the validation 500; one past the range is a 400 (docs/decisions.md, "Maxima and caps"). */
function pageNumber(value: unknown, where: string): number {
  return checkPageRange(pageNumberOf(value, where, invalid), where);
}

/** Later entries for the same page win: one write per page. */
const lastPerPage = <T extends { pageNumber: number }>(pages: T[]): T[] => [...new Map(pages.map((p) => [p.pageNumber, p])).values()];

/**
 * `pages` as an array replaces each listed page whole (absent fields take the defaults); as an
 * object keyed by page number it changes only the fields given. Unlisted pages are untouched.
 */
function readPages(value: unknown, bookTextId: string, at: string): PageEdit | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    checkPageCount(value.length, 'pages');
    const pages = value.map((item, i) => {
      const n = pageNumber((item as Body | null)?.pageNumber, `pages[${i}].pageNumber`);
      return newPage(bookTextId, n, pageFields(item, `pages[${i}]`), at);
    });
    return { replace: lastPerPage(pages) };
  }
  if (typeof value !== 'object' || value === null) throw invalid('pages must be an array or an object keyed by page number');
  checkPageCount(Object.keys(value).length, 'pages');
  const changes = Object.entries(value as Body).map(([key, fields]) => {
    const n = pageNumber(key, `pages key ${key}`);
    return { pageId: pageIdOf(bookTextId, n), pageNumber: n, ...pageFields(fields, `pages.${key}`) };
  });
  return { change: lastPerPage(changes) };
}

function readEdit(body: Body, bookTextId: string, at: string) {
  const visibility = body.visibility === 'public' || body.visibility === 'private' ? (body.visibility as Visibility) : undefined;
  if (body.extractedText !== undefined && typeof body.extractedText !== 'string') throw invalid('extractedText must be a string');
  return {
    fileName: nonEmptyString(body.fileName, 'fileName'),
    author: nonEmptyString(body.author, 'author'),
    language: language(body.language),
    extractedText: body.extractedText as string | undefined,
    visibility,
    tags: list(body.tags, 'tags'),
    categories: list(body.categories, 'categories'),
    pages: readPages(body.pages, bookTextId, at),
  };
}

export const bookUpdated = 'Book updated successfully';

export async function editBookText(deps: BookEditDeps, user: User, bookTextId: string | undefined, body: Body) {
  const bookText = await findBookText(deps.bookTexts, bookTextId);
  if (!canManage(user, bookText)) throw forbidden('Unauthorized to update this book');
  const at = deps.now().toISOString();
  const e = readEdit(body, bookText.bookTextId, at);
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
