import { beforeEach, describe, expect, it } from 'vitest';
import { ReconcileStopped, reconcileAudioFiles, type ReconcileDeps, type ReconcileProgress } from '../../../lib/audio/reconcile.ts';
import { newObjectId, sequentialObjectIds } from '../../../lib/ids.ts';
import { FakeAudioFiles, FakeObjects } from '../../support/fakes/index.ts';

/**
 * `audio reconcile` (issue 26): the record of audio files brought in line with the bucket, listed a
 * page of 1,000 at a time beside one book's record, resumable after any page.
 */
let bucket: FakeObjects;
let record: FakeAudioFiles;
let pages: { prefix: string; after: string | undefined; max: number }[];
let deps: ReconcileDeps;

beforeEach(() => {
  bucket = new FakeObjects();
  record = new FakeAudioFiles();
  pages = [];
  const listPage = bucket.listPage.bind(bucket);
  const audio = {
    head: bucket.head.bind(bucket),
    listPage: (prefix: string, after: string | undefined, max: number) => {
      pages.push({ prefix, after, max });
      return listPage(prefix, after, max);
    },
  };
  deps = { audio, audioFiles: record };
});

const hash = 'c'.repeat(32);
// Line ids made in one run: ids made apart in the same second could repeat.
const lineIds = sequentialObjectIds(5000);
let linesUsed = 0;
/** The keys of `lines` new lines of the book, three fields each. */
const keysOf = (bookId: string, lines: number) =>
  lineIds.slice(linesUsed, (linesUsed += lines)).flatMap((line) => ['arabic', 'english', 'commentary'].map((field) => `${bookId}/${line}/${field}/alloy_${hash}.mp3`));
const store = (keys: string[]) => Promise.all(keys.map((key) => bucket.put(key, new Uint8Array(key.length % 50), 'audio/mpeg')));
const ghost = async (keys: string[]) => record.record(keys.map((key) => ({ key, size: 1, lastModified: '2026-11-01T00:00:00.000Z' })));
/** The record as it should be: every audio key the bucket holds, nothing else. */
async function expectInLine(...bookIds: string[]) {
  for (const bookId of bookIds) {
    expect((await record.ofBook(bookId)).map((f) => f.key), bookId).toEqual(bucket.keys(`${bookId}/`).filter((k) => k.endsWith('.mp3')));
  }
}

describe('reconciling the record with the bucket', () => {
  it('records the files it misses and forgets those the bucket no longer has, and counts them', async () => {
    const [a, b] = [newObjectId(), newObjectId()];
    const [inBoth, onlyStored, onlyRecorded] = [keysOf(a, 2), keysOf(a, 3), keysOf(b, 2)];
    await store([...inBoth, ...onlyStored, `${a}/cover.png`]);
    await ghost([...inBoth, ...onlyRecorded.slice(0, 1)]);
    await store(keysOf(b, 1));
    await ghost(onlyRecorded.slice(1));

    expect(await reconcileAudioFiles(deps)).toEqual({ added: onlyStored.length + 3, removed: onlyRecorded.length });
    await expectInLine(a, b);
    // Sizes and times are the bucket's.
    expect((await record.ofBook(a)).find((f) => f.key === onlyStored[0])).toEqual(await bucket.list(onlyStored[0]!).then((o) => o[0]));
    // In line: a second run changes nothing.
    expect(await reconcileAudioFiles(deps)).toEqual({ added: 0, removed: 0 });
  });

  it('lists pages of 1,000 keys across books, holding one book’s record at a time', async () => {
    const [a, b, c] = [newObjectId(), newObjectId(), newObjectId()].sort();
    await store([...keysOf(a!, 500), ...keysOf(b!, 300), ...keysOf(c!, 1)]); // 1,500 + 900 + 3
    const gone = keysOf(b!, 50);
    await ghost(gone);
    const booksRead: string[] = [];
    const ofBook = record.ofBook.bind(record);
    deps.audioFiles = { ...deps.audioFiles, record: record.record.bind(record), forget: record.forget.bind(record), ofBook: (id: string) => (booksRead.push(id), ofBook(id)) };
    const progress: ReconcileProgress[] = [];

    expect(await reconcileAudioFiles(deps, { onProgress: (p) => progress.push(p) })).toEqual({ added: 2403, removed: 150 });
    expect(pages.map((p) => [p.prefix, p.max])).toEqual([['', 1000], ['', 1000], ['', 1000]]);
    expect(pages.map((p) => p.after)).toEqual([undefined, progress[0]!.at, progress[1]!.at]);
    expect(progress.map((p) => p.listed)).toEqual([1000, 2000, 2403]);
    expect(booksRead).toEqual([a, b, c]);
    await expectInLine(a!, b!, c!);
  });

  it('resumes an interrupted run from its last progress, settling what the book it stopped in still has', async () => {
    const [a, b] = [newObjectId(), newObjectId()].sort();
    const stored = [...keysOf(a!, 600), ...keysOf(b!, 200)]; // 1,800 + 600
    await store(stored);
    // Gone from the bucket: files of book a on both sides of where the run stops (another voice of
    // every other stored file: between them in key order), and of book b.
    const goneA = stored.filter((k, i) => k.startsWith(a!) && i % 2 === 0).map((k) => k.replace('/alloy_', '/nova_'));
    const goneB = keysOf(b!, 10);
    await ghost([...goneA, ...goneB]);

    const listPage = deps.audio.listPage;
    let calls = 0;
    deps.audio = { ...deps.audio, listPage: (...args) => (++calls === 2 ? Promise.reject(new Error('connection reset')) : listPage(...args)) };
    let last: ReconcileProgress | undefined;
    const stopped = await reconcileAudioFiles(deps, { onProgress: (p) => (last = p) }).catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(ReconcileStopped);
    expect(stopped).toMatchObject({ message: 'connection reset', resumeFrom: last!.at });
    expect(last).toMatchObject({ listed: 1000, added: 1000 });
    const at = last!.at;
    expect(at.startsWith(`${a}/`)).toBe(true);
    // Settled up to `at`; not after it.
    const before = (keys: string[]) => keys.filter((k) => Buffer.compare(Buffer.from(k), Buffer.from(at)) <= 0);
    expect(before(goneA).length).toBeGreaterThan(300);
    expect(before(goneA).length).toBeLessThan(goneA.length);
    expect((await record.ofBook(a!)).filter((f) => goneA.includes(f.key)).map((f) => f.key)).toEqual(goneA.filter((k) => !before(goneA).includes(k)).sort());

    deps.audio = { ...deps.audio, listPage };
    pages = [];
    const resumed = await reconcileAudioFiles(deps, { from: at });
    expect(pages[0]!.after).toBe(at);
    expect(resumed).toEqual({ added: stored.length - 1000, removed: goneA.length - before(goneA).length + goneB.length });
    await expectInLine(a!, b!);
  });

  it('reconciles one book by its prefix, forgetting every file when none is left', async () => {
    const [a, b] = [newObjectId(), newObjectId()];
    await ghost(keysOf(a, 4));
    await store(keysOf(b, 1));
    expect(await reconcileAudioFiles(deps, { bookId: a })).toEqual({ added: 0, removed: 12 });
    expect(pages).toEqual([{ prefix: `${a}/`, after: undefined, max: 1000 }]);
    expect(await record.ofBook(a)).toEqual([]);
    expect(await record.ofBook(b)).toEqual([]); // not this run's book
  });
});
