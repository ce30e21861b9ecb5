import type { OwedUsage, OwedUsageStore } from '../../../lib/billing/owed-usage.ts';
import { copy } from './copy.ts';

/**
 * OwedUsageStore in memory (lib/adapters/dynamo/owed-usage.ts): one marker per job, oldest first.
 * FakeOcrStores owes a completion's usage here in the same step as its status (the adapter's
 * transaction); a marker owed again keeps its first `since`.
 */
export class FakeOwedUsage implements OwedUsageStore {
  readonly markers = new Map<string, OwedUsage>();

  owe(owed: OwedUsage): void {
    const since = this.markers.get(owed.jobId)?.since ?? owed.since;
    this.markers.set(owed.jobId, { ...copy(owed), since });
  }

  async oldest(limit: number) {
    return [...this.markers.values()].sort((a, b) => (a.since === b.since ? 0 : a.since < b.since ? -1 : 1)).slice(0, limit).map(copy);
  }

  async settle(jobId: string) {
    this.markers.delete(jobId);
  }
}
