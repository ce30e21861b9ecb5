import type { UsageLog, UsageStore } from '../../../lib/billing/usage.ts';
import { copy } from './copy.ts';
import { UsagePeriods } from './usage-periods.ts';

/**
 * UsageStore in memory (lib/adapters/dynamo/usage.ts): one log per job; recording counts the pages
 * in the period and writes the log together, and a job already logged gets its log back, counting
 * nothing. JavaScript runs each `record` to its end without interleaving, as the transaction does.
 */
export class FakeUsageStore implements UsageStore {
  readonly logs = new Map<string, UsageLog>();

  constructor(readonly periods: UsagePeriods = new UsagePeriods()) {}

  async record(usage: { userId: string; jobId: string; periodStart: string; pages: number }, build: (usedBefore: number) => UsageLog) {
    const recorded = this.logs.get(usage.jobId);
    if (recorded) return copy(recorded);
    const usedBefore = this.periods.get(usage.userId, usage.periodStart);
    const log = build(usedBefore);
    this.periods.set(usage.userId, usage.periodStart, usedBefore + usage.pages);
    this.logs.set(usage.jobId, copy(log));
    return copy(log);
  }

  async forJob(jobId: string) {
    const found = this.logs.get(jobId);
    return found && copy(found);
  }
}
