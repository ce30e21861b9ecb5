import { createHash } from 'node:crypto';
import type { Line } from '../books/book.ts';
import { isAudioField, type AudioField } from './voices.ts';

/**
 * Where a line field's audio lives (docs/SPEC.md 2.8): `<bookId>/<lineId>/<field>/<voice>_<contentHash>.mp3`.
 * The hash covers every text field of the line plus the voice, so editing any part of a line makes
 * its old audio stale.
 */
export function contentHash(line: Pick<Line, 'arabic' | 'english' | 'commentary' | 'rootwords'>, voice: string): string {
  const text = JSON.stringify([line.arabic, line.english, line.commentary, line.rootwords, voice]);
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** How every audio key ends: the audio bucket's event notifications filter on it (infra/storage.ts). */
export const audioKeySuffix = '.mp3';

export const audioKey = (bookId: string, lineId: string, field: AudioField, voice: string, hash: string): string =>
  `${bookId}/${lineId}/${field}/${voice}_${hash}${audioKeySuffix}`;

export const bookPrefix = (bookId: string) => `${bookId}/`;
export const linePrefix = (bookId: string, lineId: string) => `${bookId}/${lineId}/`;
export const fieldPrefix = (bookId: string, lineId: string, field: string) => `${bookId}/${lineId}/${field}/`;

export interface AudioKeyParts {
  bookId: string;
  lineId: string;
  field: AudioField;
  voice: string;
  contentHash: string;
}

/** The parts of an audio key; undefined for any other object. */
export function parseAudioKey(key: string): AudioKeyParts | undefined {
  if (!key.endsWith(audioKeySuffix)) return undefined;
  const match = /^([^/]+)\/([^/]+)\/([^/]+)\/([^/_]+)_([0-9a-f]+)$/.exec(key.slice(0, -audioKeySuffix.length));
  if (!match || !isAudioField(match[3])) return undefined;
  const [, bookId, lineId, field, voice, hash] = match;
  return { bookId: bookId!, lineId: lineId!, field: field as AudioField, voice: voice!, contentHash: hash! };
}

/** Audio made for the line as it is now, in that voice. */
export const isCurrent = (line: Line, parts: AudioKeyParts): boolean => parts.contentHash === contentHash(line, parts.voice);
