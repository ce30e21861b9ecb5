import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoLedger } from '../../ocr-worker/adapters/dynamo-ledger.ts';
import { ensureLedgerTable } from '../../ocr-worker/adapters/ensure-ledger-table.ts';
import { workerDocumentClient, workerDynamo } from '../../ocr-worker/adapters/aws-clients.ts';
import type { JobLedger } from '../../ocr-worker/job/ledger.ts';
import { memoryLedger } from '../../ocr-worker/job/memory-ledger.ts';

/** The worker's ledger: the DynamoDB adapter (on the embedded DynamoDB) and the in-memory fake keep the same rules. */
const dynamo = workerDynamo();
const tableName = `ocr-ledger-${randomUUID()}`;
beforeAll(() => ensureLedgerTable(dynamo, tableName), 60_000);
afterAll(() => dynamo.destroy());

const ledgers: Array<[string, () => JobLedger]> = [
  ['DynamoDB', () => dynamoLedger(workerDocumentClient(dynamo), tableName)],
  ['in memory', () => memoryLedger()],
];

describe.each(ledgers)('the %s ledger', (_name, make) => {
  const ledger = make();

  it('records a job once: a second start keeps the first page count and start time', async () => {
    const jobId = randomUUID();
    expect(await ledger.job(jobId)).toBeUndefined();
    const first = await ledger.start(jobId, { pageCount: 12 }, 1_000);
    const again = await ledger.start(jobId, { pageCount: 99 }, 2_000);
    expect(first).toEqual({ jobId, pageCount: 12, startedAt: 1_000, pagesDone: 0, finished: false });
    expect(again).toEqual(first);
    const failed = await ledger.start(randomUUID(), { pageCount: 0, failure: 'The PDF is encrypted' }, 1_000);
    expect(failed.failure).toBe('The PDF is encrypted');
  });

  it('counts each page once, however often and however concurrently it is marked done', async () => {
    const jobId = randomUUID();
    await ledger.start(jobId, { pageCount: 12 }, 0);
    // Each of the 12 pages marked three times at once, as racing workers and redeliveries would.
    const marks = Array.from({ length: 36 }, (_, i) => ledger.markPageDone(jobId, { pageNumber: (i % 12) + 1, text: `page ${(i % 12) + 1}` }));
    const results = await Promise.all(marks);
    expect(results.filter((r) => r.counted)).toHaveLength(12);
    expect((await ledger.job(jobId))!.pagesDone).toBe(12);
    expect(Math.max(...results.map((r) => r.pagesDone))).toBe(12);
    // In page order (10 after 9, not after 1), each with the text of its first mark.
    const pages = await ledger.pages(jobId);
    expect(pages.map((p) => p.pageNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(pages[9]).toEqual({ pageNumber: 10, text: 'page 10' });
  });

  it('keeps a page error and a confidence, and tells which pages are done', async () => {
    const jobId = randomUUID();
    await ledger.start(jobId, { pageCount: 3 }, 0);
    await ledger.markPageDone(jobId, { pageNumber: 1, text: 'نص', confidence: 87 });
    await ledger.markPageDone(jobId, { pageNumber: 3, text: '', error: 'Page 3 took longer than 120 s to read' });
    expect(await ledger.donePages(jobId, [1, 2, 3])).toEqual(new Set([1, 3]));
    expect(await ledger.pages(jobId)).toEqual([
      { pageNumber: 1, text: 'نص', confidence: 87 },
      { pageNumber: 3, text: '', error: 'Page 3 took longer than 120 s to read' },
    ]);
    expect(await ledger.donePages(randomUUID(), [1])).toEqual(new Set());
  });

  it('counts the pages stopped at a limit, racing or not, and fails a job once, never a finished one', async () => {
    const jobId = randomUUID();
    await ledger.start(jobId, { pageCount: 6 }, 0);
    const marks = await Promise.all(
      [1, 2, 3, 3, 4].map((n) => ledger.markPageDone(jobId, { pageNumber: n, text: '', error: `Page ${n} took longer than 25 s to read`, overLimit: n !== 4 })),
    );
    expect(Math.max(...marks.map((m) => m.pagesOverLimit))).toBe(3);
    expect((await ledger.job(jobId))!.pagesOverLimit).toBe(3);
    await Promise.all([ledger.fail(jobId, 'first reason'), ledger.fail(jobId, 'first reason')]);
    await ledger.fail(jobId, 'second reason');
    expect((await ledger.job(jobId))!.failure).toBe('first reason');

    const finished = randomUUID();
    await ledger.start(finished, { pageCount: 1 }, 0);
    await ledger.markFinished(finished);
    await ledger.fail(finished, 'too late');
    expect((await ledger.job(finished))!.failure).toBeUndefined();
  });

  it('refuses a page of a job it has no record of', async () => {
    await expect(ledger.markPageDone(randomUUID(), { pageNumber: 1, text: '' })).rejects.toThrow();
  });

  it('grants the finish claim to one worker at a time, to another once the lease ran out, to nobody once finished', async () => {
    const jobId = randomUUID();
    await ledger.start(jobId, { pageCount: 1 }, 0);
    const racing = await Promise.all(['a', 'b', 'c', 'd'].map((owner) => ledger.claimFinish(jobId, owner, 10_000, 5_000)));
    expect(racing.filter(Boolean)).toHaveLength(1);
    const holder = ['a', 'b', 'c', 'd'][racing.indexOf(true)]!;
    const other = holder === 'a' ? 'b' : 'a';
    expect(await ledger.claimFinish(jobId, holder, 12_000, 5_000)).toBe(true); // its own claim, renewed
    expect(await ledger.claimFinish(jobId, other, 16_000, 5_000)).toBe(false); // 4 s old: still held
    expect(await ledger.claimFinish(jobId, other, 17_001, 5_000)).toBe(true); // 5 s and more: taken over
    expect((await ledger.job(jobId))!.claim).toEqual({ owner: other, claimedAt: 17_001 });
    await ledger.markFinished(jobId);
    expect((await ledger.job(jobId))!.finished).toBe(true);
    expect(await ledger.claimFinish(jobId, other, 99_000, 5_000)).toBe(false);
    expect(await ledger.claimFinish(randomUUID(), other, 99_000, 5_000)).toBe(false);
  });
});
