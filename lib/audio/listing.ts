import type { Caller } from '../auth/caller.ts';
import type { Line } from '../books/book.ts';
import { badRequest } from '../errors.ts';
import type { StoredObject } from '../objects.ts';
import { findBook, findLine, requireReadAccess } from './access.ts';
import { audioKey, bookPrefix, contentHash, linePrefix, parseAudioKey } from './audio-key.ts';
import type { AudioDeps } from './deps.ts';
import { fieldFrom, presignAudio, urlSeconds } from './generate.ts';
import { audioFields, defaultVoice, type AudioField } from './voices.ts';

/** The audio read endpoints that never generate (SPEC.md 4.2): lines-with-audio, line list, all. */
const lineContent = (line: Line) => ({ arabic: line.arabic, english: line.english, commentary: line.commentary, rootwords: line.rootwords });

/** `GET /audio/:bookId/lines-with-audio`: every line, each field with whether it has audio for the voice. */
export async function linesWithAudio(deps: AudioDeps, caller: Caller, bookId: string | undefined, query: Record<string, string | undefined>) {
  const book = await findBook(deps, bookId);
  await requireReadAccess(deps, caller, book);
  const voice = query.voice || defaultVoice;
  const spoken = voice.toLowerCase();
  // One listing of the book's audio answers every line, rather than a HEAD per line and field.
  const [lines, stored] = await Promise.all([deps.books.lines(book.bookId), deps.audio.list(bookPrefix(book.bookId))]);
  const keys = new Set(stored.map((o) => o.key));
  return {
    success: true,
    bookId: book.bookId,
    bookTitle: book.title,
    voice,
    lines: await Promise.all(
      lines.map(async (line) => {
        const hash = contentHash(line, spoken);
        const fields = await Promise.all(
          audioFields.map(async (field) => {
            const key = audioKey(book.bookId, line.lineId, field, spoken, hash);
            const hasAudio = keys.has(key);
            const audioUrl = hasAudio ? await presignAudio(deps, key, urlSeconds.generated) : null;
            return [field, { text: line[field], hasAudio, audioUrl }] as const;
          }),
        );
        return { lineId: line.lineId, fields: Object.fromEntries(fields) };
      }),
    ),
  };
}

/** `GET /audio/:bookId/lines/:lineId`: every stored file of the line, all fields and voices. */
export async function lineAudioList(deps: AudioDeps, caller: Caller, params: Record<string, string | undefined>) {
  const book = await findBook(deps, params.bookId);
  await requireReadAccess(deps, caller, book);
  const line = await findLine(deps, book, params.lineId);
  const stored = await deps.audio.list(linePrefix(book.bookId, line.lineId));
  const audioFiles = await Promise.all(
    stored.flatMap((o) => {
      const parts = parseAudioKey(o.key);
      if (!parts) return [];
      return [
        presignAudio(deps, o.key, urlSeconds.generated).then((url) => ({
          storageKey: o.key,
          field: parts.field,
          voice: parts.voice,
          contentHash: parts.contentHash,
          size: o.size,
          lastModified: o.lastModified,
          url,
        })),
      ];
    }),
  );
  return { success: true, bookId: book.bookId, lineId: line.lineId, audioFiles, lineContent: lineContent(line) };
}

function requestedFields(value: string | undefined): AudioField[] {
  if (value === undefined || value.trim() === '') return [...audioFields];
  const names = value.split(',').map((f) => f.trim()).filter(Boolean);
  const invalidFields = names.filter((f) => !fieldFrom(f));
  if (invalidFields.length) throw badRequest('Invalid fields', { invalidFields, availableFields: audioFields });
  return [...new Set(names.map((f) => fieldFrom(f)!))];
}

/** `GET /audio/:bookId/all`: the lines that have stored audio in the asked fields (and voice), in book order. */
export async function allAudio(deps: AudioDeps, caller: Caller, bookId: string | undefined, query: Record<string, string | undefined>) {
  const fields = requestedFields(query.fields);
  const voice = query.voice ? query.voice.toLowerCase() : undefined;
  const book = await findBook(deps, bookId);
  await requireReadAccess(deps, caller, book);
  const [lines, stored] = await Promise.all([deps.books.lines(book.bookId), deps.audio.list(bookPrefix(book.bookId))]);

  const byLine = new Map<string, { object: StoredObject; field: AudioField; voice: string }[]>();
  for (const object of stored) {
    const parts = parseAudioKey(object.key);
    if (!parts || !fields.includes(parts.field) || (voice && parts.voice.toLowerCase() !== voice)) continue;
    byLine.set(parts.lineId, [...(byLine.get(parts.lineId) ?? []), { object, field: parts.field, voice: parts.voice }]);
  }

  let totalFiles = 0;
  const withAudio = lines.filter((line) => byLine.has(line.lineId));
  const out = await Promise.all(
    withAudio.map(async (line) => {
      const audio: Record<string, unknown[]> = {};
      for (const { object, field, voice: v } of byLine.get(line.lineId)!) {
        totalFiles++;
        (audio[field] ??= []).push({
          storageKey: object.key,
          voice: v,
          size: object.size,
          lastModified: object.lastModified,
          url: await presignAudio(deps, object.key, urlSeconds.all),
        });
      }
      return { lineId: line.lineId, content: lineContent(line), audio };
    }),
  );
  return { success: true, bookId: book.bookId, bookTitle: book.title, requestedFields: fields, totalFiles, lines: out };
}
