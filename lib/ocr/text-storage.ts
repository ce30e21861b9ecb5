import { internal, notFound } from '../errors.ts';
import { newObjectId } from '../ids.ts';
import { logger } from '../log.ts';
import type { Objects } from '../objects.ts';
import { policies, retry, RetriesExhausted } from '../retry.ts';
import { textKey, type BookText, type BookTextStore, type StoredText, type TextPlacement, type TextWrite } from './book-text.ts';

/** Text longer than this goes to storage; the record keeps a preview (docs/SPEC.md section 8). */
export const inlineTextLimit = 10_000;
export const previewLength = 1_000;

/** What a write of a book-level text needs: the bucket, and the notes of objects that may be strays. */
export interface TextWriteDeps {
  uploads: Objects;
  bookTexts: Pick<BookTextStore, 'noteLooseText' | 'forgetLooseText'>;
  now: () => Date;
}

/**
 * Stores a long text under a new version; a short one stays inline. The object is noted loose
 * before it is put: whatever fails afterwards, the sweeper finds it by its note
 * (lib/ocr/loose-texts.ts) and removes it unless a record names it.
 */
async function placeText(deps: TextWriteDeps, jobId: string, text: string): Promise<TextPlacement> {
  if (text.length <= inlineTextLimit) return { extractedText: text, stored: null };
  const stored: StoredText = { version: newObjectId(), length: text.length };
  await deps.bookTexts.noteLooseText({ jobId, version: stored.version, at: deps.now().toISOString() });
  await deps.uploads.put(textKey(jobId, stored.version), text, 'text/plain; charset=utf-8');
  return { extractedText: text.slice(0, previewLength), stored };
}

/** Removes a text no record names, then its note; a failure leaves the note, and so the sweeper's turn. */
const removeQuietly = async (deps: TextWriteDeps, jobId: string, stored: StoredText | null | undefined) => {
  if (!stored) return;
  try {
    await deps.uploads.delete(textKey(jobId, stored.version));
    await deps.bookTexts.forgetLooseText({ jobId, version: stored.version });
  } catch (error) {
    // Noted, so not lost: the sweeper removes it (the record never points at it).
    logger.warn('Removing a replaced text failed; the sweeper will', { jobId, version: stored.version, error: error as Error });
  }
};

/**
 * Writes a record change that may carry a new book-level text (docs/SPEC.md 4.1 `POST /ocr/result`,
 * `PATCH /ocr/books/:bookTextId`): the text is noted and stored first under its own version, then
 * `commit` writes the record, which names it and, in the same write, drops its note and notes the
 * text it replaced. Afterwards the replaced text is removed; if the record write fails, the new
 * object is. Readers therefore always find the object the record names, and an object no record
 * names is always noted, so a removal that fails is the sweeper's (docs/architecture.md, "Edits are all or nothing").
 */
export async function writeWithText(
  deps: TextWriteDeps,
  jobId: string,
  text: string | undefined,
  commit: (placement: TextPlacement | undefined) => Promise<TextWrite>,
): Promise<void> {
  const placement = text === undefined ? undefined : await placeText(deps, jobId, text);
  let written: TextWrite;
  try {
    written = await commit(placement);
  } catch (error) {
    await removeQuietly(deps, jobId, placement?.stored);
    throw error;
  }
  if (placement && written.replaced?.version !== placement.stored?.version) await removeQuietly(deps, jobId, written.replaced);
}

/**
 * The BookText's whole text: from storage when only a preview is kept in the record. A text missing
 * from storage was replaced meanwhile (an object is removed only after a newer text is recorded), so
 * the record is read again for it (policies.textRead).
 */
export async function fullText(deps: { bookTexts: Pick<BookTextStore, 'get'>; uploads: Objects }, bookText: BookText): Promise<string> {
  let current = bookText;
  const read = async (attempt: number) => {
    if (attempt > 1) {
      const again = await deps.bookTexts.get(current.bookTextId);
      if (!again) throw notFound('Book not found');
      current = again;
    }
    if (!current.storedText) return current.extractedText;
    return deps.uploads.getText(textKey(current.jobId, current.storedText.version));
  };
  try {
    return await retry(read, { ...policies.textRead, until: (text) => text !== undefined });
  } catch (error) {
    if (!(error instanceof RetriesExhausted)) throw error;
    logger.error('A stored text named by its record is missing', { bookTextId: current.bookTextId, version: current.storedText?.version });
    throw internal('The full text is missing from storage');
  }
}

export const hasFullText = (bookText: Pick<BookText, 'storedText'>): boolean => Boolean(bookText.storedText);
