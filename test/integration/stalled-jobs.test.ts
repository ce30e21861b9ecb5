import { describe, expect, it } from 'vitest';
import { jobFieldsOf } from '../support/bodies.ts';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { dynamoAudioFiles } from '../../lib/adapters/dynamo/audio-files.ts';
import { dynamoAudioJobStore } from '../../lib/adapters/dynamo/audio-jobs.ts';
import { dynamoStalledAudioJobs } from '../../lib/adapters/dynamo/stalled-audio-jobs.ts';
import { dynamoStalledOcrJobs } from '../../lib/adapters/dynamo/stalled-ocr-jobs.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { planJob, runChunk, startBookJob, type AudioJobMessage, type JobDeps } from '../../lib/audio/jobs.ts';
import { audioJobStalled, audioStallMinutes, maxAudioRequeues, requeueStalledAudioJobs } from '../../lib/audio/stalled.ts';
import type { Speech } from '../../lib/audio/speech.ts';
import { jobCredentials } from '../../lib/auth/job-credentials.ts';
import { localMacKey } from '../../lib/auth/local-mac.ts';
import { defaultTierCatalogue } from '../../lib/billing/tiers.ts';
import { newObjectId, sequentialObjectIds } from '../../lib/ids.ts';
import { uploadKey } from '../../lib/ocr/jobs/fields.ts';
import { ocrStallMinutes, requeueStalledOcrJobs } from '../../lib/ocr/jobs/stalled.ts';
import { createJob, JobNotQueued, type OcrJobMessage, type UploadDeps } from '../../lib/ocr/jobs/upload.ts';
import { FakeQueue } from '../support/fakes/queue.ts';
import { testDb, testStores } from '../support/stores.ts';
import { aUser } from '../unit/domain/fixtures.ts';

/**
 * Issue 29, item 3: nothing accepted is stuck. A job whose message was lost is sent again by a sweep
 * and completes; a job still moving or ended is left alone; a second sweep, or two at once, send it once.
 * Each job here is made two hours in the past (a clock of its own), the sweeps run at the real now.
 */
const db = testDb();
const stores = testStores(db);
const credentials = jobCredentials(localMacKey(async () => 'a test secret'));
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
const member = aUser('member');
const snapshot = { remainingCredits: 100, tierCredits: 100, pagesUsed: 0, billingPeriodEnd: '2026-12-01T00:00:00.000Z' };

/** An OCR job accepted at `at` whose message was lost: the send failed after its records were written (docs/SPEC.md 4.1). */
async function lostOcrJob(at: Date) {
  const deps: UploadDeps = {
    ocrJobs: stores.ocrJobs,
    index: stores.index,
    uploads: s3Objects(s3Client(), process.env.UPLOADS_BUCKET!),
    uploadsBucket: process.env.UPLOADS_BUCKET!,
    ocrQueue: { send: async () => Promise.reject(new Error('SQS unavailable')) },
    subscriptions: stores.subscriptions,
    tierCatalogue: defaultTierCatalogue,
    jobCredentials: credentials,
    now: () => at,
  };
  const stored = { storageKey: uploadKey('scan.pdf'), originalName: 'scan.pdf', fileType: 'application/pdf', fileSize: 8 };
  let jobId = '';
  const ocrJobs = { ...stores.ocrJobs, create: (...args: Parameters<typeof stores.ocrJobs.create>) => ((jobId = args[0].jobId), stores.ocrJobs.create(...args)) };
  const fields = jobFieldsOf({ language: 'ar', customPrompt: 'Arabic, two columns', jobMetadata: '{"source":"scanner"}' });
  await expect(createJob({ ...deps, ocrJobs }, member, stored, fields, snapshot, { removeObjectOnFailure: false })).rejects.toBeInstanceOf(JobNotQueued);
  return (await stores.ocr.byJobId(jobId))!;
}

const ocrSweep = (queue: FakeQueue) => requeueStalledOcrJobs({ stalledOcrJobs: dynamoStalledOcrJobs(db), ocrQueue: queue, jobCredentials: credentials, inbox: stores.inbox }, new Date());
const sentFor = (queue: FakeQueue, jobId: string) => queue.sent.map((m) => m.body as { jobId: string }).filter((b) => b.jobId === jobId);

describe('stalled OCR jobs', () => {
  it('sends a job whose message was lost again, as the upload would have sent it, once however often or however many sweep', async () => {
    const book = await lostOcrJob(hoursAgo(2));
    const queue = new FakeQueue();
    await Promise.all([ocrSweep(queue), ocrSweep(queue)]);
    await ocrSweep(queue);
    const sent = sentFor(queue, book.jobId) as OcrJobMessage[];
    expect(sent).toHaveLength(1);
    const file = await stores.ocr.getFile(book.fileId);
    expect(sent[0]).toEqual({
      jobId: book.jobId,
      fileId: book.fileId,
      bookTextId: book.bookTextId,
      userId: member.userId,
      storage: { bucket: process.env.UPLOADS_BUCKET!, key: file!.storageKey },
      fileName: 'scan.pdf',
      fileType: 'application/pdf',
      fileSize: 8,
      language: 'ar',
      customPrompt: 'Arabic, two columns',
      metadata: { source: 'scanner' },
      credential: expect.any(String),
    });
    // A fresh credential for this job alone, which the callbacks accept.
    expect(await credentials.verify(sent[0]!.credential, new Date())).toMatchObject({ jobId: book.jobId, userId: member.userId, fileId: book.fileId });

    // The worker completes it (its final callback); the next sweep lets it leave the list and sends nothing.
    await stores.ocrJobs.applyResult(book, { at: new Date().toISOString(), status: 'completed' });
    await ocrSweep(queue);
    expect(sentFor(queue, book.jobId)).toHaveLength(1);
  });

  it('leaves alone a job a worker is on (a page reported within the interval) and one that ended', async () => {
    const running = await lostOcrJob(hoursAgo(3));
    await stores.ocrJobs.recordPage(running, { at: new Date(Date.now() - (ocrStallMinutes / 2) * 60_000).toISOString(), pagesProcessed: 1, pageCount: 4 });
    const ended = await lostOcrJob(hoursAgo(3));
    await stores.ocrJobs.applyResult(ended, { at: hoursAgo(2.5).toISOString(), status: 'failed', error: 'unreadable' });
    const queue = new FakeQueue();
    await ocrSweep(queue);
    expect([...sentFor(queue, running.jobId), ...sentFor(queue, ended.jobId)]).toEqual([]);
    expect(await stores.ocr.byJobId(running.jobId)).toMatchObject({ status: 'processing' });
  });
});

const speech: Speech = { synthesize: async () => new Uint8Array([0xff, 0xfb, 0x90, 0x00]) };
const audioJobs = dynamoAudioJobStore(db);
/** Who starts the audio jobs here: told their outcomes. */
const starter = newObjectId();

/** A book of `lineCount` lines and audio deps over the embedded stores, at `at`, with the queue given. */
async function audioWorld(lineCount: number, at: Date, audioQueue: JobDeps['audioQueue']) {
  const deps: JobDeps = {
    books: stores.books,
    audioJobs,
    audio: s3Objects(s3Client(), process.env.AUDIO_BUCKET!),
    audioFiles: dynamoAudioFiles(db),
    speech: async () => speech,
    audioQueue,
    inbox: stores.inbox,
    now: () => at,
  };
  const bookId = newObjectId();
  const iso = at.toISOString();
  const lines = sequentialObjectIds(lineCount).map((lineId, i) => ({ bookId, lineId, arabic: `سطر ${i}`, english: `line ${i}`, commentary: '', rootwords: '' }));
  await stores.books.create(
    { bookId, title: 't', author: 'a', ownerId: newObjectId(), contributors: [], visibility: 'public', accessModel: 'free', requiredSubscriptionTier: null, metadata: {}, lineCount, createdAt: iso, updatedAt: iso },
    lines,
  );
  return { deps, bookId };
}

/** Runs every message on the queue, as the worker would, until it is empty. */
async function drain(deps: JobDeps, queue: FakeQueue) {
  for (let next = queue.sent.shift(); next; next = queue.sent.shift()) {
    const message = next.body as AudioJobMessage;
    if (message.kind === 'plan') await planJob(deps, message.jobId);
    else await runChunk(deps, message);
  }
}

const audioSweep = (queue: FakeQueue) => requeueStalledAudioJobs({ stalledAudioJobs: dynamoStalledAudioJobs(db), audioQueue: queue, books: stores.books, inbox: stores.inbox }, new Date());
const plansFor = (queue: FakeQueue, jobId: string) => queue.sent.filter((m) => (m.body as AudioJobMessage).jobId === jobId);

describe('stalled audio jobs', () => {
  it('plans a job whose messages were lost (pending, and in progress at 0%) again, once, and it completes', async () => {
    const lost = new FakeQueue();
    const { deps, bookId } = await audioWorld(25, hoursAgo(2), lost);
    const { jobId } = await startBookJob(deps, starter, bookId, 'alloy');
    await planJob(deps, jobId); // in progress at 0%: the chunks' messages were lost with the queue
    expect(await audioJobs.get(jobId)).toMatchObject({ status: 'in_progress', progress: 0 });

    const queue = new FakeQueue();
    await Promise.all([audioSweep(queue), audioSweep(queue)]);
    await audioSweep(queue);
    expect(plansFor(queue, jobId).map((m) => m.body)).toEqual([{ kind: 'plan', jobId }]);

    queue.sent.splice(0, queue.sent.length, ...plansFor(queue, jobId));
    await drain({ ...deps, audioQueue: queue, now: () => new Date() }, queue);
    expect(await audioJobs.get(jobId)).toMatchObject({ status: 'completed', progress: 100, doneLines: 25 });
    await audioSweep(queue);
    expect(plansFor(queue, jobId)).toEqual([]);
  });

  it('leaves alone a job whose chunks are being counted, and one that ended', async () => {
    const sent = new FakeQueue();
    const { deps, bookId } = await audioWorld(45, hoursAgo(3), sent);
    const { jobId: moving } = await startBookJob(deps, starter, bookId, 'alloy');
    await planJob(deps, moving);
    const chunk = sent.sent.map((m) => m.body as AudioJobMessage).find((m) => m.kind === 'chunk')!;
    await runChunk({ ...deps, now: () => new Date(Date.now() - (audioStallMinutes / 2) * 60_000) }, chunk as Extract<AudioJobMessage, { kind: 'chunk' }>);
    const { jobId: ended } = await startBookJob(deps, starter, bookId, 'nova');
    await audioJobs.finish(ended, { status: 'failed', error: 'x' }, hoursAgo(2.5).toISOString());

    const queue = new FakeQueue();
    await audioSweep(queue);
    expect([...plansFor(queue, moving), ...plansFor(queue, ended)]).toEqual([]);
    expect(await audioJobs.get(moving)).toMatchObject({ status: 'in_progress', progress: 44 });
  });

  it('fails, in our words, a job that never moves after every requeue', async () => {
    const { deps, bookId } = await audioWorld(5, hoursAgo(2), new FakeQueue());
    const { jobId } = await startBookJob(deps, starter, bookId, 'alloy');
    const stalled = dynamoStalledAudioJobs(db);
    const job = (await audioJobs.get(jobId))!;
    // As if each requeue's plan was lost too, the last one two hours ago.
    for (let n = 0; n < maxAudioRequeues; n++) expect(await stalled.takeRequeue({ ...job, ...(n ? { requeues: n } : {}) }, hoursAgo(2).toISOString())).toBe(true);
    const queue = new FakeQueue();
    await audioSweep(queue);
    expect(plansFor(queue, jobId)).toEqual([]);
    expect(await audioJobs.get(jobId)).toMatchObject({ status: 'failed', error: audioJobStalled, requeues: maxAudioRequeues });
  });
});
