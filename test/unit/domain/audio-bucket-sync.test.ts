import type { SQSEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { syncBatch } from '../../../functions/audio-files-sync/handler.ts';
import { eventKey, laterSequencer, notifiedObjects } from '../../../lib/adapters/s3/events.ts';
import { syncAudioFiles, type SyncDeps } from '../../../lib/audio/bucket-sync.ts';
import { newObjectId, sequentialObjectIds } from '../../../lib/ids.ts';
import { FakeAudioFiles, FakeObjects } from '../../support/fakes/index.ts';

/**
 * The record of audio files kept in step with the bucket's event notifications (issue 26): whatever
 * an event says, the record ends as the bucket is, however late, often or out of order events come.
 */
const bucketName = 'maktaba-audio';
let bucket: FakeObjects;
let record: FakeAudioFiles;
const bookId = newObjectId();
const [l1, l2] = sequentialObjectIds(2);
const key = (line = l1!, voice = 'alloy') => `${bookId}/${line}/arabic/${voice}_${'a'.repeat(32)}.mp3`;
const mp3 = new Uint8Array([0xff, 0xfb, 0x90, 0x00, 1, 2, 3]);

beforeEach(() => {
  bucket = new FakeObjects();
  record = new FakeAudioFiles();
});

let messages = 0;
let sequence = 0;
/** An SQS record carrying an S3 notification, as S3 sends one (one record a message, the key form-encoded, S3's order). */
function message(eventName: string, objectKey: string, name = bucketName, size = 7, eventTime = new Date().toISOString()) {
  const object = { key: eventKey(objectKey), size, sequencer: (++sequence).toString(16).toUpperCase().padStart(16, '0') };
  const body = { Records: [{ eventVersion: '2.1', eventSource: 'aws:s3', eventName, eventTime, s3: { bucket: { name }, object } }] };
  return { messageId: `m${++messages}`, body: JSON.stringify(body) } as SQSEvent['Records'][number];
}
const deliver = (...records: SQSEvent['Records']) => syncBatch({ audio: bucket, audioFiles: record }, bucketName, { Records: records });
const recorded = async () => (await record.ofBook(bookId)).map((f) => f.key);

describe('an event names a key: it is recorded or forgotten as the bucket has it now', () => {
  it('records a stored object with its size and time', async () => {
    await bucket.put(key(), mp3, 'audio/mpeg');
    // S3's event time is the object's: a HEAD that agrees in size keeps it (the key names the content).
    const stored = bucket.objects.get(key())!.lastModified;
    expect(await deliver(message('ObjectCreated:Put', key(), bucketName, 7, stored))).toMatchObject({ batchItemFailures: [], report: { recorded: [key()] } });
    expect(await record.ofBook(bookId)).toEqual([{ key: key(), size: 7, lastModified: stored }]);
  });

  it('forgets a removed object', async () => {
    await record.record([{ key: key(), size: 7, lastModified: '2026-11-20T10:00:00.000Z' }]);
    expect(await deliver(message('ObjectRemoved:Delete', key()))).toMatchObject({ batchItemFailures: [], report: { forgotten: [key()] } });
    expect(await recorded()).toEqual([]);
  });

  it('changes nothing when an event comes twice, or in one batch twice', async () => {
    await bucket.put(key(), mp3, 'audio/mpeg');
    const created = message('ObjectCreated:Copy', key());
    await deliver(created, created);
    await deliver(created);
    expect(await recorded()).toEqual([key()]);
  });

  it('leaves unrecorded an object created then deleted, whichever event comes first or last', async () => {
    await bucket.put(key(), mp3, 'audio/mpeg');
    await bucket.delete(key());
    // The creation's event comes after the removal's: the object is gone, so nothing is recorded.
    await deliver(message('ObjectRemoved:Delete', key()));
    expect((await deliver(message('ObjectCreated:Put', key()))).report).toMatchObject({ recorded: [], forgotten: [key()] });
    expect(await recorded()).toEqual([]);
    // A removal's event for an object stored again since: it is there, so it stays recorded.
    await bucket.put(key(l2), mp3, 'audio/mpeg');
    await deliver(message('ObjectRemoved:Delete', key(l2)));
    expect(await recorded()).toEqual([key(l2)]);
  });

  it('ends as the bucket is when two deliveries for a key interleave, whichever writes last', async () => {
    await bucket.put(key(), mp3, 'audio/mpeg');
    const created = message('ObjectCreated:Put', key());
    await bucket.delete(key());
    const removed = message('ObjectRemoved:Delete', key());
    // The creation's delivery writes its guess; before it looks, the removal's delivery runs whole.
    const interleaved = (during: () => Promise<unknown>): SyncDeps => {
      let first = true;
      const later = async () => {
        if (!first) return;
        first = false;
        await during();
      };
      return {
        audio: bucket,
        audioFiles: {
          record: async (files) => (await record.record(files), later()),
          forget: async (keys) => (await record.forget(keys), later()),
        },
      };
    };
    const other = () => deliver(removed);
    expect((await syncBatch(interleaved(other), bucketName, { Records: [created] })).report).toMatchObject({ forgotten: [key()], failed: [] });
    expect(await recorded()).toEqual([]);
    // The other way: a stale removal writes first, the object is stored again and its creation handled.
    const again = async () => {
      await bucket.put(key(), mp3, 'audio/mpeg');
      await deliver(message('ObjectCreated:Put', key()));
    };
    expect((await syncBatch(interleaved(again), bucketName, { Records: [removed] })).report).toMatchObject({ recorded: [key()], failed: [] });
    expect(await recorded()).toEqual([key()]);
  });

  it('takes the later of two events of a key in one batch as its guess, and the bucket’s size over the event’s', async () => {
    const heads: string[] = [];
    const counting = { head: (k: string) => (heads.push(k), bucket.head(k)) };
    const created = message('ObjectCreated:Put', key());
    const removed = message('ObjectRemoved:Delete', key());
    expect((await syncBatch({ audio: counting, audioFiles: record }, bucketName, { Records: [removed, created] })).report.forgotten).toEqual([key()]);
    expect(heads).toEqual([key()]); // the removal's guess held: one HEAD
    // Stored again, bigger than its (late) event says: recorded as the bucket has it.
    await bucket.put(key(), new Uint8Array(100), 'audio/mpeg');
    await deliver(message('ObjectCreated:Put', key(), bucketName, 7));
    expect((await record.ofBook(bookId)).map((f) => f.size)).toEqual([100]);
    expect(laterSequencer('0A', '9')).toBe(true);
    expect(laterSequencer('0009', 'A')).toBe(false);
  });

  it('ignores keys that are no audio keys, other buckets and S3’s test event', async () => {
    await bucket.put(`${bookId}/cover.png`, mp3, 'image/png');
    await bucket.put(key(), mp3, 'audio/mpeg');
    const test = { messageId: 'test', body: JSON.stringify({ Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: bucketName }) } as SQSEvent['Records'][number];
    const out = await deliver(message('ObjectCreated:Put', `${bookId}/cover.png`), message('ObjectCreated:Put', key(), 'another-bucket'), test);
    expect(out).toEqual({ batchItemFailures: [], report: { recorded: [], forgotten: [], failed: [] } });
    expect(await recorded()).toEqual([]);
  });

  it('reports failed the messages whose keys could not be settled, and those that are no notification', async () => {
    await bucket.put(key(), mp3, 'audio/mpeg');
    await bucket.put(key(l2), mp3, 'audio/mpeg');
    const head = bucket.head.bind(bucket);
    const flaky = { head: async (k: string) => (k === key(l2) ? Promise.reject(new Error('SlowDown')) : head(k)) };
    const good = message('ObjectCreated:Put', key());
    const bad = message('ObjectCreated:Put', key(l2));
    const garbled = { messageId: 'garbled', body: 'not json' } as SQSEvent['Records'][number];
    const out = await syncBatch({ audio: flaky, audioFiles: record }, bucketName, { Records: [good, bad, garbled] });
    expect(out.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual([bad.messageId, 'garbled'].sort());
    expect(out.report).toEqual({ recorded: [key()], forgotten: [], failed: [key(l2)] });
    // Delivered again once S3 answers: settled.
    expect((await deliver(bad)).batchItemFailures).toEqual([]);
    expect(await recorded()).toEqual([key(), key(l2)].sort());
  });

  it('gives a key back as failed when the object keeps changing under every look', async () => {
    let size = 1;
    const changing = { head: async () => ({ size: size++, contentType: 'audio/mpeg', lastModified: '2026-11-20T10:00:00.000Z', eTag: `"${size}"` }) };
    expect((await syncAudioFiles({ audio: changing, audioFiles: record }, new Map([[key(), undefined]]))).failed).toEqual([key()]);
  });
});

describe('the objects of a notification', () => {
  it('are decoded as S3 encodes them (a form value: a space is +), each stored or removed', () => {
    const record = (eventName: string) => ({ eventName, eventTime: '2026-11-20T10:00:00.000Z', s3: { bucket: { name: 'b' }, object: { key: eventKey('a b/c+d/é.mp3'), size: 3, sequencer: '0A' } } });
    const body = JSON.stringify({ Records: [record('ObjectCreated:Copy'), record('ObjectRemoved:DeleteMarkerCreated')] });
    expect(JSON.parse(body).Records[0].s3.object.key).toBe('a+b/c%2Bd/%C3%A9.mp3');
    expect(notifiedObjects(body, 'b')).toEqual([
      { key: 'a b/c+d/é.mp3', stored: { key: 'a b/c+d/é.mp3', size: 3, lastModified: '2026-11-20T10:00:00.000Z' }, sequencer: '0A' },
      { key: 'a b/c+d/é.mp3', stored: undefined, sequencer: '0A' },
    ]);
    expect(notifiedObjects(body, 'other')).toEqual([]);
    expect(() => notifiedObjects('{"Records": "no"}', 'b')).toThrow(/not an S3 event notification/);
  });
});
