import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { longestChargeMs } from '../lib/adapters/billing/stripe.ts';
import { dynamoInvoiceOutbox } from '../lib/adapters/dynamo/billing-outbox.ts';
import { dynamoOcrJobStore } from '../lib/adapters/dynamo/ocr-jobs.ts';
import { invoicePending, type InvoicingDeps, type InvoicingReport } from '../lib/billing/invoicing.ts';
import { usageInfoOf } from '../lib/billing/usage.ts';
import { once } from '../lib/lazy.ts';
import { deps as coreDeps } from './deps.ts';
import { count, metricNames, observed, seconds } from './observability.ts';
import { billingAdapter } from './adapters/billing.ts';

/**
 * `billing-worker`: invoices the overage of completed OCR jobs off the request path (issue 12). Run
 * every minute by a schedule (infra/stack.ts; locally by `npm start`), it takes the pending usage
 * logs the completions committed (the outbox) and invoices each with its usageId as the idempotency
 * key, retrying with backoff until settled (lib/billing/invoicing.ts).
 */
export const billingWorkerDeps = once((): InvoicingDeps => {
  const core = coreDeps();
  const ocrJobs = dynamoOcrJobStore(core.db);
  return {
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
export const runBillingWorker = (deps: InvoicingDeps, context: Pick<Context, 'getRemainingTimeInMillis'>) =>
  invoicePending(deps, { now: () => new Date(), hasTime: () => context.getRemainingTimeInMillis() > attemptMarginMs });

export const handler = middy<ScheduledEvent, InvoicingReport>()
  .use(observed('billing-worker'))
  .handler(async (_event, context) => {
    const report = await runBillingWorker(billingWorkerDeps(), context);
    // Every run reports the oldest wait, 0 included: a run that reports nothing is itself alarmed (infra/monitoring.ts).
    seconds(metricNames.oldestPendingInvoice, report.oldestPendingSeconds);
    count(metricNames.overageInvoiced, report.invoiced);
    count(metricNames.overageInvoicesFailed, report.failed);
    count(metricNames.overageWithoutCustomer, report.withoutCustomer);
    return report;
  });
