import { DeleteObjectsCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { dynamoAudioFiles } from '../../lib/adapters/dynamo/audio-files.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { audioKey, contentHash } from '../../lib/audio/audio-key.ts';
import { audioFields } from '../../lib/audio/voices.ts';
import type { Line } from '../../lib/books/book.ts';
import { newObjectId, sequentialObjectIds } from '../../lib/ids.ts';
import { startApi } from '../support/api.ts';
import { testDb, testStores } from '../support/stores.ts';
import { aBook } from '../unit/domain/fixtures.ts';

/**
 * Audio written straight into the bucket, never through the service (issue 26): a bucket copied in
 * at a migration, a restore, an operator's copy or delete. The embedded S3 announces each change as
 * S3 would, on the local audio-file-events queue, and audio-files-sync (run by the global setup, as
 * `npm start` runs it) puts the record right, so the listings show it with no call to the service.
 * The book is bench/big-books.ts's size: 6,236 lines, its three fields in one voice, 18,708 files.
 */
const stores = testStores();
const record = dynamoAudioFiles(testDb());
const bucket = s3Objects(s3Client(), process.env.AUDIO_BUCKET!);
const lineTotal = 6236;
const voice = 'alloy';
/**
 * PUTs at a time: the AWS CLI's default (`max_concurrent_requests`, 10), as an operator's `aws s3
 * sync` or `cp --recursive` copies a bucket in.
 */
const putsInFlight = 10;
/** How long the listings may take to show the last change (the bound). */
const listingDeadlineMs = 30_000;
const mp3 = new Uint8Array([0xff, 0xfb, 0x90, 0x00, 0, 0, 0, 0]);

let api: Awaited<ReturnType<typeof startApi>>;
const bookId = newObjectId();
let lines: Line[];
let keys: string[];

beforeAll(async () => {
  api = await startApi();
  lines = sequentialObjectIds(lineTotal).map((lineId, i) => ({
    bookId,
    lineId,
    arabic: `سطر ${i}`,
    english: `line ${i}`,
    commentary: `note ${i}`,
    rootwords: '',
  }));
  const at = new Date().toISOString();
  await stores.books.create(aBook(newObjectId(), { bookId, title: 'A copied bucket', lineCount: lineTotal, createdAt: at, updatedAt: at }), lines);
  keys = lines.flatMap((line) => audioFields.map((field) => audioKey(bookId, line.lineId, field, voice, contentHash(line, voice))));
}, 120_000);
afterAll(() => api?.close());

/** Keys stored in the bucket with `putsInFlight` PUTs at a time. */
async function putAll(all: readonly string[]) {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < all.length; i = next++) await bucket.put(all[i]!, mp3, 'audio/mpeg');
  };
  await Promise.all(Array.from({ length: putsInFlight }, lane));
}

const listing = async () => {
  const res = await api.call('GET', `/audio/${bookId}/all?voice=${voice}`);
  expect(res.status).toBe(200);
  return res.body as { totalFiles: number; lines: { lineId: string; audio: Record<string, { storageKey: string }[]> }[] };
};
const withAudio = async () => {
  const res = await api.call('GET', `/audio/${bookId}/lines-with-audio?voice=${voice}`);
  expect(res.status).toBe(200);
  return res.body as { lines: { lineId: string; fields: Record<string, { hasAudio: boolean }> }[] };
};
/**
 * Polls until `done` holds of `/all`, at most `listingDeadlineMs`; the time it took. The record the
 * listings read is polled first, as it is cheap: a listing of 18,708 files costs the test a second of
 * CPU that the handler under test would not get. Once a second: each look is a query of 256 items
 * that DynamoDB Local serves beside the handler's writes.
 */
async function until(files: number, done: (all: Awaited<ReturnType<typeof listing>>) => boolean): Promise<number> {
  const started = performance.now();
  for (;;) {
    if ((await record.ofBook(bookId, voice)).length === files && done(await listing())) return performance.now() - started;
    if (performance.now() - started > listingDeadlineMs) throw new Error(`the listing did not follow the bucket within ${listingDeadlineMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

describe('audio stored in or removed from the bucket by others', () => {
  it('is listed by lines-with-audio and /all within 30 s of the last put, and unlisted once deleted', async () => {
    const started = performance.now();
    await putAll(keys);
    const putMs = performance.now() - started;
    const listedMs = await until(keys.length, (all) => all.totalFiles === keys.length);

    const all = await listing();
    expect(all.lines.map((l) => l.lineId)).toEqual(lines.map((l) => l.lineId));
    expect(all.lines.flatMap((l) => Object.values(l.audio).flat().map((f) => f.storageKey)).sort()).toEqual([...keys].sort());
    const shown = await withAudio();
    expect(shown.lines).toHaveLength(lineTotal);
    expect(shown.lines.every((l) => audioFields.every((field) => l.fields[field]!.hasAudio))).toBe(true);

    // Deleted straight from the bucket: one by DELETE, two by DeleteObjects (which s3rver does not announce itself).
    const [one, ...two] = [keys[0]!, keys[9_000]!, keys.at(-1)!];
    await bucket.delete(one);
    await s3Client().send(new DeleteObjectsCommand({ Bucket: process.env.AUDIO_BUCKET!, Delete: { Objects: two.map((Key) => ({ Key })) } }));
    const unlistedMs = await until(keys.length - 3, (l) => l.totalFiles === keys.length - 3);
    const after = await withAudio();
    expect(after.lines[0]!.fields.arabic!.hasAudio).toBe(false);
    expect(after.lines[0]!.fields.english!.hasAudio).toBe(true);
    expect(after.lines[3000]!.fields.arabic!.hasAudio).toBe(false); // keys[9_000]: line 3,000's first field
    expect(after.lines.at(-1)!.fields.commentary!.hasAudio).toBe(false);
    process.stderr.write(
      `audio bucket events: ${keys.length} puts ${(putMs / 1000).toFixed(1)} s, listed ${(listedMs / 1000).toFixed(1)} s after the last put, ` +
        `deletes unlisted after ${(unlistedMs / 1000).toFixed(1)} s\n`,
    );
  }, 300_000);
});
