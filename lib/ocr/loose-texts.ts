import { logger } from '../log.ts';
import type { Objects } from '../objects.ts';
import { textKey, type BookTextStore } from './book-text.ts';
import type { OcrJobStore } from './jobs/store.ts';

/**
 * The sweeper's part in "Edits are all or nothing" (docs/architecture.md): what a write left half done because it
 * stopped, or could not reach storage or the table to clean up, is found by key and finished here.
 *
 * - Page edits too large for one transaction that were neither committed nor undone are undone
 *   (lib/adapters/dynamo/book-text-edits.ts).
 * - Text objects noted loose (lib/ocr/text-storage.ts: noted before being put, and when a record
 *   stops naming one, in that record's write) are removed unless the record names them: the record
 *   is the authority.
 */
export interface HalfSavedDeps {
  bookTexts: Pick<BookTextStore, 'looseTexts' | 'forgetLooseText' | 'undoStaleEdits'>;
  ocrJobs: Pick<OcrJobStore, 'byJobId'>;
  uploads: Objects;
}

/**
 * How long a writer may still be at work (a request ends within Lambda's 15 minutes): younger notes
 * and edits may yet be committed, so the sweeper leaves them.
 */
export const writerGoneAfterMs = 15 * 60_000;
const batch = 100;
/** A sweep does at most this many batches of each; the next sweep takes the rest. */
const maxBatches = 10;

export async function sweepLooseTexts(deps: HalfSavedDeps, now: Date): Promise<{ removed: number }> {
  const before = new Date(now.getTime() - writerGoneAfterMs).toISOString();
  let removed = 0;
  for (let i = 0; i < maxBatches; i++) {
    const notes = await deps.bookTexts.looseTexts(before, batch);
    let progress = 0;
    for (const note of notes) {
      try {
        const bookText = await deps.ocrJobs.byJobId(note.jobId);
        // Named by its record (a note outliving its write): kept, only the note goes.
        if (bookText?.storedText?.version !== note.version) {
          await deps.uploads.delete(textKey(note.jobId, note.version));
          removed++;
        }
        await deps.bookTexts.forgetLooseText(note);
        progress++;
      } catch (error) {
        // The note stays; the next sweep tries again.
        logger.warn('Sweeping a loose text failed', { jobId: note.jobId, version: note.version, error: error as Error });
      }
    }
    if (notes.length < batch || progress === 0) break;
  }
  return { removed };
}

export async function sweepHalfSavedWrites(deps: HalfSavedDeps, now: Date): Promise<{ editsUndone: number; looseTextsRemoved: number }> {
  const before = new Date(now.getTime() - writerGoneAfterMs).toISOString();
  let editsUndone = 0;
  for (let i = 0; i < maxBatches; i++) {
    const undone = await deps.bookTexts.undoStaleEdits(before, batch);
    editsUndone += undone;
    if (undone < batch) break;
  }
  const { removed } = await sweepLooseTexts(deps, now);
  return { editsUndone, looseTextsRemoved: removed };
}
