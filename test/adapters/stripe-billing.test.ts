import Stripe from 'stripe';
import { beforeEach, describe, expect, it } from 'vitest';
import { stripeBilling, stripeClient, stripeCustomers } from '../../lib/adapters/billing/stripe.ts';
import { NoCustomerError, type OverageCharge } from '../../lib/billing/billing.ts';
import { client, fakeStripe, stripeApi } from '../support/fakes/stripe-api.ts';

const charge: OverageCharge = {
  usageId: '65a1b2c3d4e5f60718293a4b',
  userId: 'user-1',
  customerId: 'cus_789',
  jobId: 'job-1',
  pages: 12,
  amountCents: 24,
  description: 'OCR: 12 pages beyond the monthly credits (job job-1)',
  createdAt: '2026-01-01T00:00:00.000Z',
};

describe('Stripe billing adapter', () => {
  let api: ReturnType<typeof fakeStripe>;
  beforeEach(() => {
    api = fakeStripe(stripeApi);
  });

  it('invoices the overage on an invoice of its own, then finalizes it', async () => {
    await expect(stripeBilling(client(api.fetch)).invoiceOverage(charge)).resolves.toEqual({ invoiceId: 'in_123', status: 'open' });
    expect(api.sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /v1/invoices',
      'POST /v1/invoiceitems',
      'POST /v1/invoices/in_123/finalize',
    ]);
    const [invoice, item] = api.sent;
    const metadata = { 'metadata[userId]': 'user-1', 'metadata[jobId]': 'job-1', 'metadata[usageId]': charge.usageId };
    expect(invoice!.form).toMatchObject({
      customer: 'cus_789',
      currency: 'usd',
      pending_invoice_items_behavior: 'exclude',
      ...metadata,
    });
    expect(item!.form).toMatchObject({ customer: 'cus_789', invoice: 'in_123', amount: '24', currency: 'usd', ...metadata });
  });

  it('keeps the draft from finalizing by itself until its item is on it, then lets Stripe collect', async () => {
    // A draft made with auto_advance would be finalized by Stripe an hour later, empty if the attempt died before its item.
    await stripeBilling(client(api.fetch)).invoiceOverage(charge);
    const [invoice, , finalize] = api.sent;
    expect(invoice!.form).toMatchObject({ auto_advance: 'false', collection_method: 'charge_automatically' });
    expect(finalize!.form).toMatchObject({ auto_advance: 'true' });
  });

  it('derives every idempotency key from the usage id, the same on a retried charge', async () => {
    const billing = stripeBilling(client(api.fetch));
    await billing.invoiceOverage(charge);
    await billing.invoiceOverage(charge);
    const keys = [`${charge.usageId}:invoice`, `${charge.usageId}:item`, `${charge.usageId}:finalize`];
    expect(api.sent.map((s) => s.idempotencyKey)).toEqual([...keys, ...keys]);
  });

  it('retries a failed call with the same idempotency key', async () => {
    api = fakeStripe((sent, attempt) =>
      sent.path === '/v1/invoiceitems' && attempt === 1
        ? { status: 503, body: { error: { type: 'api_error', message: 'try again' } } }
        : stripeApi(sent),
    );
    await expect(stripeBilling(client(api.fetch, 1)).invoiceOverage(charge)).resolves.toEqual({ invoiceId: 'in_123', status: 'open' });
    const items = api.sent.filter((s) => s.path === '/v1/invoiceitems');
    expect(items.map((s) => s.idempotencyKey)).toEqual([`${charge.usageId}:item`, `${charge.usageId}:item`]);
  });

  it('refuses a charge for a user without a Stripe customer, calling nothing', async () => {
    const refused = stripeBilling(client(api.fetch)).invoiceOverage({ ...charge, customerId: undefined });
    await expect(refused).rejects.toBeInstanceOf(NoCustomerError);
    await expect(refused).rejects.toThrow(`Cannot invoice usage ${charge.usageId}: user user-1 has no Stripe customer`);
    expect(api.sent).toHaveLength(0);
  });

  it('surfaces a Stripe error as a thrown error', async () => {
    api = fakeStripe((sent) =>
      sent.path === '/v1/invoices'
        ? { status: 400, body: { error: { type: 'invalid_request_error', message: "No such customer: 'cus_789'" } } }
        : stripeApi(sent),
    );
    const failure = stripeBilling(client(api.fetch)).invoiceOverage(charge);
    await expect(failure).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    await expect(failure).rejects.toThrow("No such customer: 'cus_789'");
    expect(api.sent).toHaveLength(1);
  });

  it('builds a client that retries twice', () => {
    expect(stripeClient('sk_test_x').getMaxNetworkRetries()).toBe(2);
  });
});

describe('Stripe customers adapter', () => {
  it('names the user a customer was made for, and no one for a deleted customer', async () => {
    const api = fakeStripe((sent) =>
      sent.path === '/v1/customers/cus_1'
        ? { status: 200, body: { id: 'cus_1', object: 'customer', metadata: { userId: '65a1b2c3d4e5f60718293a4b' } } }
        : { status: 200, body: { id: 'cus_2', object: 'customer', deleted: true } },
    );
    const customers = stripeCustomers(client(api.fetch));
    expect(await customers.userIdOf('cus_1')).toBe('65a1b2c3d4e5f60718293a4b');
    expect(await customers.userIdOf('cus_2')).toBeUndefined();
    expect(api.sent.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /v1/customers/cus_1', 'GET /v1/customers/cus_2']);
  });
});
