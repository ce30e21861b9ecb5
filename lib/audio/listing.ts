import type { Caller } from '../auth/caller.ts';
import type { Line } from '../books/book.ts';
import type { StoredObject } from '../objects.ts';
import { findBook, findLine, requireReadAccess } from './access.ts';
import { audioKey, bookPrefix, contentHash, linePrefix, parseAudioKey } from './audio-key.ts';
import type { AudioDeps } from './deps.ts';
import { knownFields, urlSeconds } from './generate.ts';
import { audioFields, isVoiceId, type AudioField } from './voices.ts';

/** The audio read endpoints that never generate (docs/SPEC.md 4.2): lines-with-audio, line list, all. */
const lineContent = (line: Line) => ({ arabic: line.arabic, english: line.english, commentary: line.commentary, rootwords: line.rootwords });

/** The recorded files of a voice; none for a name that is no voice (audio is only ever made in one), without a query. */
const filesOf = async (deps: AudioDeps, bookId: string, voice: string | undefined) =>
  voice === undefined || isVoiceId(voice) ? deps.audioFiles.ofBook(bookId, voice) : [];

/** The URLs of a listing's files, all under `prefix`, signed at once (one grant where the store can). */
async function signedUrls(deps: AudioDeps, prefix: string, keys: string[], seconds: number): Promise<Map<string, string>> {
  const urls = await deps.audio.presignGetAll(prefix, keys, seconds);
  return new Map(keys.map((key, i) => [key, urls[i]!]));
}

/** `GET /audio/:bookId/lines-with-audio`: every line, each field with whether it has audio for the voice. */
export async function linesWithAudio(deps: AudioDeps, caller: Caller, bookId: string | undefined, { voice }: { voice: string }) {
  const book = await findBook(deps, bookId);
  await requireReadAccess(deps, caller, book);
  // Echoed as sent (the contract reads none as `alloy`), matched in lower case (docs/SPEC.md 4.2).
  const spoken = voice.toLowerCase();
  // One query of the book's recorded files in the voice answers every line, not a HEAD per line and
  // field; they are signed while the lines are still being read (a stale file's URL is dropped below).
  const signed = filesOf(deps, book.bookId, spoken).then(async (stored) => signedUrls(deps, bookPrefix(book.bookId), stored.map((o) => o.key), urlSeconds.generated));
  const [lines, urls] = await Promise.all([deps.books.lines(book.bookId), signed]);
  const current = lines.map((line) => {
    const hash = contentHash(line, spoken);
    return audioFields.map((field) => ({ field, key: audioKey(book.bookId, line.lineId, field, spoken, hash) })).filter(({ key }) => urls.has(key));
  });
  return {
    success: true,
    bookId: book.bookId,
    bookTitle: book.title,
    voice,
    lines: lines.map((line, i) => {
      const withAudio = new Map(current[i]!.map((c) => [c.field, urls.get(c.key)!]));
      const fields = audioFields.map((field) => [field, { text: line[field], hasAudio: withAudio.has(field), audioUrl: withAudio.get(field) ?? null }] as const);
      return { lineId: line.lineId, fields: Object.fromEntries(fields) };
    }),
  };
}

/** `GET /audio/:bookId/lines/:lineId`: every stored file of the line, all fields and voices. */
export async function lineAudioList(deps: AudioDeps, caller: Caller, params: Record<string, string | undefined>) {
  const book = await findBook(deps, params.bookId);
  await requireReadAccess(deps, caller, book);
  const line = await findLine(deps, book, params.lineId);
  const prefix = linePrefix(book.bookId, line.lineId);
  const stored = (await deps.audio.list(prefix)).flatMap((o) => {
    const parts = parseAudioKey(o.key);
    return parts ? [{ o, parts }] : [];
  });
  const urls = await signedUrls(deps, prefix, stored.map(({ o }) => o.key), urlSeconds.generated);
  const audioFiles = stored.map(({ o, parts }) => ({
    storageKey: o.key,
    field: parts.field,
    voice: parts.voice,
    contentHash: parts.contentHash,
    size: o.size,
    lastModified: o.lastModified,
    url: urls.get(o.key)!,
  }));
  return { success: true, bookId: book.bookId, lineId: line.lineId, audioFiles, lineContent: lineContent(line) };
}

/**
 * `/all`'s `fields` (comma-separated, any case; none or empty: all three). Its contract's query
 * schema reads it, so the 400 naming the invalid fields comes before the book is looked up.
 */
export function requestedFields(value: string | undefined): AudioField[] {
  if (value === undefined || value.trim() === '') return [...audioFields];
  return knownFields(value.split(',').map((f) => f.trim()).filter(Boolean));
}

/**
 * `GET /audio/:bookId/all`: the lines that have stored audio in the asked fields (and voice), in
 * book order. `voice` is in lower case, and none means every voice.
 */
export async function allAudio(deps: AudioDeps, caller: Caller, bookId: string | undefined, { fields, voice }: { fields: readonly AudioField[]; voice?: string | undefined }) {
  const book = await findBook(deps, bookId);
  await requireReadAccess(deps, caller, book);
  const [lines, stored] = await Promise.all([deps.books.lines(book.bookId), filesOf(deps, book.bookId, voice)]);

  const byLine = new Map<string, { object: StoredObject; field: AudioField; voice: string }[]>();
  for (const object of stored) {
    const parts = parseAudioKey(object.key);
    if (!parts || !fields.includes(parts.field) || (voice && parts.voice.toLowerCase() !== voice)) continue;
    byLine.set(parts.lineId, [...(byLine.get(parts.lineId) ?? []), { object, field: parts.field, voice: parts.voice }]);
  }

  let totalFiles = 0;
  const withAudio = lines.filter((line) => byLine.has(line.lineId));
  const urls = await signedUrls(deps, bookPrefix(book.bookId), withAudio.flatMap((line) => byLine.get(line.lineId)!.map((f) => f.object.key)), urlSeconds.all);
  const out = withAudio.map((line) => {
    const audio: Record<string, unknown[]> = {};
    for (const { object, field, voice: v } of byLine.get(line.lineId)!) {
      totalFiles++;
      (audio[field] ??= []).push({ storageKey: object.key, voice: v, size: object.size, lastModified: object.lastModified, url: urls.get(object.key)! });
    }
    return { lineId: line.lineId, content: lineContent(line), audio };
  });
  return { success: true, bookId: book.bookId, bookTitle: book.title, requestedFields: fields, totalFiles, lines: out };
}
