import { randomUUID } from 'node:crypto';
import { badRequest, internal } from '../../errors.ts';
import { clientMetadata, languageProblem, listFieldProblem, splitList, type Visibility } from '../book-text.ts';

/** The optional form fields of `POST /ocr` (docs/SPEC.md 4.1), as sent: strings, except a JSON client may send objects. */
export interface RawJobFields {
  fileName?: unknown;
  language?: unknown;
  author?: unknown;
  tags?: unknown;
  categories?: unknown;
  visibility?: unknown;
  customPrompt?: unknown;
  jobMetadata?: unknown;
}

/** The same fields with the spec's defaults applied. */
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

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

export const invalidJobMetadata = 'Invalid jobMetadata: must be a JSON object';

function jobMetadata(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null || value === '') return {};
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw internal(invalidJobMetadata);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw internal(invalidJobMetadata);
  // The service's own metadata keys are not the client's to set (docs/SPEC.md 2.2).
  return clientMetadata(parsed as Record<string, unknown>, (message) => badRequest(`Invalid jobMetadata: ${message}`));
}

/** `value` unless `problem` names what is wrong with it (a 400 with its words). */
function within<T>(value: T, problem: string | undefined): T {
  if (problem) throw badRequest(problem);
  return value;
}

export function parseJobFields(raw: RawJobFields): JobFields {
  const language = text(raw.language);
  const tags = splitList(raw.tags);
  const categories = splitList(raw.categories);
  return {
    fileName: text(raw.fileName),
    language: within(language, languageProblem(language)) ?? jobFieldDefaults.language,
    author: text(raw.author) ?? jobFieldDefaults.author,
    tags: within(tags, listFieldProblem(tags, 'tags')),
    categories: within(categories, listFieldProblem(categories, 'categories')),
    visibility: raw.visibility === 'public' ? 'public' : jobFieldDefaults.visibility,
    customPrompt: text(raw.customPrompt),
    metadata: jobMetadata(raw.jobMetadata),
  };
}

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
