import { beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../../lib/auth/users.ts';
import { invoicePending, invoicingSchedule } from '../../../lib/billing/invoicing.ts';
import { recordUsage, usageSnapshot } from '../../../lib/billing/usage.ts';
import { newJobId } from '../../../lib/ids.ts';
import { fakeWorld, type FakeWorld } from '../../support/fakes/index.ts';
import { aSubscription, storedUser } from './fixtures.ts';

/** Page credits (docs/SPEC.md section 1; docs/decisions.md "usage on completion"): basic has 100 a month, pro 500, overage 2 cents a page. */
let world: FakeWorld;
const now = new Date('2026-03-15T12:00:00.000Z');
const march = '2026-03-01T00:00:00.000Z';
beforeEach(() => {
  world = fakeWorld({ now: now.toISOString() });
});

async function member(options: { tier?: string; status?: 'active' | 'canceled' | 'past_due'; used?: number; role?: Role; customer?: boolean } = {}) {
  // A subscriber is a Stripe customer (the webhook stores it with the subscription) unless told otherwise.
  const customer = options.customer ?? options.tier !== undefined;
  const user = await storedUser(world, options.role ?? 'member', customer ? { stripeCustomerId: `cus_${newJobId()}` } : {});
  if (options.tier) await world.subscriptions.put(aSubscription(user.userId, options.tier, { status: options.status ?? 'active' }));
  if (options.used) await world.subscriptions.setPagesUsed(user.userId, march, options.used);
  return user;
}
const complete = (userId: string, pages: number, jobId = newJobId()) => recordUsage(world.callbackDeps(), { userId, jobId, pages, now });

describe('usage arithmetic', () => {
  it('spends free credits first', async () => {
    const user = await member({ tier: 'basic' });
    expect(await complete(user.userId, 30)).toEqual({ freePages: 30, overagePages: 0, overageChargeCents: 0, totalPagesUsed: 30, remainingCredits: 70, paymentStatus: 'not_required' });
  });

  it('invoices the pages beyond the credits at 2 cents each', async () => {
    const user = await member({ tier: 'basic', used: 90 });
    expect(await complete(user.userId, 30)).toEqual({ freePages: 10, overagePages: 20, overageChargeCents: 40, totalPagesUsed: 120, remainingCredits: 0, paymentStatus: 'pending' });
  });

  it.each([
    { used: 99, pages: 1, free: 1, overage: 0, remaining: 0 },
    { used: 100, pages: 1, free: 0, overage: 1, remaining: 0 },
    { used: 0, pages: 100, free: 100, overage: 0, remaining: 0 },
    { used: 0, pages: 101, free: 100, overage: 1, remaining: 0 },
    { used: 150, pages: 10, free: 0, overage: 10, remaining: 0 },
  ])('at the credit boundary: $used used, $pages more → $free free, $overage overage', async ({ used, pages, free, overage, remaining }) => {
    const user = await member({ tier: 'basic', used });
    expect(await complete(user.userId, pages)).toMatchObject({
      freePages: free,
      overagePages: overage,
      overageChargeCents: overage * 2,
      totalPagesUsed: used + pages,
      remainingCredits: remaining,
      paymentStatus: overage ? 'pending' : 'not_required',
    });
  });

  it('gives the pro tier 500 credits', async () => {
    const user = await member({ tier: 'pro', used: 450 });
    expect(await complete(user.userId, 60)).toMatchObject({ freePages: 50, overagePages: 10, overageChargeCents: 20, remainingCredits: 0 });
  });

  it.each([undefined, 'canceled', 'past_due'] as const)('invoices every page without an active subscription (%s)', async (status) => {
    const user = await member(status ? { tier: 'pro', status } : {});
    expect(await complete(user.userId, 7)).toEqual({ freePages: 0, overagePages: 7, overageChargeCents: 14, totalPagesUsed: 7, remainingCredits: 0, paymentStatus: 'pending' });
  });

  it.each(['editor', 'admin'] as const)('never charges an %s, but counts the pages', async (role) => {
    const user = await member({ role, used: 10_000 });
    expect(await complete(user.userId, 250)).toEqual({ freePages: 250, overagePages: 0, overageChargeCents: 0, totalPagesUsed: 10_250, remainingCredits: null, paymentStatus: 'not_required' });
    expect(await usageSnapshot(world, user, now)).toMatchObject({ remainingCredits: null, tierCredits: null, pagesUsed: 10_250 });
  });

  it('counts a repeated completion of a job once', async () => {
    const user = await member({ tier: 'basic', used: 95 });
    const jobId = newJobId();
    const first = await complete(user.userId, 10, jobId);
    expect(await complete(user.userId, 10, jobId)).toEqual(first);
    expect(await complete(user.userId, 40, jobId)).toEqual(first);
    expect(await world.subscriptions.pagesUsed(user.userId, march)).toBe(105);
  });

  it('serializes completions racing for the last credits: together they never spend more than exist', async () => {
    const user = await member({ tier: 'basic', used: 90 });
    const infos = await Promise.all(Array.from({ length: 4 }, () => complete(user.userId, 5)));
    expect(infos.reduce((sum, i) => sum + i.freePages, 0)).toBe(10);
    expect(infos.reduce((sum, i) => sum + i.overagePages, 0)).toBe(10);
    expect(await world.subscriptions.pagesUsed(user.userId, march)).toBe(110);
  });

  it('counts in the subscription’s period, else the calendar month', async () => {
    const subscribed = await storedUser(world);
    await world.subscriptions.put(
      aSubscription(subscribed.userId, 'basic', { currentPeriodStart: '2026-02-10T00:00:00.000Z', currentPeriodEnd: '2026-03-10T00:00:00.000Z' }),
    );
    await complete(subscribed.userId, 3);
    // The period rolls forward a month at a time: 10 March to 10 April.
    expect(await world.subscriptions.pagesUsed(subscribed.userId, '2026-03-10T00:00:00.000Z')).toBe(3);
    const unsubscribed = await member();
    await complete(unsubscribed.userId, 4);
    expect(await world.subscriptions.pagesUsed(unsubscribed.userId, march)).toBe(4);
    expect(await usageSnapshot(world, unsubscribed, now)).toEqual({ remainingCredits: 0, tierCredits: 0, pagesUsed: 4, billingPeriodEnd: '2026-04-01T00:00:00.000Z' });
  });

  it('fails for a user with no record', async () => {
    await expect(complete('0123456789abcdef01234567', 1)).rejects.toThrow('User 0123456789abcdef01234567 not found');
  });
});

describe('overage invoicing (the billing worker on the outbox)', () => {
  it('invoices each pending log once, and leaves logs with nothing owed alone', async () => {
    const user = await member({ tier: 'basic', used: 100 });
    const free = await member({ tier: 'basic' });
    const owed = newJobId();
    await complete(user.userId, 3, owed);
    await complete(free.userId, 3);
    const run = { now: () => now, hasTime: () => true };
    expect(await invoicePending(world.invoicingDeps(), run)).toMatchObject({ invoiced: 1, failed: 0, retrying: 0 });
    expect(await invoicePending(world.invoicingDeps(), run)).toMatchObject({ invoiced: 0 });
    expect(world.billing.calls).toBe(1);
    expect([...world.billing.invoices.values()][0]!.charge).toMatchObject({ userId: user.userId, jobId: owed, pages: 3, amountCents: 6 });
    expect(await world.usage.forJob(owed)).toMatchObject({ paymentStatus: 'invoiced', invoiceId: 'in_1', attempts: 1 });
  });

  it('settles the overage of a user with no Stripe customer `no_customer` once the attempts are spent, charging no one', async () => {
    const user = await member({ tier: 'basic', used: 100, customer: false });
    const jobId = newJobId();
    await complete(user.userId, 3, jobId);
    const run = { now: world.now, hasTime: () => true };
    for (let attempt = 1; attempt < invoicingSchedule.maxAttempts; attempt++) {
      expect(await invoicePending(world.invoicingDeps(), run)).toMatchObject({ retrying: 1, withoutCustomer: 0 });
      world.clock.advance(invoicingSchedule.retryDelayMs(attempt));
    }
    expect(await invoicePending(world.invoicingDeps(), run)).toMatchObject({ invoiced: 0, failed: 0, withoutCustomer: 1, retrying: 0 });
    expect(await world.usage.forJob(jobId)).toMatchObject({ paymentStatus: 'no_customer', attempts: invoicingSchedule.maxAttempts });
    expect(world.billing.invoices.size).toBe(0);
  });

  it('invoices a user whose customer arrives while the attempts last', async () => {
    const user = await member({ tier: 'basic', used: 100, customer: false });
    const jobId = newJobId();
    await complete(user.userId, 3, jobId);
    const run = { now: world.now, hasTime: () => true };
    expect(await invoicePending(world.invoicingDeps(), run)).toMatchObject({ retrying: 1 });
    await world.users.put({ ...user, stripeCustomerId: 'cus_late' });
    world.clock.advance(invoicingSchedule.retryDelayMs(1));
    expect(await invoicePending(world.invoicingDeps(), run)).toMatchObject({ invoiced: 1 });
    expect([...world.billing.invoices.values()][0]!.charge).toMatchObject({ customerId: 'cus_late', jobId });
  });
});
