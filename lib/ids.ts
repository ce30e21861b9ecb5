import { randomBytes, randomUUID } from 'node:crypto';
import { internal } from './errors.ts';

/**
 * Ids: 24-hex ObjectId strings for records (4 bytes of seconds, 5 random bytes per process, a 3-byte
 * counter, as MongoDB makes them, so they sort by creation second), UUID v4 for OCR jobs. Written
 * here rather than imported from bson, which costs ~17 ms of every cold start for this alone.
 */
const processPart = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

export function objectIdAt(date: Date): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(date.getTime() / 1000);
  return seconds.toString(16).padStart(8, '0') + processPart + counter.toString(16).padStart(6, '0');
}

/** A new record id (the spec's ObjectId). */
export const newObjectId = (): string => objectIdAt(new Date());

/**
 * `count` ids that sort in the order they are returned. The counter above can wrap within a
 * second, so ordered runs (the lines of a book) count up from one id instead.
 */
export function sequentialObjectIds(count: number): string[] {
  const first = BigInt(`0x${newObjectId()}`);
  return Array.from({ length: count }, (_, i) => (first + BigInt(i)).toString(16).padStart(24, '0'));
}

export const isObjectId = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{24}$/i.test(value);

/** Malformed ids in paths are a 500, as the spec says for its OCR book, audio generation and job endpoints. */
export function checkId(value: string | undefined, what: string): string {
  if (!isObjectId(value)) throw internal(`Invalid ${what} id: ${value ?? ''}`);
  return value;
}

export const newJobId = (): string => randomUUID();
export const isJobId = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
