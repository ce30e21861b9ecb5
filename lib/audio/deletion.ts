import { findBook, findLine } from './access.ts';
import { audioKey, bookPrefix, contentHash, fieldPrefix, linePrefix } from './audio-key.ts';
import type { AudioDeps } from './deps.ts';
import { removeAudio } from './generate.ts';
import type { AudioField } from './voices.ts';

/** The three audio deletes (docs/SPEC.md 4.2), editors and admins only; books and lines stay. */
type Params = Record<string, string | undefined>;

async function deleteUnder(deps: AudioDeps, prefix: string): Promise<number> {
  const keys = (await deps.audio.list(prefix)).map((o) => o.key);
  return keys.length ? removeAudio(deps, keys) : 0;
}

/** With a voice: that voice's file for the current content (`deletedFiles: 1`); without: every voice (`"all"`). */
export async function deleteFieldAudio(deps: AudioDeps, params: Params, voice: string | undefined) {
  const book = await findBook(deps, params.bookId);
  const line = await findLine(deps, book, params.lineId);
  const field = params.field ?? '';
  if (voice) {
    await removeAudio(deps, [audioKey(book.bookId, line.lineId, field as AudioField, voice, contentHash(line, voice))]);
    return { success: true, message: `Deleted the ${voice} audio of ${field}`, deletedFiles: 1 };
  }
  await deleteUnder(deps, fieldPrefix(book.bookId, line.lineId, field));
  return { success: true, message: `Deleted all audio of ${field}`, deletedFiles: 'all' };
}

export async function deleteLineAudio(deps: AudioDeps, params: Params) {
  const book = await findBook(deps, params.bookId);
  const line = await findLine(deps, book, params.lineId);
  const deletedFiles = await deleteUnder(deps, linePrefix(book.bookId, line.lineId));
  return { success: true, message: 'Deleted all audio of the line', deletedFiles };
}

export async function deleteBookAudio(deps: AudioDeps, params: Params) {
  const book = await findBook(deps, params.bookId);
  // The whole record at once (with what it names that the bucket no longer has), before the files.
  await deps.audioFiles.forgetBook(book.bookId);
  const keys = (await deps.audio.list(bookPrefix(book.bookId))).map((o) => o.key);
  const deletedFiles = keys.length ? await deps.audio.deleteMany(keys) : 0;
  return { success: true, message: 'Deleted all audio of the book', deletedFiles };
}
