import type { Book, Line } from '../books/book.ts';
import { badRequest, internal } from '../errors.ts';
import type { Objects } from '../objects.ts';
import type { AudioFiles } from './audio-files.ts';
import { audioKey, contentHash, fieldPrefix, isCurrent, parseAudioKey } from './audio-key.ts';
import { VoiceRejected, type Speech } from './speech.ts';
import { audioFields, defaultVoice, isAudioField, isVoiceId, languageOf, voiceIds, type AudioField, type VoiceId } from './voices.ts';

/** Making a line field's audio, or finding it already made (docs/SPEC.md 4.2, generation rules). */
export interface GenerateDeps {
  audio: Objects;
  audioFiles: AudioFiles;
  speech: () => Promise<Speech>;
}

/** Presigned URL lifetimes of docs/SPEC.md section 8. */
export const urlSeconds = { generated: 3600, all: 7200, defaultExpires: 3600 } as const;

/** What a field's audio answer starts with, for its generation and its URL alike (docs/SPEC.md 4.2). */
export const fieldAnswerHead = (book: Book, line: Line, field: AudioField, voice: string) => ({ success: true as const, bookId: book.bookId, lineId: line.lineId, field, voice });

export interface FieldAudio {
  storageKey: string;
  cached: boolean;
}

/** A field name from a path or body: one of the three, in any case; undefined otherwise. */
export const fieldFrom = (value: unknown): AudioField | undefined => {
  const field = typeof value === 'string' ? value.toLowerCase() : undefined;
  return isAudioField(field) ? field : undefined;
};

/** The audio group's 400 texts (docs/SPEC.md 7); the answers add the lists named beside them. */
export const invalidField = 'Invalid field'; // availableFields
export const invalidVoice = 'Invalid voice'; // availableVoices
export const invalidFields = 'Invalid fields'; // invalidFields, availableFields

export function requireField(value: unknown): AudioField {
  const field = fieldFrom(value);
  if (!field) throw badRequest(invalidField, { availableFields: audioFields });
  return field;
}

/** A voice that is none of the catalogue's: the 400 listing the voices. */
export const voiceRefused = () => badRequest(invalidVoice, { availableVoices: voiceIds });

export function requireVoice(value: unknown): VoiceId {
  const voice = value === undefined || value === null || value === '' ? defaultVoice : value;
  if (!isVoiceId(voice)) throw voiceRefused();
  return voice;
}

/** A voice the spec does not validate (batch, whole-book jobs): any non-empty text, else `alloy`. */
export const unvalidatedVoice = (value: unknown): string => (typeof value === 'string' && value !== '' ? value : defaultVoice);

/**
 * Field names as a client lists them (batch `fields`, `/all` `fields`): each one of the three in any
 * case, else the 400 naming the invalid ones; the answer uses each lower-case name once.
 */
export function knownFields(names: readonly string[]): AudioField[] {
  const invalid = names.filter((f) => !fieldFrom(f));
  if (invalid.length) throw badRequest(invalidFields, { invalidFields: invalid, availableFields: audioFields });
  return [...new Set(names.map((f) => fieldFrom(f)!))];
}

/**
 * The stored audio of the field for the line's current content, if there is any. The bucket is the
 * truth; the record of the book's files (read by the listings) is put right when it disagrees.
 */
export async function storedAudio(deps: GenerateDeps, book: Book, line: Line, field: AudioField, voice: string) {
  const key = audioKey(book.bookId, line.lineId, field, voice, contentHash(line, voice));
  const [stored, recorded] = await Promise.all([deps.audio.head(key), deps.audioFiles.has(key)]);
  if (stored && !recorded) await deps.audioFiles.record([{ key, size: stored.size, lastModified: new Date().toISOString() }]);
  if (!stored && recorded) await deps.audioFiles.forget([key]);
  return stored ? key : undefined;
}

/**
 * The field's audio for the line as it is now: from the cache when the same content and voice were
 * spoken before, else spoken, stored, and the field's stale audio (older content) removed.
 */
export async function fieldAudio(deps: GenerateDeps, book: Book, line: Line, field: AudioField, voice: string): Promise<FieldAudio> {
  if (!isVoiceId(voice)) throw new VoiceRejected(voice);
  const text = line[field].trim();
  if (!text) throw internal(`The ${field} text of this line is empty`);
  const cachedKey = await storedAudio(deps, book, line, field, voice);
  if (cachedKey) return { storageKey: cachedKey, cached: true };

  const storageKey = audioKey(book.bookId, line.lineId, field, voice, contentHash(line, voice));
  const speech = await deps.speech();
  const mp3 = await speech.synthesize({ text, voice, language: languageOf(field) });
  await deps.audio.put(storageKey, mp3, 'audio/mpeg');
  await deps.audioFiles.record([{ key: storageKey, size: mp3.byteLength, lastModified: new Date().toISOString() }]);
  const stale = (await deps.audio.list(fieldPrefix(book.bookId, line.lineId, field)))
    .map((o) => o.key)
    .filter((key) => {
      const parts = parseAudioKey(key);
      return parts && !isCurrent(line, parts);
    });
  if (stale.length) await removeAudio(deps, stale);
  return { storageKey, cached: false };
}

/** Removes audio files: from the record first, so that no listing offers a file already gone. */
export async function removeAudio(deps: GenerateDeps, keys: readonly string[]): Promise<number> {
  await deps.audioFiles.forget(keys);
  return deps.audio.deleteMany(keys);
}

export const presignAudio = (deps: GenerateDeps, key: string, seconds: number) =>
  deps.audio.presignGet(key, seconds, { contentType: 'audio/mpeg', contentDisposition: 'inline' });
