import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { longestChargeMs } from '../../lib/adapters/billing/stripe.ts';
import { dynamoInvoiceOutbox } from '../../lib/adapters/dynamo/billing-outbox.ts';
import { dynamoOcrJobStore } from '../../lib/adapters/dynamo/ocr-jobs.ts';
import { dynamoOwedUsageStore } from '../../lib/adapters/dynamo/owed-usage.ts';
import { dynamoUsageStore } from '../../lib/adapters/dynamo/usage.ts';
import { invoicePending, type InvoicingDeps, type InvoicingReport } from '../../lib/billing/invoicing.ts';
import { billOwedUsage, type OwedUsageDeps, type OwedUsageReport } from '../../lib/billing/owed-usage.ts';
import { usageInfoOf } from '../../lib/billing/usage.ts';
import { once } from '../../lib/lazy.ts';
import { logger } from '../../lib/log.ts';
import { deps as coreDeps } from '../_shared/deps.ts';
import { count, metricNames, observed, seconds } from '../_shared/observability.ts';
import { billingAdapter } from '../_shared/adapters/billing.ts';

/**
 * `billing-worker`: invoices the overage of completed OCR jobs off the request path (issue 12). Run
 * every minute by a schedule (infra/stack.ts; locally by `npm start`), it first records the usage of
 * completions whose callback could not (owed usage, issue 29: lib/billing/owed-usage.ts), then takes
 * the pending usage logs the completions committed (the outbox) and invoices each with its usageId
 * as the idempotency key, retrying with backoff until settled (lib/billing/invoicing.ts).
 */
export type BillingWorkerDeps = InvoicingDeps & OwedUsageDeps;
/** `owed`: absent when the owed usage could not be read this run. */
export type BillingWorkerReport = InvoicingReport & { owed?: OwedUsageReport };

export const billingWorkerDeps = once((): BillingWorkerDeps => {
  const core = coreDeps();
  const ocrJobs = dynamoOcrJobStore(core.db);
  return {
    ocrJobs,
    owedUsage: dynamoOwedUsageStore(core.db),
    usage: dynamoUsageStore(core.db),
    subscriptions: core.subscriptions,
    tierCatalogue: core.tierCatalogue,
    outbox: dynamoInvoiceOutbox(core.db),
    users: core.users,
    billing: billingAdapter,
    // The job's record shows where its invoice stands (metadata.usageInfo.paymentStatus).
    async settled(log) {
      const bookText = await ocrJobs.byJobId(log.jobId);
      if (bookText) await ocrJobs.setUsage(bookText.bookTextId, { usageInfo: { ...usageInfoOf(log) } }, log.settledAt ?? new Date().toISOString());
    },
  };
});

/** No attempt starts unless the slowest charge would still end before the function's timeout. */
export const attemptMarginMs = longestChargeMs + 15_000;

/** One run over given deps: the Lambda handler's work, which the local runtime and tests call too. */
export async function runBillingWorker(deps: BillingWorkerDeps, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<BillingWorkerReport> {
  const run = { now: () => new Date(), hasTime: () => context.getRemainingTimeInMillis() > attemptMarginMs };
  // Owed usage first: the overage it records is then invoiced in the same run.
  const owed = await billOwedUsage(deps, run).catch((error: unknown) => {
    // Invoicing goes on; the owed usage's missing report raises its alarm (infra/monitoring.ts).
    logger.error('Billing worker: billing owed usage failed', { error: error as Error });
    return undefined;
  });
  return { ...(await invoicePending(deps, run)), owed };
}

export const handler = middy<ScheduledEvent, BillingWorkerReport>()
  .use(observed('billing-worker'))
  .handler(async (_event, context) => {
    const report = await runBillingWorker(billingWorkerDeps(), context);
    // As for invoices: every run reports the oldest owed usage, 0 included (infra/monitoring.ts).
    if (report.owed) {
      seconds(metricNames.oldestOwedUsage, report.owed.oldestOwedSeconds);
      count(metricNames.owedUsageBilled, report.owed.billed);
    }
    // Every run reports the oldest wait, 0 included: a run that reports nothing is itself alarmed (infra/monitoring.ts).
    seconds(metricNames.oldestPendingInvoice, report.oldestPendingSeconds);
    count(metricNames.overageInvoiced, report.invoiced);
    count(metricNames.overageInvoicesFailed, report.failed);
    count(metricNames.overageWithoutCustomer, report.withoutCustomer);
    return report;
  });
