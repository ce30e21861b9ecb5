import type { FileFormat } from '../contract.ts';

/** Bytes `detectFormat` needs from the start of a file. */
export const formatHeadBytes = 12;

const startsWith = (head: Uint8Array, bytes: readonly number[], at = 0): boolean => bytes.every((b, i) => head[at + i] === b);
const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));

/** A file's format from its first bytes (magic numbers), never from its declared type; undefined when none fits. */
export function detectFormat(head: Uint8Array): FileFormat | undefined {
  if (startsWith(head, ascii('%PDF-'))) return 'pdf';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return 'webp';
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return 'gif';
  if (startsWith(head, ascii('BM'))) return 'bmp';
  return undefined;
}
