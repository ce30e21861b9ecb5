import { describe, expect, it } from 'vitest';
import { dynamoAudioFiles, shardOf } from '../../lib/adapters/dynamo/audio-files.ts';
import { newObjectId, sequentialObjectIds } from '../../lib/ids.ts';
import { testDb } from '../support/stores.ts';

/** The record of a book's audio files in DynamoDB Local, through the real client. */
const files = dynamoAudioFiles(testDb());
const at = '2026-11-23T10:00:00.000Z';
const file = (key: string, size = 100) => ({ key, size, lastModified: at });

describe('the audio files of a book', () => {
  it('records, finds by voice or all in the bucket\'s key order, and forgets', async () => {
    const bookId = newObjectId();
    const [l1, l2] = sequentialObjectIds(2);
    const keys = [
      `${bookId}/${l2}/english/alloy_${'b'.repeat(32)}.mp3`,
      `${bookId}/${l1}/arabic/nova_${'c'.repeat(32)}.mp3`,
      `${bookId}/${l1}/arabic/alloy_${'a'.repeat(32)}.mp3`,
      `${bookId}/${l1}/commentary/alloy_${'d'.repeat(32)}.mp3`,
    ];
    await files.record([...keys.map((k, i) => file(k, i + 1)), file(`${bookId}/cover.png`), file(`${newObjectId()}/${l1}/arabic/alloy_${'e'.repeat(32)}.mp3`)]);
    await files.record([file(keys[0]!, 1)]); // recorded again: still one

    expect(await files.ofBook(bookId)).toEqual([...keys].sort().map((key) => file(key, keys.indexOf(key) + 1)));
    expect((await files.ofBook(bookId, 'alloy')).map((f) => f.key)).toEqual([keys[2], keys[3], keys[0]]);
    expect(await files.ofBook(bookId, 'echo')).toEqual([]);
    expect(await files.has(keys[1]!)).toBe(true);
    expect(await files.has(`${bookId}/cover.png`)).toBe(false);

    await files.forget([keys[1]!, `${bookId}/${l2}/arabic/onyx_${'f'.repeat(32)}.mp3`]);
    expect(await files.has(keys[1]!)).toBe(false);
    expect((await files.ofBook(bookId)).map((f) => f.key)).toEqual([keys[2], keys[3], keys[0]]);
  });

  it('reads every file of a book, in one voice or all, and forgets the whole book', async () => {
    const bookId = newObjectId();
    const lineIds = sequentialObjectIds(400);
    const hash = '0'.repeat(32);
    await files.record(lineIds.flatMap((l) => ['arabic', 'english'].flatMap((f) => ['alloy', 'echo'].map((v) => file(`${bookId}/${l}/${f}/${v}_${hash}.mp3`)))));
    const alloy = await files.ofBook(bookId, 'alloy');
    expect(alloy).toHaveLength(800);
    expect(alloy.map((f) => f.key)).toEqual(alloy.map((f) => f.key).sort());
    expect(await files.ofBook(bookId)).toHaveLength(1600);
    await files.forgetBook(bookId);
    expect(await files.ofBook(bookId)).toEqual([]);
  }, 60_000);

  it('records and forgets hundreds of files of one item, past what one update expression holds', async () => {
    const bookId = newObjectId();
    const sameShard = sequentialObjectIds(40_000).filter((lineId) => shardOf(lineId) === '00').slice(0, 100);
    expect(sameShard).toHaveLength(100);
    const keys = sameShard.flatMap((l) => ['arabic', 'english', 'commentary'].map((f) => `${bookId}/${l}/${f}/nova_${'1'.repeat(32)}.mp3`));
    await files.record(keys.map((k) => file(k)));
    expect((await files.ofBook(bookId, 'nova')).map((f) => f.key)).toEqual([...keys].sort());
    await files.forget(keys.slice(0, 250));
    expect((await files.ofBook(bookId, 'nova')).map((f) => f.key)).toEqual(keys.slice(250).sort());
  });
});
