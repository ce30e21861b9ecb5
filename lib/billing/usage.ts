import { isStaff, type User, type UserStore } from '../auth/users.ts';
import { newObjectId } from '../ids.ts';
import { calendarMonth, currentPeriod, isActive, type Subscription, type SubscriptionStore } from './subscriptions.ts';
import { tier, type TierCatalogue } from './tiers.ts';

/**
 * Page credits (docs/SPEC.md section 1): usage is counted per billing period; pages come first from the
 * period's tier credits, the rest are invoiced at the overage price. Editors and admins have
 * unlimited credits and are never charged.
 */

/**
 * A job's pages, as recorded on its (first) completion: the usage log of docs/DESIGN.md section 4, one per
 * job. While `pending` it is also the task of invoicing its overage (an outbox in the table): the
 * billing worker takes it from there (invoicing.ts), so no completion waits for the payment provider.
 */
export interface UsageLog {
  /** The idempotency key of every payment-provider call for these pages. */
  usageId: string;
  userId: string;
  jobId: string;
  periodStart: string;
  pages: number;
  freePages: number;
  overagePages: number;
  overageChargeCents: number;
  /** The period's pages used once these are counted. */
  totalPagesUsed: number;
  /** Null for unlimited credits. */
  remainingCredits: number | null;
  paymentStatus: PaymentStatus;
  /** Invoicing attempts made so far. */
  attempts: number;
  /** While `pending`: when the billing worker may (next) try to invoice. */
  nextAttemptAt?: string;
  invoiceId?: string;
  createdAt: string;
  /** When the log left `pending`. */
  settledAt?: string;
}

/**
 * Where the overage invoice stands (docs/SPEC.md 2.4): `not_required` nothing is owed; `pending` the
 * billing worker has yet to invoice it; `invoiced` the provider holds the invoice; `invoice_failed`
 * every attempt failed; `no_customer` the user has no Stripe customer to charge (an alarm tells the
 * operator of either).
 */
export const paymentStatuses = ['not_required', 'pending', 'invoiced', 'invoice_failed', 'no_customer'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

export interface UsageStore {
  /**
   * The job's usage log, recorded now unless it already was. Counting `pages` in the period and
   * writing the log built from the count before them is one transaction, retried on contention: two
   * results racing for the last credits are serialized, so together they never spend more credits
   * than exist; and one job's log is written once, so a repeated or racing completion of the job
   * gets the log already recorded and counts nothing.
   */
  record(
    usage: { userId: string; jobId: string; periodStart: string; pages: number },
    build: (usedBefore: number) => UsageLog,
  ): Promise<UsageLog>;
  forJob(jobId: string): Promise<UsageLog | undefined>;
}

export interface UsageDeps {
  users: UserStore;
  subscriptions: SubscriptionStore;
  usage: UsageStore;
  tierCatalogue: TierCatalogue;
}

/** The response's usageInfo (docs/SPEC.md 2.4, final-result shape). */
export type UsageInfo = Pick<
  UsageLog,
  'freePages' | 'overagePages' | 'overageChargeCents' | 'totalPagesUsed' | 'remainingCredits' | 'paymentStatus'
>;

export const usageInfoOf = ({ freePages, overagePages, overageChargeCents, totalPagesUsed, remainingCredits, paymentStatus }: UsageLog): UsageInfo => ({
  freePages,
  overagePages,
  overageChargeCents,
  totalPagesUsed,
  remainingCredits,
  paymentStatus,
});

/** The upload response's usageInfo (docs/SPEC.md 2.4): a snapshot, null credits meaning unlimited. */
export interface UsageSnapshot {
  remainingCredits: number | null;
  tierCredits: number | null;
  pagesUsed: number;
  billingPeriodEnd: string;
}

/** Free pages are what is left of the credits before this usage; the rest is overage. */
export function splitPages(credits: number | null, usedBefore: number, pages: number) {
  const freePages = credits === null ? pages : Math.min(pages, Math.max(0, credits - usedBefore));
  return { freePages, overagePages: pages - freePages };
}

/** The billing period and monthly credits of a user now: null credits for editors and admins. */
function allowance(user: User, subscription: Subscription | undefined, tierCatalogue: TierCatalogue, now: Date) {
  const period = subscription ? currentPeriod(subscription, now) : calendarMonth(now);
  const credits = isStaff(user) ? null : isActive(subscription) ? tier(tierCatalogue, subscription!.tier).monthlyPageCredits : 0;
  return { period, credits };
}

/** `subscription`: the user's, when the caller has already read it (the upload's subscription gate). */
export async function usageSnapshot(
  deps: Pick<UsageDeps, 'subscriptions' | 'tierCatalogue'>,
  user: User,
  now: Date,
  known?: { subscription: Subscription | undefined },
): Promise<UsageSnapshot> {
  const subscription = known ? known.subscription : await deps.subscriptions.get(user.userId);
  const { period, credits } = allowance(user, subscription, deps.tierCatalogue, now);
  const pagesUsed = await deps.subscriptions.pagesUsed(user.userId, period.start);
  return {
    remainingCredits: credits === null ? null : Math.max(0, credits - pagesUsed),
    tierCredits: credits,
    pagesUsed,
    billingPeriodEnd: period.end,
  };
}

/**
 * Records a completed job's pages against `userId` once per job (docs/SPEC.md 4.1, usage rule): a repeated
 * completion of the job (a retry after a timeout, a duplicate delivery) answers the usage already
 * recorded and counts and charges nothing more. Overage is not invoiced here: the log is committed
 * `pending`, which is the invoicing task, and the billing worker invoices it (invoicing.ts), so the
 * callback answers in bounded time whatever the payment provider does.
 */
export async function recordUsage(deps: UsageDeps, input: { userId: string; jobId: string; pages: number; now: Date }): Promise<UsageInfo> {
  const recorded = await deps.usage.forJob(input.jobId);
  if (recorded) return usageInfoOf(recorded);
  const user = await deps.users.get(input.userId);
  if (!user) throw new Error(`User ${input.userId} not found`);
  const subscription = await deps.subscriptions.get(user.userId);
  const { period, credits } = allowance(user, subscription, deps.tierCatalogue, input.now);
  const createdAt = input.now.toISOString();

  const log = await deps.usage.record({ userId: user.userId, jobId: input.jobId, periodStart: period.start, pages: input.pages }, (usedBefore) => {
    const { freePages, overagePages } = splitPages(credits, usedBefore, input.pages);
    const totalPagesUsed = usedBefore + input.pages;
    return {
      usageId: newObjectId(),
      userId: user.userId,
      jobId: input.jobId,
      periodStart: period.start,
      pages: input.pages,
      freePages,
      overagePages,
      overageChargeCents: overagePages * deps.tierCatalogue.overageCentsPerPage,
      totalPagesUsed,
      remainingCredits: credits === null ? null : Math.max(0, credits - totalPagesUsed),
      attempts: 0,
      createdAt,
      ...(overagePages > 0 ? { paymentStatus: 'pending', nextAttemptAt: createdAt } : { paymentStatus: 'not_required' }),
    };
  });
  return usageInfoOf(log);
}
