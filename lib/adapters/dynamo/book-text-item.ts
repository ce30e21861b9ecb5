import type { BookText, StoredText, TextPlacement } from '../../ocr/book-text.ts';
import { keys } from './keys.ts';
import type { Update } from './update-expression.ts';

/**
 * The BookText's index attributes, each declared once with the field it is derived from: the item
 * written at creation and every later update that changes one of those fields take them from here,
 * so no write path can leave an index behind its record.
 */
const derived: { [F in keyof BookText]?: (book: BookText) => Record<string, string> } = {
  status: (b) => ({ gsi2pk: keys.ownerJobsByStatus(b.userId, b.status, b.createdAt, b.bookTextId).gsi2pk }),
  visibility: (b) => ({ catalogue: keys.catalogue(b.visibility) }),
  fileName: (b) => ({ byName: keys.catalogueName(b.fileName, b.bookTextId) }),
  pageCount: (b) => ({ byPages: keys.cataloguePages(b.pageCount, b.bookTextId) }),
};

/** The BookText as stored: the record plus the keys of the owner's job lists and of the catalogue. */
export const bookTextItem = (bookText: BookText) => ({
  ...keys.bookText(bookText.bookTextId),
  ...keys.ownerJobs(bookText.userId, bookText.createdAt, bookText.bookTextId),
  ...keys.ownerJobsByStatus(bookText.userId, bookText.status, bookText.createdAt, bookText.bookTextId),
  ...keys.catalogueSort(bookText),
  ...Object.assign({}, ...Object.values(derived).map((derive) => derive(bookText))),
  entity: 'BookText',
  ...bookText,
});

type Changes = Partial<Pick<BookText, 'status' | 'visibility' | 'fileName' | 'pageCount' | 'language' | 'tags' | 'categories' | 'completedAt' | 'error' | 'processingTime'>>;

/** Sets the given fields (undefined ones are left alone) and the index attributes derived from them. */
export function setFields(u: Update, book: BookText, changes: Changes): Update {
  const next = { ...book, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) } as BookText;
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    u.set([name], value);
    for (const [attribute, indexValue] of Object.entries(derived[name as keyof BookText]?.(next) ?? {})) u.set([attribute], indexValue);
  }
  return u;
}

/**
 * Writes a new book-level text on condition that the record still holds `current` (the text this
 * writer read): a writer that raced another reads again and names what it replaces correctly.
 */
export function setText(u: Update, text: TextPlacement, current: StoredText | undefined): string {
  u.set(['extractedText'], text.extractedText);
  if (text.stored) u.set(['storedText'], text.stored);
  else u.remove(['storedText']);
  const path = u.path(['storedText', 'version']);
  return current ? `${path} = ${u.value(current.version)}` : `attribute_not_exists(${path})`;
}
