import type { BookText, StoredText, TextPlacement } from '../../ocr/book-text.ts';
import { entities } from './entities.ts';
import type { Update } from './update-expression.ts';

/** The BookText as stored: the record plus the keys of the owner's job lists and of the catalogue (entities.ts). */
export const bookTextItem = entities.bookText.item;

type Changes = Partial<Pick<BookText, 'status' | 'visibility' | 'fileName' | 'pageCount' | 'language' | 'tags' | 'categories' | 'completedAt' | 'error' | 'processingTime'>>;

/**
 * Sets the given fields (undefined ones are left alone) and the index attributes they move, derived
 * as the put derives them, so no update leaves an index behind its record.
 */
export function setFields(u: Update, bookText: BookText, changes: Changes): Update {
  const next = { ...bookText, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) } as BookText;
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    u.set([name], value);
    for (const [attribute, indexValue] of Object.entries(entities.bookText.moved(next, name as keyof BookText))) u.set([attribute], indexValue);
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
