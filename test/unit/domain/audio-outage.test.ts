import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { workerHandler } from '../../../functions/audio-worker/handler.ts';
import type { AudioJob } from '../../../lib/audio/audio-job.ts';
import { planJob, type AudioJobMessage, type JobDeps } from '../../../lib/audio/jobs.ts';
import { unexpectedErrorText } from '../../../lib/errors.ts';
import { sequentialObjectIds } from '../../../lib/ids.ts';
import type { Objects } from '../../../lib/objects.ts';
import { maxReceives } from '../../../lib/queue.ts';
import { policies, type RetryClock } from '../../../lib/retry.ts';
import { fakeInbox } from '../../support/fakes/notifications.ts';
import { FakeAudioFiles, FakeAudioJobs, FakeBookStore, FakeObjects, FakeQueue, FakeSpeech } from '../../support/fakes/index.ts';
import { aBook } from './fixtures.ts';

/**
 * Issue 29, item 5: an audio job survives a storage outage. Steps are retried within the run, a chunk
 * that still fails is delivered again by its queue, and the job fails only for what no retry can fix.
 */

/** What S3's client throws while the endpoint is down: a network error, no HTTP answer. */
const connectionRefused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4569'), { code: 'ECONNREFUSED' });

/** The audio bucket, down for the next `failures` calls of any kind. */
class FlakyObjects {
  failures = 0;
  calls = 0;
  constructor(readonly inner: FakeObjects) {}
  port(): Objects {
    return new Proxy(this.inner, {
      get: (target, name) => {
        const value = Reflect.get(target, name) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          this.calls++;
          if (this.failures > 0) {
            this.failures--;
            throw connectionRefused();
          }
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });
  }
}

/** Retries that do not wait, counting their waits: the tests assert outcomes, never time. */
class NoWaits implements RetryClock {
  waits = 0;
  async sleep() {
    this.waits++;
  }
  random() {
    return 0.5;
  }
}
const noWaits = () => new NoWaits();

async function aJob(lineCount: number) {
  const books = new FakeBookStore();
  const book = aBook('owner-1', { lineCount });
  const lines = sequentialObjectIds(lineCount).map((lineId, i) => ({ bookId: book.bookId, lineId, arabic: `سطر ${i}`, english: `line ${i}`, commentary: '', rootwords: '' }));
  await books.create(book, lines);
  const audioJobs = new FakeAudioJobs();
  const at = '2026-03-15T12:00:00.000Z';
  const job: AudioJob = { _id: 'job-1', bookId: book.bookId, voice: 'alloy', status: 'pending', progress: 0, createdAt: at, updatedAt: at, __v: 0 };
  await audioJobs.create(job);
  const storage = new FlakyObjects(new FakeObjects('https://audio.test'));
  const queue = new FakeQueue();
  const clock = noWaits();
  const deps: JobDeps = {
    books,
    audioJobs,
    audio: storage.port(),
    audioFiles: new FakeAudioFiles(),
    speech: async () => new FakeSpeech(),
    audioQueue: queue,
    inbox: fakeInbox(() => new Date()).deps,
    now: () => new Date(at),
    retryClock: clock,
  };
  return { deps, books, audioJobs, storage, queue, clock, book };
}

const chunksSent = (queue: FakeQueue) => queue.sent.map((m) => m.body as AudioJobMessage).filter((m) => m.kind === 'chunk');

/** The SQS event Lambda hands the worker: one message, delivered for the `receives`th time. */
const delivery = (body: AudioJobMessage, receives: number, messageId = 'm-1'): SQSEvent =>
  ({ Records: [{ messageId, body: JSON.stringify(body), attributes: { ApproximateReceiveCount: String(receives) } }] }) as unknown as SQSEvent;

describe('an audio job over a storage outage', () => {
  it('waits out a short outage within the run and completes', async () => {
    const { deps, audioJobs, storage, queue, clock } = await aJob(25);
    await planJob(deps, 'job-1');
    const worker = workerHandler(() => deps);
    storage.failures = policies.outage.attempts - 1; // every try of the first step but the last
    for (const chunk of chunksSent(queue)) expect((await worker(delivery(chunk, 1))).batchItemFailures).toEqual([]);
    expect(clock.waits).toBeGreaterThanOrEqual(policies.outage.attempts - 1);
    expect(await audioJobs.get('job-1')).toMatchObject({ status: 'completed', progress: 100, doneLines: 25 });
  });

  it('leaves a chunk to its queue when storage stays down, on every try including the last, then completes when storage returns', async () => {
    const { deps, audioJobs, storage, queue } = await aJob(25);
    await planJob(deps, 'job-1');
    const [first, second] = chunksSent(queue);
    const worker = workerHandler(() => deps);
    for (let receives = 1; receives <= maxReceives; receives++) {
      storage.failures = Number.MAX_SAFE_INTEGER; // down for the whole delivery
      expect((await worker(delivery(first!, receives))).batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
      expect(await audioJobs.get('job-1')).toMatchObject({ status: 'in_progress', progress: 0 });
    }
    // The job is not failed: the sweeper plans it again (lib/audio/stalled.ts), which sends only the chunks not counted.
    storage.failures = 0;
    expect((await worker(delivery(second!, 1))).batchItemFailures).toEqual([]);
    queue.sent.length = 0;
    await planJob(deps, 'job-1');
    expect(chunksSent(queue).map((c) => c.chunk)).toEqual([first!.chunk]);
    expect((await worker(delivery(chunksSent(queue)[0]!, 1))).batchItemFailures).toEqual([]);
    expect(await audioJobs.get('job-1')).toMatchObject({ status: 'completed', progress: 100 });
  });

  it('fails the job at once, in our words, for what no retry can fix', async () => {
    const { deps, audioJobs, books, queue, book, storage } = await aJob(5);
    await planJob(deps, 'job-1');
    const [chunk] = chunksSent(queue);
    books.books.delete(book.bookId);
    expect((await workerHandler(() => deps)(delivery(chunk!, 1))).batchItemFailures).toEqual([]);
    expect(await audioJobs.get('job-1')).toMatchObject({ status: 'failed', error: `Book ${book.bookId} no longer exists` });
    expect(storage.calls).toBe(0);
  });

  it('fails the job at once when storage refuses the request as wrong (access denied), without the SDK text', async () => {
    const { deps, audioJobs, queue } = await aJob(5);
    await planJob(deps, 'job-1');
    const [chunk] = chunksSent(queue);
    const denied = Object.assign(new Error('User: arn:aws:sts::123456789012:assumed-role/x is not authorized'), {
      name: 'AccessDenied',
      $fault: 'client',
      $metadata: { httpStatusCode: 403 },
    });
    const audio = new Proxy(deps.audio, { get: (target, name) => (name === 'head' ? async () => Promise.reject(denied) : Reflect.get(target, name)) });
    const refusing: JobDeps = { ...deps, audio };
    expect((await workerHandler(() => refusing)(delivery(chunk!, 1))).batchItemFailures).toEqual([]);
    expect(await audioJobs.get('job-1')).toMatchObject({ status: 'failed', error: unexpectedErrorText });
  });
});

describe('a message the audio worker cannot act on', () => {
  const raw = (body: string, messageId: string) => ({ messageId, body, attributes: { ApproximateReceiveCount: '1' } });

  it('is dropped, counted and never acted on, while the batch’s good messages run', async () => {
    const { deps, audioJobs, storage, queue } = await aJob(5);
    await planJob(deps, 'job-1');
    const [chunk] = chunksSent(queue);
    const malformed = [
      'not json',
      'null',
      '[1]',
      '{}',
      JSON.stringify({ kind: 'plan' }),
      JSON.stringify({ kind: 'plan', jobId: '' }),
      JSON.stringify({ kind: 'resume', jobId: 'job-1' }),
      JSON.stringify({ kind: 'chunk', jobId: 'job-1', bookId: chunk!.bookId, voice: 'alloy', chunk: 0 }),
      JSON.stringify({ ...chunk, chunk: -1 }),
      JSON.stringify({ ...chunk, chunk: 0.5 }),
      JSON.stringify({ ...chunk, lineIds: [1, 2] }),
    ];
    const failed: string[] = [];
    const worker = workerHandler(() => deps, { messageFailed: (how) => failed.push(how) });
    storage.calls = 0;
    const event = { Records: malformed.map((body, i) => raw(body, `bad-${i}`)) } as unknown as SQSEvent;
    expect((await worker(event)).batchItemFailures).toEqual([]);
    expect(failed).toEqual(malformed.map(() => 'dropped'));
    expect(storage.calls).toBe(0);
    expect(await audioJobs.get('job-1')).toMatchObject({ status: 'in_progress', progress: 0 });

    failed.length = 0;
    const mixed = { Records: [raw('{}', 'bad'), raw(JSON.stringify(chunk), 'good')] } as unknown as SQSEvent;
    expect((await worker(mixed)).batchItemFailures).toEqual([]);
    expect(failed).toEqual(['dropped']);
    expect(await audioJobs.get('job-1')).toMatchObject({ status: 'completed', progress: 100 });
  });
});
