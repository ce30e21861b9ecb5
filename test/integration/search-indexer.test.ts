import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchEngine } from '../../functions/_shared/adapters/search.ts';
import { indexStreamBatch } from '../../functions/search-indexer/handler.ts';
import { drainStream, startStreamPoller, StreamBatchFailed, streamReader, type StreamHandler } from '../../infra/local/stream-poller.ts';
import { sqliteSearchEngine, type SqliteSearchEngine } from '../../lib/adapters/sqlite/search-engine.ts';
import { newJobId, newObjectId } from '../../lib/ids.ts';
import { newBookText, type BookText } from '../../lib/ocr/book-text.ts';
import { newPage } from '../../lib/ocr/pages/page.ts';
import type { SearchEngine, SearchView } from '../../lib/search/engine.ts';
import type { IndexingDeps } from '../../lib/search/indexing.ts';
import { matchOf } from '../../lib/search/query.ts';
import { testStores } from '../support/stores.ts';

/**
 * Issue 17: the search indexer on DynamoDB Local's stream (infra/local/stream-poller.ts,
 * functions/search-indexer/handler.ts), into an SQLite engine of its own. The stream carries every test
 * file's writes: each test looks only at its own books.
 */

const stores = testStores();
const at = '2026-03-01T00:00:00.000Z';
let engine: SqliteSearchEngine;
let deps: IndexingDeps;
/** The indexer over this file's engine; `broken` makes the engine fail every write, `poison` every write of that page. */
const control = { broken: false, seen: [] as string[], poison: undefined as { bookTextId: string; pageNumber: number } | undefined };
const handler: StreamHandler = async (event: DynamoDBStreamEvent) => {
  control.seen.push(...event.Records.map((r) => r.dynamodb!.SequenceNumber!));
  return indexStreamBatch(deps, event);
};

beforeAll(() => {
  engine = sqliteSearchEngine(':memory:');
  const failing = (fail: () => Promise<void>) => () => (control.broken ? Promise.reject(new Error('engine down')) : fail());
  const wrapped: SearchEngine = {
    putPages: (pages) =>
      pages.some((p) => p.bookTextId === control.poison?.bookTextId && p.pageNumber === control.poison.pageNumber)
        ? Promise.reject(new Error('refused page'))
        : failing(() => engine.putPages(pages))(),
    setBookFields: (id, fields) => failing(() => engine.setBookFields(id, fields))(),
    removeBook: (id) => failing(() => engine.removeBook(id))(),
    hideBook: (id) => failing(() => engine.hideBook(id))(),
    search: (query) => engine.search(query),
    similarTerms: (keys) => engine.similarTerms(keys),
    putBook: (book) => failing(() => engine.putBook(book))(),
    listBooks: (query) => engine.listBooks(query),
  };
  deps = { engine: wrapped, bookTexts: stores.bookTexts, pages: stores.pages };
});
afterAll(() => engine.close());

async function storedBook(fields: Partial<BookText> = {}): Promise<BookText> {
  const book = newBookText(
    { bookTextId: newObjectId(), jobId: newJobId(), fileId: newObjectId(), userId: newObjectId(), fileName: 'a.pdf', status: 'completed', visibility: 'private', ...fields },
    at,
  );
  if (!(await stores.ocrJobs.create(book))) throw new Error('not created');
  return book;
}
const writePages = (book: BookText, texts: Record<number, string>) =>
  stores.pages.putPages(Object.entries(texts).map(([n, text]) => newPage(book.bookTextId, Number(n), { text }, at)));

async function find(q: string, bookTextId: string, view: SearchView = { kind: 'all' }, on: SearchEngine = engine): Promise<number[]> {
  const found = await on.search({ ...matchOf(q), view, bookTextId, limit: 100, offset: 0 });
  return found.hits.map((h) => h.pageNumber).sort((a, b) => a - b);
}

describe('search indexer on the table’s stream', () => {
  it('indexes pages written through the stores, and finds them without diacritics', async () => {
    const book = await storedBook({ language: 'ar' });
    await writePages(book, { 0: 'بِسْمِ اللَّهِ الرَّحْمَٰنِ الرَّحِيمِ', 1: 'الْحَمْدُ لِلَّهِ رَبِّ الْعَالَمِينَ', 2: 'nothing here' });
    const report = await drainStream({ handler, bookTextIds: [book.bookTextId] });
    expect(report.delivered).toBeGreaterThanOrEqual(4); // the book and its three pages, at least
    expect(await find('الرحيم', book.bookTextId)).toEqual([0]);
    expect(await find('الحمد', book.bookTextId)).toEqual([1]);
    expect(await find('الرحمن الرحيم', book.bookTextId)).toEqual([0]);

    // A page replaced: its new text, not its old one.
    await writePages(book, { 2: 'مالك يوم الدين' });
    await drainStream({ handler, bookTextIds: [book.bookTextId] });
    expect(await find('nothing', book.bookTextId)).toEqual([]);
    expect(await find('الدين', book.bookTextId)).toEqual([2]);

    // A page updated (PATCH with pages as an object).
    await stores.pages.updatePages(book.bookTextId, [{ pageId: 'p', pageNumber: 1, text: 'إِيَّاكَ نَعْبُدُ' }], at);
    await drainStream({ handler, bookTextIds: [book.bookTextId] });
    expect(await find('نعبد', book.bookTextId)).toEqual([1]);
    expect(await find('العالمين', book.bookTextId)).toEqual([]);
  });

  it('moves a book into and out of a public search when its visibility changes', async () => {
    const book = await storedBook({ visibility: 'private' });
    await writePages(book, { 0: 'manuscript of the library', 5: 'library catalogue' });
    await drainStream({ handler, bookTextIds: [book.bookTextId] });
    expect(await find('library', book.bookTextId, { kind: 'public' })).toEqual([]);
    expect(await find('library', book.bookTextId, { kind: 'publicAndOwn', ownerId: book.userId })).toEqual([0, 5]);

    await stores.bookTexts.edit(book, { at, visibility: 'public' });
    await drainStream({ handler, bookTextIds: [book.bookTextId] });
    expect(await find('library', book.bookTextId, { kind: 'public' })).toEqual([0, 5]);

    await stores.bookTexts.edit((await stores.bookTexts.get(book.bookTextId))!, { at, visibility: 'private', language: 'en' });
    await drainStream({ handler, bookTextIds: [book.bookTextId] });
    expect(await find('library', book.bookTextId, { kind: 'public' })).toEqual([]);
  });

  it('fails the batch whole when the engine fails (the trigger halves it), and goes on from there once it works', async () => {
    const book = await storedBook();
    await writePages(book, { 0: 'first', 1: 'second' });
    control.broken = true;
    try {
      // The handler itself: the batch's first record fails alone too, so it throws and the trigger halves the batch.
      const event = {
        Records: [
          { eventName: 'INSERT', dynamodb: { SequenceNumber: '100', NewImage: { entity: { S: 'BookTextPage' }, bookTextId: { S: book.bookTextId }, pageNumber: { N: '0' } } } },
          { eventName: 'INSERT', dynamodb: { SequenceNumber: '101', NewImage: { entity: { S: 'BookTextPage' }, bookTextId: { S: book.bookTextId }, pageNumber: { N: '1' } } } },
        ],
      } as DynamoDBStreamEvent;
      await expect(indexStreamBatch(deps, event)).rejects.toThrow(/first record \(100\)/);
      // Through the stream: the batch fails, its position stays.
      await expect(drainStream({ handler, bookTextIds: [book.bookTextId] })).rejects.toBeInstanceOf(StreamBatchFailed);
      await expect(drainStream({ handler, bookTextIds: [book.bookTextId] })).rejects.toBeInstanceOf(StreamBatchFailed);
    } finally {
      control.broken = false;
    }
    await drainStream({ handler, bookTextIds: [book.bookTextId] });
    expect(await find('first', book.bookTextId)).toEqual([0]);
    expect(await find('second', book.bookTextId)).toEqual([1]);
  });

  it('finds the record that fails among a batch’s: those before it indexed, it reported; alone, it is reported too', async () => {
    const book = await storedBook();
    await writePages(book, { 0: 'ahead', 1: 'refused', 2: 'behind' });
    const record = (seq: string, pageNumber: number) => ({
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: seq, NewImage: { entity: { S: 'BookTextPage' }, bookTextId: { S: book.bookTextId }, pageNumber: { N: String(pageNumber) } } },
    });
    control.poison = { bookTextId: book.bookTextId, pageNumber: 1 };
    try {
      const batch = { Records: [record('200', 0), record('201', 1), record('202', 2)] } as DynamoDBStreamEvent;
      expect((await indexStreamBatch(deps, batch)).batchItemFailures).toEqual([{ itemIdentifier: '201' }]);
      expect(await find('ahead', book.bookTextId)).toEqual([0]);
      expect(await find('behind', book.bookTextId)).toEqual([]); // Lambda retries it, after the failing one
      const alone = { Records: [record('201', 1)] } as DynamoDBStreamEvent;
      expect((await indexStreamBatch(deps, alone)).batchItemFailures).toEqual([{ itemIdentifier: '201' }]);
      await expect(indexStreamBatch(deps, { Records: [record('201', 1), record('202', 2)] } as DynamoDBStreamEvent)).rejects.toThrow(/halve/);
    } finally {
      control.poison = undefined;
    }
  });

  it('narrows a batch that keeps failing to one record at a time, and gives up on the record that fails alone (the trigger’s dead letter)', async () => {
    const book = await storedBook();
    await writePages(book, { 0: 'before', 1: 'poison', 2: 'after' });
    const poison = (event: DynamoDBStreamEvent) =>
      event.Records.some((r) => r.dynamodb?.NewImage?.bookTextId?.S === book.bookTextId && r.dynamodb?.NewImage?.pageNumber?.N === '1');
    const sizes: number[] = [];
    const picky: StreamHandler = async (event) => {
      if (poison(event)) {
        sizes.push(event.Records.length);
        return { batchItemFailures: [{ itemIdentifier: event.Records[0]!.dynamodb!.SequenceNumber! }] };
      }
      return handler(event, undefined as never);
    };
    const lines: string[] = [];
    const reader = streamReader({ tableName: process.env.TABLE_NAME!, handler: picky, log: (line) => lines.push(line) });
    try {
      let failures = 0;
      for (;;) {
        try {
          await reader.drain({ only: (r) => r.dynamodb?.NewImage?.bookTextId?.S === book.bookTextId });
          break;
        } catch (error) {
          expect(error).toBeInstanceOf(StreamBatchFailed);
          expect(++failures).toBeLessThan(10);
        }
      }
    } finally {
      reader.close();
    }
    // 5 tries of the batch, then of the record alone (the 5th alone is given up on, not thrown).
    expect(sizes.length).toBe(10);
    expect(sizes.slice(5)).toEqual([1, 1, 1, 1, 1]);
    expect(lines.filter((l) => l.includes('gave up on record'))).toHaveLength(1);
    expect(await find('before', book.bookTextId)).toEqual([0]);
    expect(await find('after', book.bookTextId)).toEqual([2]);
    expect(await find('poison', book.bookTextId)).toEqual([]);
  });

  it('keeps its position in a checkpoint file: a new reader over the same file goes on where the last one stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'indexer-checkpoint-'));
    try {
      const checkpointFile = join(dir, 'search-stream.json');
      const first = streamReader({ tableName: process.env.TABLE_NAME!, handler, checkpointFile, log: () => undefined });
      const whole = await first.drain({ only: () => false }); // to the stream's end, handling nothing
      first.close();
      const checkpoint = JSON.parse(readFileSync(checkpointFile, 'utf8')) as { streamArn: string; shards: Record<string, { after?: string }> };
      expect(checkpoint.streamArn).toMatch(/stream/);
      expect(Object.values(checkpoint.shards).some((s) => s.after)).toBe(true);

      control.seen = [];
      const book = await storedBook();
      await writePages(book, { 3: 'after the restart' });
      const again = streamReader({ tableName: process.env.TABLE_NAME!, handler, checkpointFile, log: () => undefined });
      const report = await again.drain({ only: (r) => r.dynamodb?.NewImage?.bookTextId?.S === book.bookTextId });
      again.close();
      // Only what came after the checkpoint: far fewer records than the whole stream the first reader read.
      const last = Object.values(checkpoint.shards).map((s) => BigInt(s.after ?? '0')).reduce((a, b) => (a > b ? a : b));
      expect(control.seen.length).toBeGreaterThanOrEqual(2);
      expect(control.seen.every((seq) => BigInt(seq) > last)).toBe(true);
      expect(report.delivered).toBeGreaterThanOrEqual(2);
      expect(report.records).toBeLessThan(whole.records);
      expect(await find('restart', book.bookTextId)).toEqual([3]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('by default hands the records to the search-indexer function, into this process’s searchEngine(); bookTextIds keeps to those books', async () => {
    const book = await storedBook({ visibility: 'public' });
    const other = await storedBook({ visibility: 'public' });
    await writePages(book, { 7: 'the default handler' });
    await writePages(other, { 7: 'the default handler' });
    const report = await drainStream({ bookTextIds: [book.bookTextId] });
    expect(report.delivered).toBe(2); // the book's insert and its page's
    expect(await find('default', book.bookTextId, { kind: 'public' }, await searchEngine())).toEqual([7]);
    expect(await find('default', other.bookTextId, { kind: 'public' }, await searchEngine())).toEqual([]);
  });

  it('polls: a page is searchable within a few seconds of its write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'indexer-poller-'));
    const options = { tableName: process.env.TABLE_NAME!, handler, checkpointFile: join(dir, 'search-stream.json'), log: () => undefined };
    // Caught up with the stream so far, as a running stack is.
    const catchUp = streamReader(options);
    await catchUp.drain({ only: () => false });
    catchUp.close();
    const poller = startStreamPoller(options);
    try {
      const book = await storedBook();
      const written = Date.now();
      await writePages(book, { 4: 'punctual' });
      let latency = -1;
      while (Date.now() - written < 5_000) {
        if ((await find('punctual', book.bookTextId)).length) {
          latency = Date.now() - written;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(latency).toBeGreaterThanOrEqual(0);
      expect(latency).toBeLessThan(3_000);
    } finally {
      await poller.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
