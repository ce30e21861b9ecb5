import { logger } from '../log.ts';
import type { OcrJobStore } from '../ocr/jobs/store.ts';
import { recordUsage, type UsageDeps, type UsageInfo } from './usage.ts';

/**
 * A completion's usage, owed until its usage log is recorded (issue 29). Recording usage needs reads
 * (the user, the subscription, the period's count, retried on contention) that cannot share the
 * status write's transaction, so the completion commits this marker with its status instead; the
 * callback then records the usage and settles the marker, and whatever it could not finish the
 * billing worker does (`billOwedUsage`). Usage is recorded once per job (usage.ts), so settling a
 * marker twice, or racing the callback, charges nothing twice.
 */
export interface OwedUsage {
  jobId: string;
  bookTextId: string;
  /** Whom the usage is recorded against: the result's userId (docs/SPEC.md 4.1 usage rule). */
  userId: string;
  pages: number;
  /** When the job was (first) completed: the usage is counted in that moment's billing period. */
  since: string;
}

/** The owed usages, oldest first (lib/adapters/dynamo/owed-usage.ts: a sparse index, never a Scan). */
export interface OwedUsageStore {
  oldest(limit: number): Promise<OwedUsage[]>;
  /** Takes the job's marker off the list, once its usage log exists. */
  settle(jobId: string): Promise<void>;
}

export const owedUsageSchedule = {
  /** Markers read per run, oldest first (a bounded read however many are owed). */
  batchSize: 100,
  /** A marker younger than this is left to its callback, which is normally still recording it. */
  graceMs: 60_000,
  /** A marker owed longer than this raises the operator's alarm (infra/monitoring.ts). */
  oldestOwedAlarmSeconds: 3600,
} as const;

export interface OwedUsageDeps extends UsageDeps {
  owedUsage: OwedUsageStore;
  ocrJobs: Pick<OcrJobStore, 'setUsage'>;
}

export interface OwedUsageReport {
  /** Markers settled: their usage recorded now, or found already recorded. */
  billed: number;
  /** Markers whose usage could not be recorded this run (they stay owed). */
  failed: number;
  /** Age of the oldest marker at the start of the run; 0 when none is owed. */
  oldestOwedSeconds: number;
}

/**
 * Records the usage of an owed completion, shows it on the job, and settles the marker. Throws when
 * the usage could not be recorded (the marker stays); a failure to show or settle is only logged,
 * as the usage is counted and a later settlement counts nothing.
 */
export async function settleOwed(deps: OwedUsageDeps, owed: OwedUsage, at: string): Promise<UsageInfo> {
  const usageInfo = await recordUsage(deps, { userId: owed.userId, jobId: owed.jobId, pages: owed.pages, now: new Date(owed.since) });
  await deps.ocrJobs.setUsage(owed.bookTextId, { usageInfo: { ...usageInfo } }, at).catch((error: unknown) => {
    logger.error('Storing usageInfo failed', { jobId: owed.jobId, error: error as Error });
  });
  await deps.owedUsage.settle(owed.jobId).catch((error: unknown) => {
    logger.error('Settling owed usage failed; the billing worker settles it', { jobId: owed.jobId, error: error as Error });
  });
  return usageInfo;
}

/** One reconciling run: every owed usage past its grace, oldest first, while the run has time. */
export async function billOwedUsage(deps: OwedUsageDeps, run: { now: () => Date; hasTime: () => boolean }): Promise<OwedUsageReport> {
  const owed = await deps.owedUsage.oldest(owedUsageSchedule.batchSize);
  const started = run.now().getTime();
  const report: OwedUsageReport = {
    billed: 0,
    failed: 0,
    oldestOwedSeconds: owed[0] ? Math.max(0, Math.floor((started - Date.parse(owed[0].since)) / 1000)) : 0,
  };
  for (const item of owed) {
    if (!run.hasTime() || Date.parse(item.since) > started - owedUsageSchedule.graceMs) break;
    try {
      await settleOwed(deps, item, run.now().toISOString());
      report.billed++;
    } catch (error) {
      // It stays owed: the next run tries again, and the alarm tells the operator if it never succeeds.
      logger.error('Billing owed usage failed', { jobId: item.jobId, userId: item.userId, error: error as Error });
      report.failed++;
    }
  }
  return report;
}
