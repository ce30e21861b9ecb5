import { customerOf, type Billing, type Invoice, type OverageCharge } from '../../../lib/billing/billing.ts';
import type { InvoiceOutbox, Settlement } from '../../../lib/billing/invoicing.ts';
import type { UsageLog } from '../../../lib/billing/usage.ts';
import type { FakeUsageStore } from './usage-store.ts';

/**
 * Billing in memory: idempotent per usageId and refusing a charge without a customer, as both
 * adapters are; `failing` makes every call throw.
 */
export class FakeBilling implements Billing {
  readonly invoices = new Map<string, { charge: OverageCharge; invoice: Invoice }>();
  calls = 0;
  failing: Error | undefined;

  async invoiceOverage(charge: OverageCharge) {
    this.calls++;
    if (this.failing) throw this.failing;
    customerOf(charge);
    const known = this.invoices.get(charge.usageId);
    if (known) return { ...known.invoice };
    const invoice = { invoiceId: `in_${this.invoices.size + 1}`, status: 'open' };
    this.invoices.set(charge.usageId, { charge: { ...charge }, invoice });
    return { ...invoice };
  }
}

/**
 * InvoiceOutbox over FakeUsageStore's logs (lib/adapters/dynamo/billing-outbox.ts): the pending
 * logs oldest first; claims and settlements conditional on what the worker read.
 */
export class FakeInvoiceOutbox implements InvoiceOutbox {
  constructor(private readonly usage: FakeUsageStore) {}

  async pending(limit: number) {
    return [...this.usage.logs.values()]
      .filter((log) => log.paymentStatus === 'pending')
      .sort((a, b) => (`${a.createdAt}#${a.jobId}` < `${b.createdAt}#${b.jobId}` ? -1 : 1))
      .slice(0, limit)
      .map((log) => structuredClone(log));
  }

  async claim(log: UsageLog, retryAt: string) {
    const stored = this.usage.logs.get(log.jobId);
    if (!stored || stored.paymentStatus !== 'pending' || stored.attempts !== log.attempts) return false;
    stored.attempts = log.attempts + 1;
    stored.nextAttemptAt = retryAt;
    return true;
  }

  async settle(log: UsageLog, outcome: Settlement, at: string) {
    const stored = this.usage.logs.get(log.jobId);
    if (!stored) return false;
    const allowed =
      outcome.paymentStatus === 'invoiced'
        ? stored.paymentStatus === 'pending' || stored.paymentStatus === 'invoice_failed'
        : stored.paymentStatus === 'pending' && stored.attempts === log.attempts;
    if (!allowed) return false;
    stored.paymentStatus = outcome.paymentStatus;
    stored.settledAt = at;
    if (outcome.paymentStatus === 'invoiced') stored.invoiceId = outcome.invoiceId;
    delete stored.nextAttemptAt;
    return true;
  }
}
