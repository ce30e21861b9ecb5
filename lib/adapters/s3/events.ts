import type { StoredObject } from '../../objects.ts';

/**
 * S3 event notifications as S3 sends them to a queue: a message body `{"Records": [...]}`, each
 * record naming its bucket and object key, the key URL-encoded as a form value (a space is `+`).
 * S3 also sends `{"Event": "s3:TestEvent", ...}` once when a notification is configured; it names
 * no object. The local runtime writes the same bodies for the embedded S3 (infra/local/embedded).
 */
export interface S3EventRecord {
  eventVersion?: string;
  eventSource?: string;
  awsRegion?: string;
  eventTime?: string;
  eventName: string;
  s3: { s3SchemaVersion?: string; bucket: { name: string; arn?: string }; object: { key: string; size?: number; eTag?: string; sequencer?: string } };
}

/** A key as an event names it: each '/'-separated part form-encoded. */
export const eventKey = (key: string): string =>
  key
    .split('/')
    .map((part) => encodeURIComponent(part).replace(/%20/g, '+'))
    .join('/');

const decodedKey = (key: string): string => decodeURIComponent(key.replace(/\+/g, ' '));

/** What a notification says of an object: stored (with its size and time) or removed, and S3's order of the key's events. */
export interface NotifiedObject {
  key: string;
  stored: StoredObject | undefined;
  /** Of two events of one key, the one with the greater sequencer (as hex of any length) happened later. */
  sequencer: string;
}

/**
 * The objects a notification body names in `bucket`, keys decoded; none for the test event. Throws on
 * a body that is no notification, which no retry mends (its message ends in the dead-letter queue).
 */
export function notifiedObjects(body: string, bucket: string): NotifiedObject[] {
  const parsed = JSON.parse(body) as { Records?: unknown; Event?: unknown };
  if (parsed.Event === 's3:TestEvent') return [];
  if (!Array.isArray(parsed.Records)) throw new Error('not an S3 event notification');
  return (parsed.Records as S3EventRecord[]).flatMap((record) => {
    const object = record?.s3?.object;
    if (typeof object?.key !== 'string' || typeof record.eventName !== 'string') throw new Error('an S3 event record without an event name or an object key');
    if (record.s3.bucket?.name !== bucket) return [];
    const key = decodedKey(object.key);
    const stored = record.eventName.startsWith('ObjectCreated:') ? { key, size: object.size ?? 0, lastModified: record.eventTime ?? new Date(0).toISOString() } : undefined;
    return [{ key, stored, sequencer: object.sequencer ?? '' }];
  });
}

/** Whether sequencer `a` comes after `b` (S3: compare as hex numbers, the shorter padded with leading zeros). */
export const laterSequencer = (a: string, b: string): boolean => {
  const width = Math.max(a.length, b.length);
  return a.padStart(width, '0') > b.padStart(width, '0');
};
