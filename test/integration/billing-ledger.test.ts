import { describe, expect, it } from 'vitest';
import { ledgerBilling } from '../../lib/adapters/billing/ledger.ts';
import { NoCustomerError, type OverageCharge } from '../../lib/billing/billing.ts';
import { newObjectId } from '../../lib/ids.ts';
import { testDb } from '../support/stores.ts';

const ledger = ledgerBilling(testDb());

const charge = (userId: string, createdAt: string, pages: number): OverageCharge => ({
  usageId: newObjectId(),
  userId,
  customerId: `cus_local_${userId}`,
  jobId: `job-${pages}`,
  pages,
  amountCents: pages * 2,
  description: `${pages} pages`,
  createdAt,
});

describe('billing ledger (the local Stripe stand-in)', () => {
  it('records one invoice per usage record, however often it is charged', async () => {
    const userId = newObjectId();
    const first = charge(userId, '2026-01-05T00:00:00.000Z', 3);
    const invoice = await ledger.invoiceOverage(first);
    expect(invoice).toEqual({ invoiceId: `in_local_${first.usageId}`, status: 'open' });

    const retries = await Promise.all([ledger.invoiceOverage(first), ledger.invoiceOverage({ ...first, pages: 99 })]);
    expect(retries).toEqual([invoice, invoice]);
    expect(await ledger.invoices(userId)).toEqual([
      { jobId: 'job-3', pages: 3, amountCents: 6, status: 'open', createdAt: '2026-01-05T00:00:00.000Z' },
    ]);
  });

  it("lists a user's invoices oldest first, and only that user's", async () => {
    const userId = newObjectId();
    const other = newObjectId();
    await ledger.invoiceOverage(charge(userId, '2026-02-03T00:00:00.000Z', 30));
    await ledger.invoiceOverage(charge(userId, '2026-02-01T00:00:00.000Z', 10));
    await ledger.invoiceOverage(charge(other, '2026-02-02T00:00:00.000Z', 5));
    await ledger.invoiceOverage(charge(userId, '2026-02-02T00:00:00.000Z', 20));

    const invoices = await ledger.invoices(userId);
    expect(invoices.map((i) => i.createdAt)).toEqual([
      '2026-02-01T00:00:00.000Z',
      '2026-02-02T00:00:00.000Z',
      '2026-02-03T00:00:00.000Z',
    ]);
    expect(invoices[0]).toEqual({ jobId: 'job-10', pages: 10, amountCents: 20, status: 'open', createdAt: '2026-02-01T00:00:00.000Z' });
    expect(Object.keys(invoices[0]!).sort()).toEqual(['amountCents', 'createdAt', 'jobId', 'pages', 'status']);
    expect(await ledger.invoices(newObjectId())).toEqual([]);
  });

  it('refuses, as Stripe does, a charge for a user without a customer, and records nothing', async () => {
    const userId = newObjectId();
    const refused = ledger.invoiceOverage({ ...charge(userId, '2026-03-01T00:00:00.000Z', 4), customerId: undefined });
    await expect(refused).rejects.toBeInstanceOf(NoCustomerError);
    await expect(refused).rejects.toThrow(/has no Stripe customer/);
    expect(await ledger.invoices(userId)).toEqual([]);
  });
});
