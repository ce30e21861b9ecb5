import { internal, notFound } from '../errors.ts';
import { newObjectId } from '../ids.ts';
import { logger } from '../log.ts';
import type { Objects } from '../objects.ts';
import { policies, retry, RetriesExhausted } from '../retry.ts';
import type { BookText, BookTextStore, StoredText, TextPlacement, TextWrite } from './book-text.ts';

/** Text longer than this goes to storage; the record keeps a preview (SPEC.md section 8). */
export const inlineTextLimit = 10_000;
export const previewLength = 1_000;

/**
 * Where a stored text lives: derived from the job and a version the record holds, never from client
 * data. Each text gets a key of its own (SPEC.md names `ocr-results/<jobId>.txt`; a version per text
 * is what lets racing writers each commit a whole text: no writer overwrites or deletes an object
 * that the record still names).
 */
export const textKey = (jobId: string, version: string) => `ocr-results/${jobId}/${version}.txt`;

/** Stores a long text under a new version; a short one stays inline. */
async function placeText(uploads: Objects, jobId: string, text: string): Promise<TextPlacement> {
  if (text.length <= inlineTextLimit) return { extractedText: text, stored: null };
  const stored: StoredText = { version: newObjectId(), length: text.length };
  await uploads.put(textKey(jobId, stored.version), text, 'text/plain; charset=utf-8');
  return { extractedText: text.slice(0, previewLength), stored };
}

const removeQuietly = (uploads: Objects, jobId: string, stored: StoredText | null | undefined) =>
  stored
    ? uploads.delete(textKey(jobId, stored.version)).catch((error: unknown) => {
        // An object nobody names costs storage only; the record never points at it.
        logger.warn('Removing a replaced text failed', { jobId, version: stored.version, error: error as Error });
      })
    : Promise.resolve();

/**
 * Writes a record change that may carry a new book-level text (SPEC.md 4.1 `POST /ocr/result`,
 * `PATCH /ocr/books/:bookTextId`): the text is stored first under its own version, then `commit`
 * writes the record, which names it. Afterwards the text the record named before is removed; if the
 * record write fails, the new object is. Readers therefore always find the object the record names.
 */
export async function writeWithText(
  uploads: Objects,
  jobId: string,
  text: string | undefined,
  commit: (placement: TextPlacement | undefined) => Promise<TextWrite>,
): Promise<void> {
  const placement = text === undefined ? undefined : await placeText(uploads, jobId, text);
  let written: TextWrite;
  try {
    written = await commit(placement);
  } catch (error) {
    await removeQuietly(uploads, jobId, placement?.stored);
    throw error;
  }
  if (placement && written.replaced?.version !== placement.stored?.version) await removeQuietly(uploads, jobId, written.replaced);
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
