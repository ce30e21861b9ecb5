import type { BookStore } from '../books/book.ts';
import { logger } from '../log.ts';
import { looksArabic, tellOutcome } from '../notifications/job-outcomes.ts';
import type { NotifyDeps } from '../notifications/notify.ts';
import { isOpen, type AudioJob } from './audio-job.ts';

export interface AudioOutcomeDeps {
  books: Pick<BookStore, 'get'>;
  /** The starter's inbox and devices (lib/notifications/job-outcomes.ts). */
  inbox: NotifyDeps;
}

/**
 * Tells the job's starter how it ended, once per job and outcome (the notification's id is fixed): called
 * where the job ends, and again wherever a redelivered message finds it ended, so a worker that died
 * between ending the job and telling it is made good. Jobs started before their starter was kept tell no one.
 */
export async function tellAudioOutcome(deps: AudioOutcomeDeps, job: AudioJob, ended: { status: 'completed' } | { status: 'failed'; error: string }) {
  if (!job.startedBy || isOpen(ended.status)) return;
  try {
    const book = await deps.books.get(job.bookId);
    await tellOutcome(deps.inbox, {
      type: ended.status === 'completed' ? 'audio_completed' : 'audio_failed',
      recipientId: job.startedBy,
      jobId: job._id,
      name: book?.title ?? null,
      arabic: looksArabic(book?.title),
      ...(ended.status === 'failed' ? { reason: ended.error } : {}),
      data: { audioJobId: job._id, bookId: job.bookId },
    });
  } catch (error) {
    logger.error('Could not notify an audio job outcome', { jobId: job._id, error: error as Error });
  }
}

/** How an ended job ended, as tellAudioOutcome takes it; undefined while it runs. */
export const endedAs = (job: AudioJob) =>
  job.status === 'completed' ? ({ status: 'completed' } as const) : job.status === 'failed' ? ({ status: 'failed', error: job.error ?? '' } as const) : undefined;
