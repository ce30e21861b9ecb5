import { describe, expect, it } from 'vitest';
import type { Subscription } from '../../lib/billing/subscriptions.ts';
import { defaultTierCatalogue } from '../../lib/billing/tiers.ts';
import { applyStripeEvent, subscriptionStatus, tierOf, type StripeSubscription, type WebhookDeps } from '../../lib/billing/webhook.ts';

/**
 * In-memory ports: subscriptions with the store's newer-event rule, remembered events, customers,
 * and the users' customers with the rule of lib/adapters/dynamo/user-customers.ts.
 */
function fakes(customers: Record<string, { userId?: string }> = {}) {
  const stored = new Map<string, Subscription>();
  const linked = new Map<string, { customerId: string; eventCreated: number }>();
  const remembered = new Set<string>();
  const customerLookups: string[] = [];
  const deps: WebhookDeps = {
    subscriptions: {
      async putIfNewer(s) {
        const current = stored.get(s.userId);
        if (current?.stripeEventCreated !== undefined && current.stripeEventCreated > s.stripeEventCreated) return false;
        stored.set(s.userId, s);
        return true;
      },
    },
    events: {
      seen: async (id) => remembered.has(id),
      remember: async (id) => void remembered.add(id),
    },
    tierCatalogue: defaultTierCatalogue,
    customers: {
      async userIdOf(customerId: string) {
        customerLookups.push(customerId);
        return customers[customerId]?.userId;
      },
    },
    userCustomers: {
      async link(userId, customerId, eventCreated, { onlyIfNone }) {
        const current = linked.get(userId);
        if (current && (onlyIfNone || current.eventCreated > eventCreated)) return false;
        linked.set(userId, { customerId, eventCreated });
        return true;
      },
    },
    now: () => new Date('2026-03-15T12:00:00.000Z'),
  };
  return { deps, stored, remembered, customerLookups, linked };
}

const subscription = (overrides: Partial<StripeSubscription> = {}): StripeSubscription => ({
  id: 'sub_1',
  customer: 'cus_1',
  status: 'active',
  metadata: {},
  items: { data: [{ price: { lookup_key: 'pro' }, current_period_start: 1_767_225_600, current_period_end: 1_769_904_000 }] },
  ...overrides,
});

const event = (object: StripeSubscription, type = 'customer.subscription.updated', id = 'evt_1', created = 100) => ({
  id,
  type,
  created,
  data: { object },
});

describe('Stripe subscription webhook', () => {
  it("finds the user through the customer's metadata when the subscription has none", async () => {
    const { deps, stored, customerLookups } = fakes({ cus_1: { userId: 'u1' } });
    await expect(applyStripeEvent(deps, event(subscription()))).resolves.toBe('applied');
    expect(customerLookups).toEqual(['cus_1']);
    expect(stored.get('u1')).toMatchObject({ userId: 'u1', tier: 'pro', status: 'active', stripeEventCreated: 100 });
  });

  it("prefers the subscription's metadata.userId and then asks no one", async () => {
    const { deps, stored, customerLookups } = fakes({ cus_1: { userId: 'someone-else' } });
    await applyStripeEvent(deps, event(subscription({ metadata: { userId: 'u2' }, customer: { id: 'cus_1' } })));
    expect(customerLookups).toEqual([]);
    expect(stored.has('u2')).toBe(true);
  });

  it('ignores, without remembering, an event whose customer names no user', async () => {
    const { deps, stored, remembered } = fakes({ cus_1: {} });
    await expect(applyStripeEvent(deps, event(subscription()))).resolves.toBe('ignored');
    expect(stored.size).toBe(0);
    expect(remembered.size).toBe(0);
  });

  it('applies an event once and never lets an older one win', async () => {
    const { deps, stored } = fakes();
    const s = subscription({ metadata: { userId: 'u3' } });
    expect(await applyStripeEvent(deps, event(s, undefined, 'evt_a', 200))).toBe('applied');
    expect(await applyStripeEvent(deps, event(s, undefined, 'evt_a', 200))).toBe('duplicate');
    expect(await applyStripeEvent(deps, event({ ...s, status: 'past_due' }, undefined, 'evt_b', 150))).toBe('stale');
    expect(stored.get('u3')).toMatchObject({ status: 'active', stripeEventCreated: 200 });
  });

  it("stores the subscription's customer as the user's, and a late event never replaces a newer one's", async () => {
    const { deps, linked } = fakes();
    const s = subscription({ metadata: { userId: 'u5' }, customer: { id: 'cus_new' } });
    expect(await applyStripeEvent(deps, event(s, undefined, 'evt_new', 300))).toBe('applied');
    expect(linked.get('u5')).toEqual({ customerId: 'cus_new', eventCreated: 300 });
    // An older event of the user's earlier customer arrives late: the record and the customer stay.
    expect(await applyStripeEvent(deps, event({ ...s, customer: 'cus_old' }, undefined, 'evt_old', 200))).toBe('stale');
    expect(linked.get('u5')).toEqual({ customerId: 'cus_new', eventCreated: 300 });
  });

  it('lets even a stale event give a customer to a user who has none', async () => {
    const { deps, linked } = fakes();
    const s = subscription({ metadata: { userId: 'u6' } });
    await applyStripeEvent(deps, event(s, undefined, 'evt_a', 300));
    linked.clear(); // a user whose subscription was recorded before customers were
    expect(await applyStripeEvent(deps, event(s, undefined, 'evt_b', 200))).toBe('stale');
    expect(linked.get('u6')).toEqual({ customerId: 'cus_1', eventCreated: 200 });
  });

  it('takes no notice of other event types', async () => {
    const { deps, customerLookups } = fakes();
    await expect(applyStripeEvent(deps, event(subscription(), 'invoice.paid'))).resolves.toBe('ignored');
    expect(customerLookups).toEqual([]);
  });

  it('maps Stripe statuses to the three of the record', () => {
    const updated = 'customer.subscription.updated';
    expect(['active', 'trialing'].map((s) => subscriptionStatus(updated, s))).toEqual(['active', 'active']);
    expect(['past_due', 'unpaid'].map((s) => subscriptionStatus(updated, s))).toEqual(['past_due', 'past_due']);
    expect(['canceled', 'incomplete', 'incomplete_expired', 'paused'].map((s) => subscriptionStatus(updated, s))).toEqual(
      Array(4).fill('canceled'),
    );
    expect(subscriptionStatus('customer.subscription.deleted', 'active')).toBe('canceled');
  });

  it('reads the tier from the lookup key, else the price metadata, else the subscription metadata', () => {
    const withPrice = (price: { lookup_key?: string | null; metadata?: Record<string, string> }, metadata = {}) =>
      subscription({ metadata, items: { data: [{ price }] } });
    expect(tierOf(withPrice({ lookup_key: 'basic', metadata: { tier: 'pro' } }), defaultTierCatalogue)).toBe('basic');
    expect(tierOf(withPrice({ lookup_key: null, metadata: { tier: 'pro' } }), defaultTierCatalogue)).toBe('pro');
    expect(tierOf(withPrice({ lookup_key: 'pro_monthly' }, { tier: 'basic' }), defaultTierCatalogue)).toBe('basic');
    expect(tierOf(withPrice({ lookup_key: 'platinum' }), defaultTierCatalogue)).toBeUndefined();
    expect(tierOf(withPrice({ lookup_key: 'constructor' }), defaultTierCatalogue)).toBeUndefined();
  });

  it('falls back to the calendar month when Stripe sends no period', async () => {
    const { deps, stored } = fakes();
    await applyStripeEvent(deps, event(subscription({ metadata: { userId: 'u4' }, items: { data: [{ price: { lookup_key: 'basic' } }] } })));
    expect(stored.get('u4')).toMatchObject({
      currentPeriodStart: '2026-03-01T00:00:00.000Z',
      currentPeriodEnd: '2026-04-01T00:00:00.000Z',
    });
  });
});
