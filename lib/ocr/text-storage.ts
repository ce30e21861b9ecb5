import type { Objects } from '../objects.ts';
import type { BookText, ResultUpdate } from './book-text.ts';

/** Text longer than this goes to storage; the record keeps a preview (SPEC.md section 8). */
export const inlineTextLimit = 10_000;
export const previewLength = 1_000;
export const resultTextKey = (jobId: string) => `ocr-results/${jobId}.txt`;

/**
 * Where a new book-level text lives (SPEC.md 4.1 `POST /ocr/result`): a long one in storage with a
 * preview in the record, a short one inline, its stored predecessor to be removed once the record no
 * longer names it (`removeStored`, called after the record is written).
 */
export async function placeText(uploads: Objects, book: Pick<BookText, 'jobId' | 'metadata'>, text: string) {
  const key = resultTextKey(book.jobId);
  if (text.length > inlineTextLimit) {
    await uploads.put(key, text, 'text/plain; charset=utf-8');
    const update: Pick<ResultUpdate, 'extractedText' | 'textStorage'> = { extractedText: text.slice(0, previewLength), textStorage: { key, length: text.length } };
    return { update, removeStored: async () => undefined };
  }
  const stored = Boolean(book.metadata.textStorageKey);
  const update: Pick<ResultUpdate, 'extractedText' | 'textStorage'> = { extractedText: text, ...(stored ? { textStorage: null } : {}) };
  return { update, removeStored: () => (stored ? uploads.delete(key).catch(() => undefined) : Promise.resolve()) };
}
