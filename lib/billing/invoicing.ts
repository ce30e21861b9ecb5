import type { UserStore } from '../auth/users.ts';
import { logger } from '../log.ts';
import { NoCustomerError, type Billing, type OverageCharge } from './billing.ts';
import type { UsageLog } from './usage.ts';

/**
 * The billing worker's rules: it invoices the overage of `pending` usage logs (the outbox the
 * completions commit, usage.ts), off the request path, retrying with backoff until each is settled.
 * Every provider call carries the log's usageId as its idempotency key, so an attempt that died
 * half-way (the draft invoice made, the function gone) is finished, never repeated, by the next.
 * Not a lib/retry.ts policy: the attempts are minutes apart, across runs, so the schedule is
 * persisted with each log (its outbox), not waited out in one process.
 */
export const invoicingSchedule = {
  /**
   * Attempts per log; the last failure settles it `invoice_failed`, or `no_customer` when the user
   * had no Stripe customer even then (one may arrive while the attempts last: the webhook stores it
   * just after the subscription it came with).
   */
  maxAttempts: 8,
  /**
   * The wait after attempt `n` before the next: 1, 2, 4, ... minutes, at most an hour. All eight
   * attempts fall within about two hours, far inside the 24 hours Stripe keeps idempotency keys.
   */
  retryDelayMs: (attempt: number): number => Math.min(60, 2 ** (attempt - 1)) * 60_000,
  /** Logs read per run, oldest first (a bounded read however many wait). */
  batchSize: 100,
  /** A log pending longer than this raises the operator's alarm (infra/monitoring.ts). */
  oldestPendingAlarmSeconds: 3600,
} as const;

export type Settlement =
  | { paymentStatus: 'invoiced'; invoiceId: string }
  | { paymentStatus: 'invoice_failed' }
  | { paymentStatus: 'no_customer' };

/** The pending usage logs, as the billing worker sees them (lib/adapters/dynamo/billing-outbox.ts). */
export interface InvoiceOutbox {
  /** Pending logs, oldest first, at most `limit`. */
  pending(limit: number): Promise<UsageLog[]>;
  /**
   * Records attempt `log.attempts + 1` and schedules the next at `retryAt`, in case this one never
   * settles (the function dies): false, writing nothing, when another run took that attempt first.
   */
  claim(log: UsageLog, retryAt: string): Promise<boolean>;
  /** Writes the outcome and takes the log out of the pending list; false when it was settled already. */
  settle(log: UsageLog, outcome: Settlement, at: string): Promise<boolean>;
}

export interface InvoicingDeps {
  outbox: InvoiceOutbox;
  users: UserStore;
  billing: () => Promise<Billing>;
  /** Told of each settled log, so that the job's record can show where its invoice stands. */
  settled?: (log: UsageLog) => Promise<void>;
}

export interface InvoicingRun {
  now: () => Date;
  /** False once the run should start no further attempt (its time is nearly up). */
  hasTime: () => boolean;
}

export interface InvoicingReport {
  invoiced: number;
  failed: number;
  /** Logs settled `no_customer`: overage owed by a user with no Stripe customer to charge. */
  withoutCustomer: number;
  /** Attempts that failed and will be retried. */
  retrying: number;
  /** Age of the oldest pending log at the start of the run; 0 when none waits. */
  oldestPendingSeconds: number;
}

type Outcome = 'invoiced' | 'failed' | 'withoutCustomer' | 'retrying' | 'taken';

const chargeOf = (log: UsageLog, customerId: string | undefined): OverageCharge => ({
  usageId: log.usageId,
  userId: log.userId,
  customerId,
  jobId: log.jobId,
  pages: log.overagePages,
  amountCents: log.overageChargeCents,
  description: `OCR: ${log.overagePages} pages beyond the monthly credits (job ${log.jobId})`,
  createdAt: log.createdAt,
});

async function settle(deps: InvoicingDeps, log: UsageLog, outcome: Settlement, at: Date): Promise<void> {
  if (!(await deps.outbox.settle(log, outcome, at.toISOString()))) return;
  const { nextAttemptAt: _, ...rest } = log;
  await deps.settled?.({ ...rest, ...outcome, settledAt: at.toISOString() }).catch((error: unknown) => {
    logger.error('Billing worker: showing the settled invoice on the job failed', { jobId: log.jobId, error: error as Error });
  });
}

async function attempt(deps: InvoicingDeps, log: UsageLog, now: Date): Promise<Outcome> {
  const { maxAttempts, retryDelayMs } = invoicingSchedule;
  // The last attempt was taken and never settled (its run died): nothing further is tried.
  if (log.attempts >= maxAttempts) {
    await settle(deps, log, { paymentStatus: 'invoice_failed' }, now);
    return 'failed';
  }
  const attempts = log.attempts + 1;
  if (!(await deps.outbox.claim(log, new Date(now.getTime() + retryDelayMs(attempts)).toISOString()))) return 'taken';
  const taken = { ...log, attempts };
  try {
    const user = await deps.users.get(log.userId);
    const invoice = await (await deps.billing()).invoiceOverage(chargeOf(log, user?.stripeCustomerId));
    await settle(deps, taken, { paymentStatus: 'invoiced', invoiceId: invoice.invoiceId }, now);
    return 'invoiced';
  } catch (error) {
    // Provider text stays in the log; the usage log records only where the invoice stands.
    logger.error('Billing worker: invoicing failed', { usageId: log.usageId, jobId: log.jobId, attempts, error: error as Error });
    if (attempts < maxAttempts) return 'retrying';
    if (error instanceof NoCustomerError) {
      await settle(deps, taken, { paymentStatus: 'no_customer' }, now);
      return 'withoutCustomer';
    }
    await settle(deps, taken, { paymentStatus: 'invoice_failed' }, now);
    return 'failed';
  }
}

/** One run of the billing worker: every due pending log, oldest first, while the run has time. */
export async function invoicePending(deps: InvoicingDeps, run: InvoicingRun): Promise<InvoicingReport> {
  const pending = await deps.outbox.pending(invoicingSchedule.batchSize);
  const started = run.now().getTime();
  const report: InvoicingReport = {
    invoiced: 0,
    failed: 0,
    withoutCustomer: 0,
    retrying: 0,
    oldestPendingSeconds: pending[0] ? Math.max(0, Math.floor((started - Date.parse(pending[0].createdAt)) / 1000)) : 0,
  };
  for (const log of pending) {
    if (!run.hasTime()) break;
    const now = run.now();
    if (log.nextAttemptAt && Date.parse(log.nextAttemptAt) > now.getTime()) continue;
    const outcome = await attempt(deps, log, now);
    if (outcome !== 'taken') report[outcome]++;
  }
  return report;
}
