import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AudioJob } from '../../../lib/audio/audio-job.ts';
import { failJob, planJob, runChunk, startBookJob, type AudioJobMessage, type JobDeps } from '../../../lib/audio/jobs.ts';
import { internal } from '../../../lib/errors.ts';
import { sequentialObjectIds } from '../../../lib/ids.ts';
import { maxNameLength } from '../../../lib/notifications/job-outcomes.ts';
import { toView } from '../../../lib/notifications/notification.ts';
import { recordFinalResult } from '../../../lib/ocr/jobs/callbacks.ts';
import { failureReason, maxReasonLength, noReasonGiven } from '../../../lib/ocr/jobs/outcome.ts';
import { jobStatus, listJobs } from '../../../lib/ocr/jobs/reads.ts';
import { bodyOf } from '../../support/bodies.ts';
import { FakeAudioFiles, FakeAudioJobs, FakeSpeech, fakeWorld, type FakeWorld } from '../../support/fakes/index.ts';
import { aBook, aUser, storedJob, storedUser } from './fixtures.ts';

/** Issue 31: a job's outcome reaches its owner or starter, in the inbox and on the phone, once. */
let world: FakeWorld;
beforeEach(() => {
  world = fakeWorld({ now: '2026-03-15T12:00:00.000Z' });
});

const result = (job: { jobId: string; fileId: string; userId: string }, fields: Record<string, unknown>) =>
  recordFinalResult(world.callbackDeps(), bodyOf('POST /ocr/result', { jobId: job.jobId, fileId: job.fileId, userId: job.userId, ...fields }));
const readDeps = () => ({ ...world.ocr.ports(), uploads: world.uploads });
const inbox = (userId: string) => world.inbox.notifications.inbox(userId);
const pushes = () => world.inbox.push.sent.map((s) => ({ token: s.device.token, ...s.message }));

async function ownerWithPhone() {
  const owner = await storedUser(world);
  const at = world.clock.iso();
  await world.inbox.devices.put({ userId: owner.userId, token: 'phone', platform: 'android', active: true, endpointId: 'endpoint-phone', createdAt: at, updatedAt: at });
  await world.inbox.devices.put({ userId: owner.userId, token: 'old-phone', platform: 'ios', active: false, endpointId: 'endpoint-old', createdAt: at, updatedAt: at });
  return owner;
}

describe('OCR outcomes', () => {
  it('tells the owner a completed job once, in Arabic for an Arabic book, on the inbox and the active phone', async () => {
    const owner = await ownerWithPhone();
    const { book } = await storedJob(world, owner.userId, { language: 'ar', fileName: 'الأربعون النووية.pdf' });
    for (let i = 0; i < 3; i++) await result(book, { status: 'completed', extractedText: 'نص', pageCount: 42, language: 'ar' });

    const [notice, ...more] = inbox(owner.userId);
    expect(more).toEqual([]);
    expect(toView(notice!, null)).toMatchObject({
      type: 'ocr_completed',
      actor: null,
      title: 'النص جاهز',
      body: 'اكتمل استخراج نص «الأربعون النووية.pdf»: 42 صفحة.',
      data: { jobId: book.jobId, bookTextId: book.bookTextId },
      isRead: false,
    });
    expect(pushes()).toEqual([
      { token: 'phone', notificationId: notice!.notificationId, type: 'ocr_completed', title: 'النص جاهز', body: notice!.body, data: { jobId: book.jobId, bookTextId: book.bookTextId } },
    ]);
  });

  it('tells a failure with the worker’s reason, in English for an English book, and shows it in the status and the job list', async () => {
    const owner = await ownerWithPhone();
    const { book } = await storedJob(world, owner.userId, { language: 'en', fileName: 'notes.pdf' });
    const reason = 'The file is not a PDF or an image this service reads (PNG, JPEG, TIFF, WebP, GIF, BMP).';
    await result(book, { status: 'failed', error: reason, language: 'en' });

    expect(inbox(owner.userId).map((n) => [n.type, n.title, n.body])).toEqual([['ocr_failed', 'Digitizing failed', `“notes.pdf” could not be digitized: ${reason}`]]);
    const status = await jobStatus(readDeps(), owner, book.jobId);
    expect(status.job).toMatchObject({ status: 'failed', error: reason, pagesProcessed: 0 });
    const listed = await listJobs(readDeps(), owner, { limit: 10, offset: 0 });
    expect(listed.jobs[0]).toMatchObject({ status: 'failed', error: reason, pagesProcessed: 0 });
  });

  it('shows our words, never a stack or a provider’s text, and a generic reason when none was given', async () => {
    const owner = await storedUser(world);
    const { book } = await storedJob(world, owner.userId, { language: 'en' });
    await result(book, { status: 'failed', error: 'TypeError: Cannot read properties of undefined\n    at run (/var/task/index.js:1:2)' });
    expect(inbox(owner.userId)[0]!.body).toBe(`“Riyad as-Salihin.pdf” could not be digitized: ${noReasonGiven}`);
    expect((await jobStatus(readDeps(), owner, book.jobId)).job).toMatchObject({ error: noReasonGiven });

    const { book: silent } = await storedJob(world, owner.userId, { language: 'en' });
    await result(silent, { status: 'failed' });
    expect((await jobStatus(readDeps(), owner, silent.jobId)).job).toMatchObject({ error: noReasonGiven });
  });

  it('gives a job that failed and is then completed one notice of each; no error field once completed', async () => {
    const owner = await storedUser(world);
    const { book } = await storedJob(world, owner.userId);
    await result(book, { status: 'failed', error: 'The file has no pages to read' });
    await result(book, { status: 'failed', error: 'The file has no pages to read' });
    await result(book, { status: 'completed', extractedText: 'x', pageCount: 1 });
    await result(book, { status: 'completed', extractedText: 'x', pageCount: 1 });
    expect(inbox(owner.userId).map((n) => n.type)).toEqual(['ocr_failed', 'ocr_completed']);
    const status = await jobStatus(readDeps(), owner, book.jobId);
    expect(status.job.status).toBe('completed');
    expect(status.job).not.toHaveProperty('error');
  });

  it('notifies once when the same result is posted by racing workers', async () => {
    const owner = await ownerWithPhone();
    const { book } = await storedJob(world, owner.userId);
    await Promise.all(Array.from({ length: 8 }, () => result(book, { status: 'completed', extractedText: 'x', pageCount: 2 })));
    expect(inbox(owner.userId)).toHaveLength(1);
    expect(pushes()).toHaveLength(1);
  });

  it('answers the callback even when the inbox is down, and tells no one of a running job', async () => {
    const owner = await storedUser(world);
    const { book } = await storedJob(world, owner.userId);
    world.inbox.notifications.failing = new Error('inbox down');
    await expect(result(book, { status: 'completed', extractedText: 'x', pageCount: 1 })).resolves.toMatchObject({ status: 'completed' });
    world.inbox.notifications.failing = undefined;
    const { book: running } = await storedJob(world, owner.userId);
    await result(running, { status: 'processing' });
    expect(inbox(owner.userId)).toEqual([]);
  });

  it(`cuts a file name over ${maxNameLength} characters`, async () => {
    const owner = await storedUser(world);
    const { book } = await storedJob(world, owner.userId, { language: 'en', fileName: `${'long '.repeat(40)}.pdf` });
    await result(book, { status: 'completed', extractedText: 'x', pageCount: 3 });
    const quoted = /“(.*)”/.exec(inbox(owner.userId)[0]!.body)![1]!;
    expect([...quoted]).toHaveLength(maxNameLength);
    expect(quoted.endsWith('…')).toBe(true);
  });
});

describe('failureReason', () => {
  it('is always one short line, and never a stack frame, a link or an ARN', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 2000 }), fc.constantFrom('Error: x\n    at f (/a/b.js:1:1)', 'AccessDenied arn:aws:iam::1:role/x', 'see https://x.test', 'ECONNRESET')), (raw) => {
        const shown = failureReason(raw);
        expect(shown).not.toMatch(/\n|arn:aws|https?:\/\/|\bat \//);
        expect([...shown].length).toBeLessThanOrEqual(maxReasonLength);
        expect(shown.trim()).not.toBe('');
      }),
    );
  });
});

describe('audio outcomes', () => {
  async function audioJob(lineCount: number, title = 'الأربعون النووية') {
    const starter = aUser('editor');
    const book = aBook('owner-1', { lineCount, title });
    const lines = sequentialObjectIds(lineCount).map((lineId) => ({ bookId: book.bookId, lineId, arabic: 'سطر', english: 'line', commentary: '', rootwords: '' }));
    await world.books.create(book, lines);
    const deps: JobDeps = {
      books: world.books,
      audioJobs: new FakeAudioJobs(),
      audio: world.audio,
      audioFiles: new FakeAudioFiles(),
      speech: async () => new FakeSpeech(),
      audioQueue: world.queue,
      inbox: world.inbox.deps,
      now: world.now,
    };
    const { jobId } = await startBookJob(deps, starter.userId, book.bookId, 'alloy');
    return { deps, jobId, starter, book };
  }
  const drain = async (deps: JobDeps) => {
    const delivered: AudioJobMessage[] = [];
    for (let next = world.queue.sent.shift(); next; next = world.queue.sent.shift()) {
      const message = next.body as AudioJobMessage;
      delivered.push(message);
      if (message.kind === 'plan') await planJob(deps, message.jobId);
      else await runChunk(deps, message);
    }
    return delivered;
  };

  it('tells the starter a completed job once, even when its messages are delivered again', async () => {
    const { deps, jobId, starter, book } = await audioJob(45);
    const delivered = await drain(deps);
    for (const message of delivered) await (message.kind === 'plan' ? planJob(deps, message.jobId) : runChunk(deps, message));
    expect(inbox(starter.userId).map((n) => [n.type, n.title, n.body, n.data])).toEqual([
      ['audio_completed', 'الصوت جاهز', 'صوت «الأربعون النووية» جاهز.', { audioJobId: jobId, bookId: book.bookId }],
    ]);
  });

  it('tells a failed job with its reason in our words, once', async () => {
    const { deps, jobId, starter } = await audioJob(5, 'Forty Hadith');
    await failJob(deps, jobId, internal('Book 1 no longer exists'));
    await failJob(deps, jobId, internal('Book 1 no longer exists'));
    expect(inbox(starter.userId).map((n) => [n.type, n.body])).toEqual([['audio_failed', 'The audio of “Forty Hadith” could not be made: Book 1 no longer exists']]);
  });

  it('tells no one of a job started before its starter was kept', async () => {
    const { deps, jobId } = await audioJob(5);
    const job = (await deps.audioJobs.get(jobId))!;
    const { startedBy: _, ...old } = job;
    await deps.audioJobs.create({ ...(old as AudioJob), _id: 'old-job' });
    await failJob(deps, 'old-job', internal('x'));
    expect([...world.inbox.notifications.inboxes.values()].flat()).toEqual([]);
  });
});
