import { isStaff, type User, type UserStore } from '../auth/users.ts';
import { newObjectId } from '../ids.ts';
import { logger } from '../log.ts';
import type { Billing } from './billing.ts';
import { calendarMonth, currentPeriod, isActive, type Subscription, type SubscriptionStore } from './subscriptions.ts';
import { tier, type TierCatalogue } from './tiers.ts';

/**
 * Page credits (SPEC.md section 1): usage is counted per billing period; pages come first from the
 * period's tier credits, the rest are invoiced at the overage price. Editors and admins have
 * unlimited credits and are never charged.
 */

/** One completed result's pages, as recorded: the usage log record of DESIGN.md section 4. */
export interface UsageLog {
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
  invoiceId?: string;
  invoiceError?: string;
  createdAt: string;
}

/** `not_required`: nothing owed; `invoiced`: the provider holds an invoice; `invoice_failed`: counted, not yet invoiced. */
export type PaymentStatus = 'not_required' | 'pending' | 'invoiced' | 'invoice_failed';

export interface UsageStore {
  /**
   * Counts `pages` in the period and writes the log built from the count before them, in one
   * transaction retried on contention: two results racing for the last credits are serialized, so
   * together they never spend more credits than exist.
   */
  record(userId: string, periodStart: string, pages: number, build: (usedBefore: number) => UsageLog): Promise<UsageLog>;
  /** Writes the invoicing outcome onto the log. */
  settle(log: UsageLog): Promise<void>;
}

export interface UsageDeps {
  users: UserStore;
  subscriptions: SubscriptionStore;
  usage: UsageStore;
  billing: () => Promise<Billing>;
  catalogue: TierCatalogue;
}

/** The response's usageInfo (SPEC.md 2.4, final-result shape). */
export type UsageInfo = Pick<
  UsageLog,
  'freePages' | 'overagePages' | 'overageChargeCents' | 'totalPagesUsed' | 'remainingCredits' | 'paymentStatus'
>;

/** The upload response's usageInfo (SPEC.md 2.4): a snapshot, null credits meaning unlimited. */
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
function allowance(user: User, subscription: Subscription | undefined, catalogue: TierCatalogue, now: Date) {
  const period = subscription ? currentPeriod(subscription, now) : calendarMonth(now);
  const credits = isStaff(user) ? null : isActive(subscription) ? tier(catalogue, subscription!.tier).monthlyPageCredits : 0;
  return { period, credits };
}

/** `subscription`: the user's, when the caller has already read it (the upload's subscription gate). */
export async function usageSnapshot(
  deps: Pick<UsageDeps, 'subscriptions' | 'catalogue'>,
  user: User,
  now: Date,
  known?: { subscription: Subscription | undefined },
): Promise<UsageSnapshot> {
  const subscription = known ? known.subscription : await deps.subscriptions.get(user.userId);
  const { period, credits } = allowance(user, subscription, deps.catalogue, now);
  const pagesUsed = await deps.subscriptions.pagesUsed(user.userId, period.start);
  return {
    remainingCredits: credits === null ? null : Math.max(0, credits - pagesUsed),
    tierCredits: credits,
    pagesUsed,
    billingPeriodEnd: period.end,
  };
}

/**
 * Records a completed result's pages against `userId` and invoices any overage. The usage is
 * committed before the provider is called: if invoicing fails the pages stay counted, the log says
 * `invoice_failed`, and retrying with the same usageId cannot invoice twice.
 */
export async function recordUsage(deps: UsageDeps, input: { userId: string; jobId: string; pages: number; now: Date }): Promise<UsageInfo> {
  const user = await deps.users.get(input.userId);
  if (!user) throw new Error(`User ${input.userId} not found`);
  const subscription = await deps.subscriptions.get(user.userId);
  const { period, credits } = allowance(user, subscription, deps.catalogue, input.now);
  const usageId = newObjectId();
  const createdAt = input.now.toISOString();

  const log = await deps.usage.record(user.userId, period.start, input.pages, (usedBefore) => {
    const { freePages, overagePages } = splitPages(credits, usedBefore, input.pages);
    const totalPagesUsed = usedBefore + input.pages;
    return {
      usageId,
      userId: user.userId,
      jobId: input.jobId,
      periodStart: period.start,
      pages: input.pages,
      freePages,
      overagePages,
      overageChargeCents: overagePages * deps.catalogue.overageCentsPerPage,
      totalPagesUsed,
      remainingCredits: credits === null ? null : Math.max(0, credits - totalPagesUsed),
      paymentStatus: overagePages > 0 ? 'pending' : 'not_required',
      createdAt,
    };
  });

  if (log.overagePages > 0) {
    try {
      const billing = await deps.billing();
      const invoice = await billing.invoiceOverage({
        usageId,
        userId: user.userId,
        customerId: user.stripeCustomerId,
        jobId: input.jobId,
        pages: log.overagePages,
        amountCents: log.overageChargeCents,
        description: `OCR: ${log.overagePages} pages beyond the monthly credits (job ${input.jobId})`,
        createdAt,
      });
      log.paymentStatus = 'invoiced';
      log.invoiceId = invoice.invoiceId;
    } catch (error) {
      logger.error('Invoicing overage failed', { usageId, userId: user.userId, error: error as Error });
      log.paymentStatus = 'invoice_failed';
      log.invoiceError = error instanceof Error ? error.message : String(error);
    }
    await deps.usage.settle(log);
  }

  const { freePages, overagePages, overageChargeCents, totalPagesUsed, remainingCredits, paymentStatus } = log;
  return { freePages, overagePages, overageChargeCents, totalPagesUsed, remainingCredits, paymentStatus };
}
