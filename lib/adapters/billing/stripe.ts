import Stripe from 'stripe';
import { customerOf, type Billing, type Customers } from '../../billing/billing.ts';

const timeoutMs = 5_000;
/** Stripe's SDK retries itself, not by lib/retry.ts: it knows which answers are safe to repeat and reuses the idempotency key. */
const maxNetworkRetries = 2;
/** The SDK's longest wait between two tries of a request. */
const maxRetryDelayMs = 5_000;

/** The longest one overage charge can take: three calls, each tried up to three times. */
export const longestChargeMs = 3 * ((maxNetworkRetries + 1) * timeoutMs + maxNetworkRetries * maxRetryDelayMs);

/**
 * The API version is the one stripe@23.1.0 pins (package.json pins the SDK exactly), so request
 * and response shapes change only with a deliberate upgrade. Retries reuse the idempotency keys.
 */
export function stripeClient(secretKey: string): Stripe {
  return new Stripe(secretKey, { maxNetworkRetries, timeout: timeoutMs });
}

/**
 * Overage invoices at Stripe: a draft invoice of its own per usage record (other pending items of
 * the customer stay out of it), one invoice item for the amount, then finalized so Stripe collects
 * it. Every call carries an idempotency key derived from the usageId, so a retried charge returns
 * the first invoice instead of making a second one (Stripe keeps keys for at least 24 hours; the
 * billing worker's retries end well within that, lib/billing/invoicing.ts).
 */
export function stripeBilling(stripe: Stripe): Billing {
  return {
    async invoiceOverage(charge) {
      const { usageId, userId, jobId } = charge;
      const customerId = customerOf(charge);
      const metadata = { userId, jobId, usageId };
      const draft = await stripe.invoices.create(
        {
          customer: customerId,
          currency: 'usd',
          pending_invoice_items_behavior: 'exclude',
          collection_method: 'charge_automatically',
          // The draft waits for its item: with auto_advance Stripe would finalize it by itself about an hour
          // later, empty when an attempt died before adding the item. Finalizing turns it on (below).
          auto_advance: false,
          description: charge.description,
          metadata,
        },
        { idempotencyKey: `${usageId}:invoice` },
      );
      await stripe.invoiceItems.create(
        {
          customer: customerId,
          invoice: draft.id,
          amount: charge.amountCents,
          currency: 'usd',
          description: charge.description,
          metadata,
        },
        { idempotencyKey: `${usageId}:item` },
      );
      // auto_advance: Stripe collects the finalized invoice (payment, retries, reminders) by itself.
      const invoice = await stripe.invoices.finalizeInvoice(draft.id, { auto_advance: true }, { idempotencyKey: `${usageId}:finalize` });
      return { invoiceId: invoice.id, status: invoice.status ?? 'open' };
    },
  };
}

/** Stripe's customers carry the user id they were made for in `metadata.userId`. */
export const stripeCustomers = (stripe: Stripe): Customers => ({
  async userIdOf(customerId) {
    const customer = await stripe.customers.retrieve(customerId);
    return customer.deleted ? undefined : customer.metadata.userId;
  },
});
