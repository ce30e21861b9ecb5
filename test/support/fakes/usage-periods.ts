/**
 * The per-user, per-period page counters. One record in the table serves both ports (the
 * SubscriptionStore's `pagesUsed` and the UsageStore's `record`), so their fakes share one of these.
 */
export class UsagePeriods {
  readonly counts = new Map<string, number>();

  private static key = (userId: string, periodStart: string) => `${userId}\u0000${periodStart}`;

  get(userId: string, periodStart: string): number {
    return this.counts.get(UsagePeriods.key(userId, periodStart)) ?? 0;
  }

  set(userId: string, periodStart: string, pages: number): void {
    this.counts.set(UsagePeriods.key(userId, periodStart), pages);
  }
}
