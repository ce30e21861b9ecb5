import type { Customers, UserCustomers } from './billing.ts';
import { logger } from '../log.ts';
import { calendarMonth, type SubscriptionStatus, type SubscriptionStore } from './subscriptions.ts';
import type { TierCatalogue } from './tiers.ts';

/**
 * Stripe's subscription webhooks (`customer.subscription.created|updated|deleted`) applied to the
 * user's Subscription record, and the subscription's customer to the user (User.stripeCustomerId,
 * whom overage invoices charge). The function verifies the signature; this module sees plain data,
 * so it carries no Stripe SDK.
 */

/** A verified Stripe event, as much of it as is read here. */
export interface WebhookEvent {
  id: string;
  type: string;
  /** Epoch seconds. */
  created: number;
  data: { object: unknown };
}

interface StripePrice {
  lookup_key?: string | null;
  metadata?: Record<string, string> | null;
}

/**
 * The fields of a Stripe subscription read here. The current period sits on the subscription in
 * API versions before 2025-03-31 and on each item from then on; both are read.
 */
export interface StripeSubscription {
  id: string;
  customer: string | { id: string } | null;
  status: string;
  metadata?: Record<string, string> | null;
  current_period_start?: number | null;
  current_period_end?: number | null;
  items?: {
    data?: Array<{ price?: StripePrice | null; current_period_start?: number | null; current_period_end?: number | null }>;
  };
}

/** Events already applied, remembered for a while so that a redelivery changes nothing. */
export interface ProcessedEvents {
  seen(eventId: string): Promise<boolean>;
  remember(eventId: string, type: string): Promise<void>;
}

export interface WebhookDeps {
  subscriptions: Pick<SubscriptionStore, 'putIfNewer'>;
  events: ProcessedEvents;
  tierCatalogue: TierCatalogue;
  customers: Customers;
  userCustomers: UserCustomers;
  now(): Date;
}

/** `stale`: an older event than the one the record came from; `ignored`: not ours to apply. */
export type WebhookOutcome = 'applied' | 'stale' | 'duplicate' | 'ignored';

const subscriptionEvents = new Set(['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted']);

export function subscriptionStatus(eventType: string, stripeStatus: string): SubscriptionStatus {
  if (eventType === 'customer.subscription.deleted') return 'canceled';
  if (stripeStatus === 'active' || stripeStatus === 'trialing') return 'active';
  if (stripeStatus === 'past_due' || stripeStatus === 'unpaid') return 'past_due';
  // canceled, incomplete, incomplete_expired, paused, and any status Stripe adds later: no credits.
  return 'canceled';
}

/**
 * The tier of the tier catalogue the subscription is for: the first of the price's lookup key, the price's
 * `metadata.tier` and the subscription's `metadata.tier` that names a tier (a lookup key such as
 * `pro_monthly` falls through to the metadata).
 */
export function tierOf(subscription: StripeSubscription, tierCatalogue: TierCatalogue): string | undefined {
  const price = subscription.items?.data?.[0]?.price;
  const candidates = [price?.lookup_key, price?.metadata?.tier, subscription.metadata?.tier];
  return candidates.find((name): name is string => typeof name === 'string' && Object.hasOwn(tierCatalogue.tiers, name));
}

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

function periodOf(subscription: StripeSubscription, now: Date): { start: string; end: string } {
  const item = subscription.items?.data?.[0];
  const start = subscription.current_period_start ?? item?.current_period_start;
  const end = subscription.current_period_end ?? item?.current_period_end;
  // Stripe always sends one of the two; the calendar month is only a floor for a malformed event.
  return start && end ? { start: iso(start), end: iso(end) } : calendarMonth(now);
}

const customerId = (s: StripeSubscription) => (typeof s.customer === 'string' ? s.customer : s.customer?.id);

async function userIdOf(deps: WebhookDeps, subscription: StripeSubscription): Promise<string | undefined> {
  if (subscription.metadata?.userId) return subscription.metadata.userId;
  const customer = customerId(subscription);
  return customer ? deps.customers.userIdOf(customer) : undefined;
}

/**
 * The subscription's customer becomes the user's. A user's customer normally never changes; when it
 * does (a new subscription under another customer), the one to charge is the customer of the
 * subscription the record now shows, so it follows the record's own rule: written by an event the
 * record took (the newest; an ending subscription never displaces an active one), never by a stale
 * one, unless the user has no customer at all (one stored before this was, or lost).
 */
async function linkCustomer(deps: WebhookDeps, userId: string, subscription: StripeSubscription, event: WebhookEvent, applied: boolean) {
  const customer = customerId(subscription);
  if (!customer) return;
  const linked = await deps.userCustomers.link(userId, customer, event.created, { onlyIfNone: !applied });
  if (!linked && applied) logger.info('Stripe customer not stored: the user has one from a newer event, or no record', { eventId: event.id, userId });
}

/**
 * Applies one event. A redelivered event id does nothing; an event older than the one the record
 * came from does not overwrite it. Events that cannot be applied (no user, unknown tier) are logged
 * and not remembered, so a resend after fixing the data or the tier catalogue applies them.
 */
export async function applyStripeEvent(deps: WebhookDeps, event: WebhookEvent): Promise<WebhookOutcome> {
  if (!subscriptionEvents.has(event.type)) return 'ignored';
  if (await deps.events.seen(event.id)) return 'duplicate';

  const subscription = event.data.object as StripeSubscription;
  const context = { eventId: event.id, type: event.type, subscriptionId: subscription.id };
  const userId = await userIdOf(deps, subscription);
  if (!userId) {
    logger.warn('Stripe subscription event names no user: ignored', context);
    return 'ignored';
  }
  const tier = tierOf(subscription, deps.tierCatalogue);
  if (!tier) {
    logger.warn('Stripe subscription event names no tier of the tier catalogue: ignored', context);
    return 'ignored';
  }
  const period = periodOf(subscription, deps.now());
  const applied = await deps.subscriptions.putIfNewer({
    userId,
    tier,
    status: subscriptionStatus(event.type, subscription.status),
    currentPeriodStart: period.start,
    currentPeriodEnd: period.end,
    stripeSubscriptionId: subscription.id,
    stripeEventCreated: event.created,
    updatedAt: deps.now().toISOString(),
  });
  await linkCustomer(deps, userId, subscription, event, applied);
  // Remembered only once applied: if a write above failed, Stripe's retry applies it again.
  await deps.events.remember(event.id, event.type);
  return applied ? 'applied' : 'stale';
}
