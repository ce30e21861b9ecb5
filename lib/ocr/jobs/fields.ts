import { randomUUID } from 'node:crypto';
import type { Visibility } from '../book-text.ts';

/**
 * The optional fields of a job (docs/SPEC.md 4.1 `POST /ocr`, and the presigned path's JSON) as read
 * (functions/ocr-api/contract.ts): texts trimmed (an empty one is not sent), the spec's defaults applied,
 * lists split and within their caps, the metadata a JSON object without the service's keys.
 */
export interface JobFields {
  fileName: string | undefined;
  language: string;
  author: string;
  tags: string[];
  categories: string[];
  visibility: Visibility;
  customPrompt: string | undefined;
  metadata: Record<string, unknown>;
}

/** docs/SPEC.md 4.1's defaults for the fields not sent (visibility: anything but `public` is private). */
export const jobFieldDefaults = { language: 'ar', author: 'Unknown', visibility: 'private' } as const;

export const invalidJobMetadata = 'Invalid jobMetadata: must be a JSON object';

/** The name reduced to letters (any script), digits, `.`, `-` and `_`, for a key. */
function keyName(originalName: string): string {
  return (
    originalName
      .normalize('NFC')
      .replace(/[^\p{L}\p{M}\p{N}._-]+/gu, '_')
      .replace(/^[._]+/, '')
      .slice(0, 150) || 'file'
  );
}

/** `ocr/<uuid>-<name>`: a job's file (docs/SPEC.md 2.4), which only the service writes. */
export function uploadKey(originalName: string): string {
  return `ocr/${randomUUID()}-${keyName(originalName)}`;
}

/**
 * `incoming/<uuid>-<name>`: where a presigned POST puts a file. The POST stays valid for its hour
 * whatever happens, so a job never reads this key: its file is copied to an `uploadKey` when the job
 * is created (presigned-upload.ts).
 */
export function incomingUploadKey(originalName: string): string {
  return `incoming/${randomUUID()}-${keyName(originalName)}`;
}
