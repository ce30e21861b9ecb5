import { logger } from './log.ts';

/**
 * The sweeper's walk over a list of open jobs (OCR: lib/ocr/jobs/stalled.ts, audio: lib/audio/stalled.ts),
 * one batch at a time, oldest first: what each visit did, counted. One job's trouble (a send refused)
 * does not hold up the others; it is looked at again by the next sweep.
 */
export type StallOutcome = 'requeued' | 'failed' | 'passed';

const sweepBatch = 25;

/** A sweep's clock: `at` is now, `before` the time a job that has not moved since is stalled. */
export interface StallTimes {
  at: string;
  before: string;
}

export async function sweepOpenJobs<J>(
  what: string,
  now: Date,
  stallMinutes: number,
  list: (before: string, limit: number) => Promise<J[]>,
  visit: (job: J, times: StallTimes) => Promise<StallOutcome>,
  idOf: (job: J) => string,
  rounds = 10,
): Promise<{ requeued: number; failed: number }> {
  const times = { at: now.toISOString(), before: new Date(now.getTime() - stallMinutes * 60_000).toISOString() };
  let requeued = 0;
  let failed = 0;
  for (let round = 0; round < rounds; round++) {
    const open = await list(times.before, sweepBatch);
    for (const job of open) {
      const outcome = await visit(job, times).catch((error: unknown) => {
        logger.error(`Looking after a stalled ${what} failed`, { jobId: idOf(job), error: error as Error });
        return 'passed' as const;
      });
      if (outcome === 'requeued') requeued++;
      if (outcome === 'failed') failed++;
    }
    if (open.length < sweepBatch) break;
  }
  if (requeued || failed) logger.warn(`Stalled ${what}s`, { requeued, failed });
  return { requeued, failed };
}

/** What a visit can do to an open job's entry; `giveUp` and `requeue` answer false when another sweep or the job itself got there first. */
export interface StallActions {
  close(): Promise<void>;
  seenMoving(): Promise<void>;
  giveUp(): Promise<boolean>;
  requeue(): Promise<boolean>;
}

/**
 * One visit's rule, for either kind of job: an ended job leaves the list; one that moved since
 * `before` is noted as moving; one stalled is given up after `maxRequeues` requeues, else requeued.
 */
export async function visitOpenJob(
  job: { open: boolean; movedAt: string; requeues?: number },
  rule: { before: string; maxRequeues: number },
  act: StallActions,
): Promise<StallOutcome> {
  if (!job.open) {
    await act.close();
    return 'passed';
  }
  if (job.movedAt >= rule.before) {
    await act.seenMoving();
    return 'passed';
  }
  if ((job.requeues ?? 0) >= rule.maxRequeues) return (await act.giveUp()) ? 'failed' : 'passed';
  return (await act.requeue()) ? 'requeued' : 'passed';
}

/** The later of two ISO timestamps: when a job last moved, by its own writes or a requeue. */
export const later = (a: string, b: string | undefined): string => (b !== undefined && b > a ? b : a);
