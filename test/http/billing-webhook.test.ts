import { GetCommand } from '@aws-sdk/lib-dynamodb';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { stripeBilling } from '../../lib/adapters/billing/stripe.ts';
import { dynamoInvoiceOutbox } from '../../lib/adapters/dynamo/billing-outbox.ts';
import { keys } from '../../lib/adapters/dynamo/keys.ts';
import { dynamoUsageStore } from '../../lib/adapters/dynamo/usage.ts';
import { invoicePending } from '../../lib/billing/invoicing.ts';
import { defaultTierCatalogue } from '../../lib/billing/tiers.ts';
import { recordUsage } from '../../lib/billing/usage.ts';
import { newObjectId } from '../../lib/ids.ts';
import { startApi } from '../support/api.ts';
import { client, fakeStripe, stripeApi } from '../support/fakes/stripe-api.ts';
import { testDb, testStores } from '../support/stores.ts';

// Read once per process, on the first request: set before any request of this file.
const secret = 'whsec_test_secret';
process.env.STRIPE_WEBHOOK_SECRET = secret;
process.env.STRIPE_SECRET_KEY = 'sk_test_unused';

const { subscriptions, users } = testStores();
let api: Awaited<ReturnType<typeof startApi>>;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

const start = 1_767_225_600; // 2026-01-01T00:00:00Z
const end = 1_769_904_000; // 2026-02-01T00:00:00Z
let eventCount = 0;

/** A `customer.subscription.*` event as Stripe sends it (API 2025-03-31 and later: periods on the items). */
function subscriptionEvent(
  type: 'created' | 'updated' | 'deleted',
  userId: string,
  options: { status?: string; lookupKey?: string | null; created?: number; id?: string; subscriptionId?: string; customer?: string } = {},
) {
  return {
    id: options.id ?? `evt_${++eventCount}_${userId}`,
    object: 'event',
    type: `customer.subscription.${type}`,
    created: options.created ?? start + eventCount,
    data: {
      object: {
        id: options.subscriptionId ?? `sub_${userId}`,
        object: 'subscription',
        customer: options.customer ?? `cus_${userId}`,
        status: options.status ?? (type === 'deleted' ? 'canceled' : 'active'),
        metadata: { userId },
        items: {
          object: 'list',
          data: [
            {
              id: 'si_1',
              object: 'subscription_item',
              current_period_start: start,
              current_period_end: end,
              price: { id: 'price_1', object: 'price', lookup_key: options.lookupKey === undefined ? 'pro' : options.lookupKey, metadata: {} },
            },
          ],
        },
      },
    },
  };
}

/** A member's user record, as the identity service makes it (no Stripe customer yet). */
async function member() {
  const userId = newObjectId();
  const at = new Date().toISOString();
  await users.put({ userId, username: `m-${userId}`, email: `${userId}@example.com`, role: 'member', profilePicture: null, profilePictureKey: null, createdAt: at, updatedAt: at });
  return userId;
}

/** Delivers an event signed with the webhook secret, as Stripe does. */
function deliver(event: object, signature?: string) {
  const payload = JSON.stringify(event);
  return api.call('POST', '/billing/webhook', {
    body: payload,
    headers: { 'stripe-signature': signature ?? Stripe.webhooks.generateTestHeaderString({ payload, secret }) },
  });
}

describe('POST /billing/webhook', () => {
  it('answers 400 for a missing or wrong signature, and changes nothing', async () => {
    const userId = await member();
    const event = subscriptionEvent('created', userId);
    const payload = JSON.stringify(event);
    const forged = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someone_else' });
    expect(await deliver(event, forged)).toMatchObject({ status: 400, body: { message: 'Invalid signature' } });
    const missing = await api.call('POST', '/billing/webhook', { body: payload });
    expect(missing).toMatchObject({ status: 400, body: { message: 'Invalid signature' } });
    // A body changed after signing fails too.
    const signed = Stripe.webhooks.generateTestHeaderString({ payload, secret });
    const tampered = await api.call('POST', '/billing/webhook', {
      body: payload.replace('"pro"', '"basic"'),
      headers: { 'stripe-signature': signed },
    });
    expect(tampered.status).toBe(400);
    expect(await subscriptions.get(userId)).toBeUndefined();
    expect((await users.get(userId))?.stripeCustomerId).toBeUndefined();
  });

  it('applies created, updated and deleted to the subscription record', async () => {
    const userId = newObjectId();
    expect(await deliver(subscriptionEvent('created', userId, { status: 'trialing' }))).toMatchObject({
      status: 200,
      body: { received: true },
    });
    expect(await subscriptions.get(userId)).toMatchObject({
      userId,
      tier: 'pro',
      status: 'active',
      currentPeriodStart: '2026-01-01T00:00:00.000Z',
      currentPeriodEnd: '2026-02-01T00:00:00.000Z',
      stripeSubscriptionId: `sub_${userId}`,
    });

    expect((await deliver(subscriptionEvent('updated', userId, { status: 'unpaid', lookupKey: 'basic' }))).status).toBe(200);
    expect(await subscriptions.get(userId)).toMatchObject({ tier: 'basic', status: 'past_due' });

    expect((await deliver(subscriptionEvent('deleted', userId, { status: 'active', lookupKey: 'basic' }))).status).toBe(200);
    expect(await subscriptions.get(userId)).toMatchObject({ tier: 'basic', status: 'canceled' });
    // Its customer has no user record to go to, and none is made for it.
    expect(await users.get(userId)).toBeUndefined();
  });

  it('reads the period from the subscription itself in older API versions', async () => {
    const userId = newObjectId();
    const event = subscriptionEvent('created', userId);
    Object.assign(event.data.object, { current_period_start: start + 86_400, current_period_end: end + 86_400 });
    event.data.object.items.data = event.data.object.items.data.map(({ current_period_start: _, current_period_end: __, ...item }) => item) as never;
    expect((await deliver(event)).status).toBe(200);
    expect(await subscriptions.get(userId)).toMatchObject({
      currentPeriodStart: '2026-01-02T00:00:00.000Z',
      currentPeriodEnd: '2026-02-02T00:00:00.000Z',
    });
  });

  it('applies a redelivered event once', async () => {
    const userId = newObjectId();
    const event = subscriptionEvent('created', userId);
    expect((await deliver(event)).status).toBe(200);
    const applied = (await subscriptions.get(userId))!;
    // Changed after the first delivery: a second application would put `pro` back.
    await subscriptions.put({ ...applied, tier: 'basic' });
    expect(await deliver(event)).toMatchObject({ status: 200, body: { received: true } });
    expect(await subscriptions.get(userId)).toMatchObject({ tier: 'basic' });

    // Remembered for 30 days through the table's TTL attribute.
    const db = testDb();
    const { Item } = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.stripeEvent(event.id) }));
    expect(Item).toMatchObject({ entity: 'StripeEvent', type: 'customer.subscription.created' });
    expect(Item!.ttl).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);
    expect(Item!.ttl).toBeLessThan(Date.now() / 1000 + 31 * 86_400);
  });

  it('does not let an older event overwrite a newer one', async () => {
    const userId = newObjectId();
    expect((await deliver(subscriptionEvent('updated', userId, { status: 'past_due', created: start + 100 }))).status).toBe(200);
    expect((await deliver(subscriptionEvent('created', userId, { status: 'active', created: start + 50 }))).status).toBe(200);
    expect(await subscriptions.get(userId)).toMatchObject({ status: 'past_due', stripeEventCreated: start + 100 });
    expect((await deliver(subscriptionEvent('deleted', userId, { created: start + 200 }))).status).toBe(200);
    expect(await subscriptions.get(userId)).toMatchObject({ status: 'canceled', stripeEventCreated: start + 200 });
  });

  it('keeps the new plan active when the old one ends after a switch', async () => {
    const userId = newObjectId();
    await deliver(subscriptionEvent('created', userId, { subscriptionId: 'sub_old', created: start + 10 }));
    await deliver(subscriptionEvent('created', userId, { subscriptionId: 'sub_new', lookupKey: 'basic', created: start + 20 }));
    expect((await deliver(subscriptionEvent('deleted', userId, { subscriptionId: 'sub_old', created: start + 30 }))).status).toBe(200);
    expect(await subscriptions.get(userId)).toMatchObject({ status: 'active', tier: 'basic', stripeSubscriptionId: 'sub_new' });
    await deliver(subscriptionEvent('deleted', userId, { subscriptionId: 'sub_new', created: start + 40 }));
    expect(await subscriptions.get(userId)).toMatchObject({ status: 'canceled', stripeSubscriptionId: 'sub_new' });
  });

  it('overrides a subscription seeded without Stripe', async () => {
    const userId = newObjectId();
    await subscriptions.put({
      userId,
      tier: 'basic',
      status: 'active',
      currentPeriodStart: '2025-12-01T00:00:00.000Z',
      currentPeriodEnd: '2026-01-01T00:00:00.000Z',
      updatedAt: '2025-12-01T00:00:00.000Z',
    });
    expect((await deliver(subscriptionEvent('updated', userId))).status).toBe(200);
    expect(await subscriptions.get(userId)).toMatchObject({ tier: 'pro', currentPeriodStart: '2026-01-01T00:00:00.000Z' });
  });

  it('ignores, with 200, a tier the catalogue does not have and events it does not handle', async () => {
    const userId = newObjectId();
    expect(await deliver(subscriptionEvent('created', userId, { lookupKey: 'platinum' }))).toMatchObject({
      status: 200,
      body: { received: true },
    });
    expect(await subscriptions.get(userId)).toBeUndefined();
    const other = { id: 'evt_invoice', object: 'event', type: 'invoice.paid', created: start, data: { object: { id: 'in_1' } } };
    expect(await deliver(other)).toMatchObject({ status: 200, body: { received: true } });
  });

  it("stores the subscription's customer on the user, whom the billing worker's invoice at Stripe then charges", async () => {
    const userId = await member();
    expect((await deliver(subscriptionEvent('created', userId))).status).toBe(200);
    expect(await users.get(userId)).toMatchObject({ stripeCustomerId: `cus_${userId}` });

    // 501 pages on the pro tier's 500 credits: one page of overage, invoiced at a Stripe that, like
    // the real one, refuses an invoice without a customer.
    const usage = dynamoUsageStore(testDb());
    const jobId = randomUUID();
    const usageInfo = await recordUsage(
      { users, subscriptions, usage, tierCatalogue: defaultTierCatalogue },
      { userId, jobId, pages: 501, now: new Date('2026-01-15T00:00:00.000Z') },
    );
    expect(usageInfo).toMatchObject({ overagePages: 1, overageChargeCents: 2, paymentStatus: 'pending' });
    const stripe = fakeStripe(stripeApi);
    // This job's log alone: the table is shared with other tests' pending logs.
    const outbox = { ...dynamoInvoiceOutbox(testDb()), pending: async () => [(await usage.forJob(jobId))!] };
    const run = await invoicePending(
      { outbox, users, billing: async () => stripeBilling(client(stripe.fetch)) },
      { now: () => new Date(), hasTime: () => true },
    );
    expect(run).toMatchObject({ invoiced: 1, failed: 0, withoutCustomer: 0, retrying: 0 });
    expect(stripe.sent.filter((s) => s.path === '/v1/invoices').map((s) => s.form.customer)).toEqual([`cus_${userId}`]);
    expect(await usage.forJob(jobId)).toMatchObject({ paymentStatus: 'invoiced', invoiceId: 'in_123' });
  });

  it('keeps the customer a newer event stored when an older or repeated event arrives', async () => {
    const userId = await member();
    const newer = subscriptionEvent('created', userId, { customer: 'cus_new', subscriptionId: 'sub_new', created: start + 100 });
    expect((await deliver(newer)).status).toBe(200);
    // The user's earlier customer, told of late (Stripe does not deliver in order), then the newer event again.
    expect((await deliver(subscriptionEvent('updated', userId, { customer: 'cus_old', subscriptionId: 'sub_old', created: start + 50 }))).status).toBe(200);
    expect((await deliver(newer)).status).toBe(200);
    expect(await users.get(userId)).toMatchObject({ stripeCustomerId: 'cus_new' });
    expect(await subscriptions.get(userId)).toMatchObject({ stripeSubscriptionId: 'sub_new' });
  });

  it('moves the user to the customer of a newer subscription', async () => {
    const userId = await member();
    await deliver(subscriptionEvent('created', userId, { customer: 'cus_first', subscriptionId: 'sub_first', created: start + 10 }));
    await deliver(subscriptionEvent('deleted', userId, { customer: 'cus_first', subscriptionId: 'sub_first', created: start + 20 }));
    // Subscribed again later under a new customer (the first one was deleted at Stripe): that one pays.
    expect((await deliver(subscriptionEvent('created', userId, { customer: 'cus_second', subscriptionId: 'sub_second', created: start + 30 }))).status).toBe(200);
    expect(await users.get(userId)).toMatchObject({ stripeCustomerId: 'cus_second' });
  });
});
