import type { Caller } from '../auth/caller.ts';
import type { Book, Line } from '../books/book.ts';
import { badRequest, notFound } from '../errors.ts';
import { findBook, findLine, requireReadAccess } from './access.ts';
import type { AudioDeps } from './deps.ts';
import { fieldAnswerHead, fieldAudio, fieldFrom, presignAudio, storedAudio } from './generate.ts';
import { generatesOnDemand } from './generation.ts';
import type { AudioField, VoiceId } from './voices.ts';

/** `.../:field/url` and `.../:field/stream`: existing audio for anyone, made on demand for editors and admins. */
export const notGenerated = 'Audio has not been generated for this line';
/** docs/SPEC.md 7: the one 400 of both, for the path's field or the query's voice (which the contract checks). */
export const invalidFieldOrVoice = 'Invalid field or voice';

/** S3 signs GET URLs for at most 7 days: `expires` is read as 1 second to this. */
export const maxExpires = 7 * 24 * 3600;

/** The query as the routes' contracts parse it: a valid voice id, and the URL's lifetime in seconds. */
export interface PlaybackQuery {
  voice: VoiceId;
}
export interface UrlQuery extends PlaybackQuery {
  expires: number;
}

function pathField(params: Record<string, string | undefined>): AudioField {
  const field = fieldFrom(params.field);
  if (!field) throw badRequest(invalidFieldOrVoice);
  return field;
}

async function audioFor(deps: AudioDeps, caller: Caller, book: Book, line: Line, field: AudioField, voice: string) {
  const key = await storedAudio(deps, book, line, field, voice);
  if (key) return { storageKey: key, cached: true };
  if (!generatesOnDemand(caller.kind === 'user' ? caller.user : undefined)) throw notFound(notGenerated);
  return fieldAudio(deps, book, line, field, voice);
}

export async function audioUrl(deps: AudioDeps, caller: Caller, params: Record<string, string | undefined>, { voice, expires: expiresIn }: UrlQuery) {
  const field = pathField(params);
  const book = await findBook(deps, params.bookId);
  await requireReadAccess(deps, caller, book);
  const line = await findLine(deps, book, params.lineId);
  const audio = await audioFor(deps, caller, book, line, field, voice);
  return {
    ...fieldAnswerHead(book, line, field, voice),
    audioUrl: await presignAudio(deps, audio.storageKey, expiresIn),
    expiresIn,
    cached: audio.cached,
  };
}

/** The MP3 itself. The spec checks no read access here, only that the audio exists (or may be made). */
export async function streamAudio(deps: AudioDeps, caller: Caller, params: Record<string, string | undefined>, { voice }: PlaybackQuery) {
  const field = pathField(params);
  const book = await findBook(deps, params.bookId);
  const line = await findLine(deps, book, params.lineId);
  const audio = await audioFor(deps, caller, book, line, field, voice);
  const bytes = await deps.audio.getBytes(audio.storageKey);
  if (!bytes) throw notFound(notGenerated);
  return bytes;
}
