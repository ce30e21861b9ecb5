import type { CreatorSubscription, Subscription, SubscriptionStore } from '../../../lib/billing/subscriptions.ts';
import { copy } from './copy.ts';
import { UsagePeriods } from './usage-periods.ts';

/** SubscriptionStore in memory (lib/adapters/dynamo/subscriptions.ts); the page counters are shared with FakeUsageStore. */
export class FakeSubscriptionStore implements SubscriptionStore {
  readonly subscriptions = new Map<string, Subscription>();
  readonly creatorSubscriptions = new Map<string, CreatorSubscription>();

  constructor(readonly periods: UsagePeriods = new UsagePeriods()) {}

  private static creatorKey = (userId: string, creatorId: string) => `${userId}\u0000${creatorId}`;

  async get(userId: string) {
    const found = this.subscriptions.get(userId);
    return found && copy(found);
  }

  async put(subscription: Subscription) {
    this.subscriptions.set(subscription.userId, copy(subscription));
  }

  /** The adapter's condition: no newer Stripe event stored, and an ending subscription never replaces another active one. */
  async putIfNewer(subscription: Subscription & { stripeEventCreated: number }) {
    const stored = this.subscriptions.get(subscription.userId);
    const notNewer = stored?.stripeEventCreated === undefined || stored.stripeEventCreated <= subscription.stripeEventCreated;
    const mayReplace =
      subscription.status === 'active' ||
      stored?.stripeSubscriptionId === undefined ||
      stored.stripeSubscriptionId === (subscription.stripeSubscriptionId ?? null) ||
      stored.status !== 'active';
    if (!(notNewer && mayReplace)) return false;
    this.subscriptions.set(subscription.userId, copy(subscription));
    return true;
  }

  async getCreatorSubscription(userId: string, creatorId: string) {
    const found = this.creatorSubscriptions.get(FakeSubscriptionStore.creatorKey(userId, creatorId));
    return found && copy(found);
  }

  async putCreatorSubscription(subscription: CreatorSubscription) {
    this.creatorSubscriptions.set(FakeSubscriptionStore.creatorKey(subscription.userId, subscription.creatorId), copy(subscription));
  }

  async pagesUsed(userId: string, periodStart: string) {
    return this.periods.get(userId, periodStart);
  }

  async setPagesUsed(userId: string, periodStart: string, pages: number) {
    this.periods.set(userId, periodStart, pages);
  }
}
