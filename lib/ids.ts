import { randomUUID } from 'node:crypto';
import { ObjectId } from 'bson';

/** A new 24-hex record id (the spec's ObjectId). */
export const newObjectId = (): string => new ObjectId().toHexString();

/** An ObjectId whose timestamp part is `date`, so ids made for past events still sort by time. */
export const objectIdAt = (date: Date): string => new ObjectId(Math.floor(date.getTime() / 1000)).toHexString();

/**
 * `count` ids that sort in the order they are returned. bson's own counter can wrap within a
 * second, so ordered runs (the lines of a book) count up from one random id instead.
 */
export function sequentialObjectIds(count: number): string[] {
  const first = BigInt(`0x${newObjectId()}`);
  return Array.from({ length: count }, (_, i) => (first + BigInt(i)).toString(16).padStart(24, '0'));
}

export const isObjectId = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{24}$/i.test(value);

export const newJobId = (): string => randomUUID();
