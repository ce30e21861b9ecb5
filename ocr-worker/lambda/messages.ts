import { pageLayouts, type OcrJobMessage, type PageLayout } from '../contract.ts';

/**
 * The worker's own reading of the queue messages: the job message as docs/ocr-worker.md "Connecting an
 * OCR worker" shows it (the worker is a client and does not borrow the service's parser), and the page
 * tasks it sends itself to its pages queue.
 */

/** A message the worker cannot act on: logged and dropped (delivering it again would not change it). */
export class BadMessage extends Error {
  override name = 'BadMessage';
}

/** A task on the pages queue: pages of one job, and the job's text-layer decision when it made one. */
export interface PageTask {
  message: OcrJobMessage;
  pages: number[];
  /** Whether the PDF's text layer is trusted (decided once by the job); absent: the task decides. */
  textLayer?: boolean;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function parse(body: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new BadMessage('The message body is not JSON');
  }
  if (!isObject(value)) throw new BadMessage('The message body is not a JSON object');
  return value;
}

function text(o: Json, key: string, where = ''): string {
  const v = o[key];
  if (typeof v !== 'string' || v.trim() === '') throw new BadMessage(`The message has no ${where}${key}`);
  return v;
}

/** Fields the worker does not act on are taken when well-typed and defaulted when absent, never trusted beyond that. */
function optional<T>(o: Json, key: string, ok: (v: unknown) => v is T, fallback: T): T {
  const v = o[key];
  if (v === undefined) return fallback;
  if (!ok(v)) throw new BadMessage(`The message's ${key} has the wrong type`);
  return v;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isSize = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isPrompt = (v: unknown): v is string | null => v === null || typeof v === 'string';

const layouts: readonly string[] = pageLayouts;

/** A message's `reread` (one page of a completed job read again), or undefined on a job. */
function rereadOf(value: unknown): OcrJobMessage['reread'] {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new BadMessage('The message’s reread is not an object');
  const pageNumber = value.pageNumber;
  if (!Number.isInteger(pageNumber) || (pageNumber as number) < 1) throw new BadMessage('The reread has no page number');
  const layout = optional(value, 'layout', isString, 'auto');
  if (!layouts.includes(layout)) throw new BadMessage(`The reread’s layout is not one of ${layouts.join(', ')}`);
  return { rereadId: text(value, 'rereadId', 'reread.'), pageNumber: pageNumber as number, layout: layout as PageLayout };
}

/** The job message; BadMessage when a field the worker needs is missing or of the wrong type. */
export function jobMessageOf(value: Json): OcrJobMessage {
  const storage = value.storage;
  if (!isObject(storage)) throw new BadMessage('The message has no storage');
  const reread = rereadOf(value.reread);
  return {
    jobId: text(value, 'jobId'),
    fileId: text(value, 'fileId'),
    bookTextId: optional(value, 'bookTextId', isString, ''),
    userId: text(value, 'userId'),
    storage: { bucket: text(storage, 'bucket', 'storage.'), key: text(storage, 'key', 'storage.') },
    fileName: optional(value, 'fileName', isString, ''),
    fileType: optional(value, 'fileType', isString, ''),
    fileSize: optional(value, 'fileSize', isSize, 0),
    language: text(value, 'language'),
    customPrompt: optional(value, 'customPrompt', isPrompt, null),
    metadata: optional(value, 'metadata', isObject, {}),
    credential: text(value, 'credential'),
    ...(reread && { reread }),
  };
}

export const parseJobMessage = (body: string): OcrJobMessage => jobMessageOf(parse(body));

export function parseTask(body: string): PageTask {
  const value = parse(body);
  if (!isObject(value.message)) throw new BadMessage('The task has no job message');
  const pages = value.pages;
  if (!Array.isArray(pages) || pages.length === 0 || !pages.every((n) => Number.isInteger(n) && (n as number) >= 1)) {
    throw new BadMessage('The task has no page numbers');
  }
  const textLayer = value.textLayer;
  if (textLayer !== undefined && typeof textLayer !== 'boolean') throw new BadMessage('The task’s textLayer is not a boolean');
  return { message: jobMessageOf(value.message), pages: pages as number[], ...(textLayer !== undefined && { textLayer }) };
}
