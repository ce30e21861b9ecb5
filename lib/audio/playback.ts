import type { Caller } from '../auth/caller.ts';
import type { Book, Line } from '../books/book.ts';
import { badRequest, notFound } from '../errors.ts';
import { findBook, findLine, requireReadAccess } from './access.ts';
import type { AudioDeps } from './deps.ts';
import { fieldAudio, fieldFrom, presignAudio, storedAudio, urlSeconds } from './generate.ts';
import { generatesOnDemand } from './generation.ts';
import { defaultVoice, isVoiceId, type AudioField } from './voices.ts';

/** `.../:field/url` and `.../:field/stream`: existing audio for anyone, made on demand for editors and admins. */
export const notGenerated = 'Audio has not been generated for this line';

/** S3 signs GET URLs for at most 7 days. */
const maxExpires = 7 * 24 * 3600;

function fieldAndVoice(params: Record<string, string | undefined>, query: Record<string, string | undefined>) {
  const field = fieldFrom(params.field);
  const voice = query.voice || defaultVoice;
  if (!field || !isVoiceId(voice)) throw badRequest('Invalid field or voice');
  return { field, voice };
}

async function audioFor(deps: AudioDeps, caller: Caller, book: Book, line: Line, field: AudioField, voice: string) {
  const key = await storedAudio(deps, book, line, field, voice);
  if (key) return { storageKey: key, cached: true };
  if (!generatesOnDemand(caller.kind === 'user' ? caller.user : undefined)) throw notFound(notGenerated);
  return fieldAudio(deps, book, line, field, voice);
}

export async function audioUrl(deps: AudioDeps, caller: Caller, params: Record<string, string | undefined>, query: Record<string, string | undefined>) {
  const { field, voice } = fieldAndVoice(params, query);
  const asked = query.expires !== undefined && /^\s*\d+\s*$/.test(query.expires) ? Number(query.expires) : urlSeconds.defaultExpires;
  const expiresIn = Math.min(Math.max(asked, 1), maxExpires);
  const book = await findBook(deps, params.bookId);
  await requireReadAccess(deps, caller, book);
  const line = await findLine(deps, book, params.lineId);
  const audio = await audioFor(deps, caller, book, line, field, voice);
  return {
    success: true,
    bookId: book.bookId,
    lineId: line.lineId,
    field,
    voice,
    audioUrl: await presignAudio(deps, audio.storageKey, expiresIn),
    expiresIn,
    cached: audio.cached,
  };
}

/** The MP3 itself. The spec checks no read access here, only that the audio exists (or may be made). */
export async function streamAudio(deps: AudioDeps, caller: Caller, params: Record<string, string | undefined>, query: Record<string, string | undefined>) {
  const { field, voice } = fieldAndVoice(params, query);
  const book = await findBook(deps, params.bookId);
  const line = await findLine(deps, book, params.lineId);
  const audio = await audioFor(deps, caller, book, line, field, voice);
  const bytes = await deps.audio.getBytes(audio.storageKey);
  if (!bytes) throw notFound(notGenerated);
  return bytes;
}
