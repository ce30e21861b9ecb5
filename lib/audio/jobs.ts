import type { Book, BookStore } from '../books/book.ts';
import { DomainError, internal, notFound, shownMessage } from '../errors.ts';
import { newObjectId } from '../ids.ts';
import { logger } from '../log.ts';
import type { Queue } from '../queue.ts';
import { policies, retry, type RetryClock } from '../retry.ts';
import { checkId } from '../ids.ts';
import { findBook } from './access.ts';
import { jobView, type AudioJob, type AudioJobStore } from './audio-job.ts';
import { fieldAudio, type GenerateDeps } from './generate.ts';
import { VoiceRejected } from './speech.ts';
import { endedAs, tellAudioOutcome } from './outcome.ts';
import type { NotifyDeps } from '../notifications/notify.ts';
import { audioFields } from './voices.ts';

/**
 * Whole-book audio jobs (docs/SPEC.md 4.2, state table 3.2). A book of thousands of lines cannot be
 * spoken in one Lambda run, so the job is planned into chunk messages on the audio queue. Each chunk
 * is counted once (a duplicate or retried delivery finds its audio cached and its count taken), and
 * progress is the share of lines in counted chunks.
 */
export interface JobDeps extends GenerateDeps {
  books: BookStore;
  audioJobs: AudioJobStore;
  audioQueue: Queue;
  /** The starter's inbox and devices: the job's outcome is told there (lib/audio/outcome.ts). */
  inbox: NotifyDeps;
  now: () => Date;
  /** How the in-job retries wait (tests pass one that does not). */
  retryClock?: RetryClock;
}

/**
 * A failure no retry can fix: our own (a book gone), or a request the provider refused as wrong
 * (a 4xx that is not a throttle: access denied, a bucket that does not exist). Anything else (a
 * store or provider down, timing out, throttling, a network error) is tried again: within the step,
 * then by the queue, then by the sweeper, and fails the job only when those run out.
 */
export function cannotRetry(error: unknown): boolean {
  if (error instanceof DomainError || error instanceof VoiceRejected) return true;
  const e = error as { $fault?: unknown; $retryable?: unknown; $metadata?: { httpStatusCode?: number } } | null;
  const status = e?.$metadata?.httpStatusCode ?? 0;
  return !!e && e.$fault === 'client' && !e.$retryable && status !== 429 && status !== 408;
}

/** A step of the job (a read, a write, a line's audio) under the one retry rule, as long as a retry can help. */
const steady = <T>(deps: Pick<JobDeps, 'retryClock'>, step: () => Promise<T>): Promise<T> =>
  retry(step, { ...policies.outage, retryable: (error) => !cannotRetry(error) }, deps.retryClock);

export const linesPerChunk = 20;
/** Lines of a chunk spoken at once (each with its three fields). */
const linesInFlight = 4;

export type AudioJobMessage =
  | { kind: 'plan'; jobId: string }
  | { kind: 'chunk'; jobId: string; bookId: string; voice: string; chunk: number; lineIds: string[] };

/**
 * `POST /audio/:bookId/generate`: stores a pending job and answers at once. The voice is any text
 * (docs/SPEC.md 4.2: "not validated"); its contract reads a missing, empty or non-string one as `alloy`.
 */
export async function startBookJob(deps: Pick<JobDeps, 'books' | 'audioJobs' | 'audioQueue' | 'now'>, startedBy: string, bookId: string | undefined, voice: string) {
  const book = await findBook(deps, bookId);
  const at = deps.now().toISOString();
  const job: AudioJob = { _id: newObjectId(), bookId: book.bookId, voice, status: 'pending', progress: 0, createdAt: at, updatedAt: at, __v: 0, startedBy };
  await deps.audioJobs.create(job);
  await deps.audioQueue.send({ kind: 'plan', jobId: job._id } satisfies AudioJobMessage);
  return { success: true, jobId: job._id };
}

export const jobNotFound = 'Job not found';

export async function readJob(deps: Pick<JobDeps, 'audioJobs'>, jobId: string | undefined) {
  const job = await deps.audioJobs.get(checkId(jobId, 'job'));
  if (!job) throw notFound(jobNotFound);
  return jobView(job);
}

/** Every job, newest first, each with its book's summary in place of the id. */
export async function listJobs(deps: Pick<JobDeps, 'audioJobs' | 'books'>) {
  const jobs = await deps.audioJobs.list();
  const ids = [...new Set(jobs.map((j) => j.bookId))];
  const books = new Map((await Promise.all(ids.map((id) => deps.books.get(id)))).flatMap((b) => (b ? [[b.bookId, b] as const] : [])));
  return {
    success: true,
    jobs: jobs.map((job) => ({ ...jobView(job), bookId: bookSummary(job.bookId, books.get(job.bookId)) })),
  };
}

const bookSummary = (bookId: string, book: Book | undefined) => {
  if (!book) return null;
  const meta = book.metadata as Record<string, unknown>;
  return {
    _id: bookId,
    title: book.title,
    author: book.author,
    category: meta.category ?? null,
    progress: meta.progress ?? null,
    difficulty: meta.difficulty ?? null,
  };
};

/** Plans the job: its size first (so counting can tell when it is done), then one message per chunk. */
export async function planJob(deps: JobDeps, jobId: string): Promise<void> {
  const job = await steady(deps, () => deps.audioJobs.get(jobId));
  if (!job) return;
  const ended = endedAs(job);
  if (ended) return tellAudioOutcome(deps, job, ended);
  const lines = await steady(deps, () => deps.books.lines(job.bookId));
  const chunks: string[][] = [];
  for (let i = 0; i < lines.length; i += linesPerChunk) chunks.push(lines.slice(i, i + linesPerChunk).map((l) => l.lineId));
  const at = deps.now().toISOString();
  await steady(deps, () => deps.audioJobs.start(jobId, lines.length, chunks.length, at));
  // Planned again (the sweeper requeued a stalled job): the chunks already counted are not sent again.
  const counted = await steady(deps, () => deps.audioJobs.countedChunks(jobId));
  if (chunks.every((_, chunk) => counted.has(chunk))) {
    await steady(deps, () => deps.audioJobs.finish(jobId, { status: 'completed' }, at));
    return tellAudioOutcome(deps, job, { status: 'completed' });
  }
  const toSend = chunks.flatMap((lineIds, chunk) => (counted.has(chunk) ? [] : [{ lineIds, chunk }]));
  // Ten sends at a time: a 6,236-line book is 312 messages, and the plan must finish well inside its visibility timeout.
  for (let i = 0; i < toSend.length; i += 10) {
    await Promise.all(
      toSend.slice(i, i + 10).map(({ lineIds, chunk }) =>
        steady(deps, () => deps.audioQueue.send({ kind: 'chunk', jobId, bookId: job.bookId, voice: job.voice, chunk, lineIds } satisfies AudioJobMessage)),
      ),
    );
  }
}

/** A field that cannot be spoken (empty, voice refused) is logged and counted, as the spec says. */
const isLineFailure = (error: unknown) => error instanceof DomainError || error instanceof VoiceRejected;

/** Speaks one chunk's lines (cache hits cost a HEAD), then counts the chunk once. */
export async function runChunk(deps: JobDeps, message: Extract<AudioJobMessage, { kind: 'chunk' }>): Promise<void> {
  const job = await steady(deps, () => deps.audioJobs.get(message.jobId));
  if (!job) return;
  const ended = endedAs(job);
  if (ended) return tellAudioOutcome(deps, job, ended);
  const book = await steady(deps, () => deps.books.get(message.bookId));
  if (!book) throw internal(`Book ${message.bookId} no longer exists`);

  const queue = [...message.lineIds];
  const speakLines = async () => {
    for (let lineId = queue.shift(); lineId !== undefined; lineId = queue.shift()) {
      const line = await steady(deps, () => deps.books.line(book.bookId, lineId));
      if (!line) {
        logger.warn('Audio job: line no longer exists', { jobId: job._id, lineId });
        continue;
      }
      await Promise.all(
        audioFields.map((field) =>
          steady(deps, () => fieldAudio(deps, book, line, field, message.voice)).catch((error: unknown) => {
            if (!isLineFailure(error)) throw error;
            logger.info('Audio job: field skipped', { jobId: job._id, lineId, field, reason: (error as Error).message });
          }),
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: linesInFlight }, speakLines));

  const at = deps.now().toISOString();
  // Already counted (a redelivery): the first delivery may have died before finishing the job.
  const counted =
    (await steady(deps, () => deps.audioJobs.countChunk(job._id, message.chunk, message.lineIds.length, at))) ??
    (await steady(deps, () => deps.audioJobs.get(job._id)));
  if (!counted) return;
  const total = counted.totalLines ?? 0;
  const done = counted.doneLines ?? 0;
  if (done >= total) {
    await steady(deps, () => deps.audioJobs.finish(job._id, { status: 'completed' }, at));
    await tellAudioOutcome(deps, job, { status: 'completed' });
  } else await steady(deps, () => deps.audioJobs.setProgress(job._id, Math.floor((done / total) * 100), at));
}

/**
 * A failure no retry can fix (`cannotRetry`): the job fails with the error (state table 3.2), in our
 * own words: callers read it, and an SDK's message can name the account and role.
 */
export async function failJob(deps: Pick<JobDeps, 'audioJobs' | 'books' | 'inbox' | 'now'>, jobId: string, error: unknown): Promise<void> {
  const ended = { status: 'failed', error: shownMessage(error) } as const;
  if (!(await deps.audioJobs.finish(jobId, ended, deps.now().toISOString()))) return;
  const job = await deps.audioJobs.get(jobId);
  if (job) await tellAudioOutcome(deps, job, ended);
}
