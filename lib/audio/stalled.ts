import { logger } from '../log.ts';
import type { Queue } from '../queue.ts';
import { later, sweepOpenJobs, visitOpenJob, type StallOutcome, type StallTimes } from '../stalled-jobs.ts';
import { isOpen, type AudioJob } from './audio-job.ts';
import type { AudioJobMessage } from './jobs.ts';
import { tellAudioOutcome, type AudioOutcomeDeps } from './outcome.ts';

/**
 * Stalled audio jobs (issue 29): a job accepted (200) whose plan or chunk messages were lost (a local
 * queue lost with a crash) or dead-lettered after the queue's last try (an outage longer than its
 * redeliveries) stays pending or in progress for good. The sweeper finds the open jobs that have not
 * moved for `audioStallMinutes` and sends their plan again, which sends only the chunks not yet
 * counted (lib/audio/jobs.ts). A worker still on a chunk is not harmed: a chunk is counted once however
 * often it runs, and its lines already spoken are found cached.
 */

/**
 * Minutes without progress (a chunk counted) before a job is planned again: twice the audio queue's
 * visibility timeout (6 × the worker's 300 s = 30 minutes, infra/functions.ts), so a chunk whose worker
 * died comes back from its queue first. The sweeper runs hourly: a stalled job is sent again one to
 * two hours after it last moved.
 */
export const audioStallMinutes = 60;

/** Requeues before the sweeper fails a job that never moves again (about six hours). */
export const maxAudioRequeues = 5;

export const audioJobStalled = 'Audio generation stopped making progress and was given up after several attempts';

export interface StalledAudioJobStore {
  /** Open jobs last seen moving before `before`, oldest first, at most `limit`. */
  openBefore(before: string, limit: number): Promise<AudioJob[]>;
  /** The job ended (by older code that left it listed): it leaves the list. */
  close(job: AudioJob): Promise<void>;
  /** The job moved at `movedAt`: it is listed from then. */
  seenMoving(job: AudioJob, movedAt: string): Promise<void>;
  /** Counts a requeue on condition that the job is still open, unmoved since read and at the requeue count read; false otherwise. */
  takeRequeue(job: AudioJob, at: string): Promise<boolean>;
  /** Fails the job with `error`, on the same condition; false otherwise. */
  giveUp(job: AudioJob, error: string, at: string): Promise<boolean>;
}

export interface StalledAudioDeps extends AudioOutcomeDeps {
  stalledAudioJobs: StalledAudioJobStore;
  audioQueue: Queue;
}

/** One sweep over the open audio jobs: each stalled one is planned again, or failed after `maxAudioRequeues`. */
export async function requeueStalledAudioJobs(deps: StalledAudioDeps, now: Date, rounds = 10) {
  const list = (before: string, limit: number) => deps.stalledAudioJobs.openBefore(before, limit);
  return sweepOpenJobs('audio job', now, audioStallMinutes, list, (job, times) => visit(deps, job, times), (job) => job._id, rounds);
}

async function visit(deps: StalledAudioDeps, job: AudioJob, { before, at }: StallTimes): Promise<StallOutcome> {
  const store = deps.stalledAudioJobs;
  const movedAt = later(job.updatedAt, job.requeuedAt);
  return visitOpenJob({ open: isOpen(job.status), movedAt, requeues: job.requeues }, { before, maxRequeues: maxAudioRequeues }, {
    close: () => store.close(job),
    seenMoving: () => store.seenMoving(job, movedAt),
    async giveUp() {
      if (!(await store.giveUp(job, audioJobStalled, at))) return false;
      logger.error('Gave up a stalled audio job', { jobId: job._id, requeues: job.requeues });
      await tellAudioOutcome(deps, job, { status: 'failed', error: audioJobStalled });
      return true;
    },
    async requeue() {
      if (!(await store.takeRequeue(job, at))) return false;
      // A failed send leaves the requeue counted: the job is stalled again an interval later and sent then.
      await deps.audioQueue.send({ kind: 'plan', jobId: job._id } satisfies AudioJobMessage);
      logger.info('Planned a stalled audio job again', { jobId: job._id, requeues: (job.requeues ?? 0) + 1, lastMoved: movedAt });
      return true;
    },
  });
}
