/** Subscription records (docs/DESIGN.md section 4): a user's platform subscription and creator subscriptions. */
export const subscriptionStatuses = ['active', 'canceled', 'past_due'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

export interface Subscription {
  userId: string;
  /** A tier name of the tier catalogue. */
  tier: string;
  status: SubscriptionStatus;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  stripeSubscriptionId?: string;
  /** `created` (epoch seconds) of the Stripe event last applied: older deliveries must not win. */
  stripeEventCreated?: number;
  updatedAt: string;
}

/** An active subscription of a user to a creator, at one of that creator's tier names. */
export interface CreatorSubscription {
  userId: string;
  creatorId: string;
  tier: string;
  status: SubscriptionStatus;
  updatedAt: string;
}

export interface SubscriptionStore {
  get(userId: string): Promise<Subscription | undefined>;
  put(subscription: Subscription): Promise<void>;
  /**
   * Writes the subscription unless the stored one came from a newer Stripe event (Stripe delivers
   * out of order). Returns false, writing nothing, when the stored event is newer.
   */
  putIfNewer(subscription: Subscription & { stripeEventCreated: number }): Promise<boolean>;
  getCreatorSubscription(userId: string, creatorId: string): Promise<CreatorSubscription | undefined>;
  putCreatorSubscription(subscription: CreatorSubscription): Promise<void>;
  /** Pages used in the period starting at `periodStart`. */
  pagesUsed(userId: string, periodStart: string): Promise<number>;
  setPagesUsed(userId: string, periodStart: string, pages: number): Promise<void>;
}

export const isActive = (s: { status: SubscriptionStatus } | undefined): boolean => s?.status === 'active';

const addMonths = (date: Date, months: number) => {
  const d = new Date(date);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d;
};

/** The calendar month containing `now` (UTC): the period of subscriptions made without Stripe. */
export function calendarMonth(now: Date): { start: string; end: string } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return { start: start.toISOString(), end: addMonths(start, 1).toISOString() };
}

/**
 * The billing period containing `now`. Stripe renews periods on AWS; where no renewal has been
 * recorded (the local runtime), an active subscription rolls forward a month at a time.
 */
export function currentPeriod(s: Pick<Subscription, 'currentPeriodStart' | 'currentPeriodEnd'>, now: Date) {
  let start = new Date(s.currentPeriodStart);
  let end = new Date(s.currentPeriodEnd);
  while (end <= now) {
    start = end;
    end = addMonths(end, 1);
  }
  return { start: start.toISOString(), end: end.toISOString() };
}
