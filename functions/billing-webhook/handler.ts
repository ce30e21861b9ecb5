import Stripe from 'stripe';
import { dynamoProcessedEvents } from '../../lib/adapters/dynamo/stripe-events.ts';
import { dynamoUserCustomers } from '../../lib/adapters/dynamo/user-customers.ts';
import { applyStripeEvent, type WebhookEvent } from '../../lib/billing/webhook.ts';
import { badRequest } from '../../lib/errors.ts';
import { billingContracts } from './contract.ts';
import type { Customers } from '../../lib/billing/billing.ts';
import { once, onFirstUse } from '../../lib/lazy.ts';
import { deps as coreDeps } from '../_shared/deps.ts';
import { httpFunction, type Request } from '../_shared/http/handler.ts';
import { stripeApi, webhookSecret } from '../_shared/stripe.ts';

/** `POST /billing/webhook`: Stripe's subscription events, authenticated by their signature alone. */
const deps = once(() => {
  const core = coreDeps();
  return {
    ...core,
    events: dynamoProcessedEvents(core.db, core.now),
    userCustomers: dynamoUserCustomers(core.db),
    customers: onFirstUse<Customers>(async () => (await import('../../lib/adapters/billing/stripe.ts')).stripeCustomers(await stripeApi())),
  };
});

/** The event, once its `stripe-signature` header proves Stripe sent this exact body. */
async function verifiedEvent(request: Pick<Request, 'headers' | 'rawBody'>): Promise<WebhookEvent> {
  const secret = await webhookSecret(); // outside the try: a missing secret is ours to fix (500), not the sender's
  const signature = request.headers['stripe-signature'];
  if (!signature) throw badRequest('Invalid signature');
  try {
    // The static webhooks helper needs no API key; the async form uses WebCrypto-compatible HMAC.
    return await Stripe.webhooks.constructEventAsync(request.rawBody, signature, secret);
  } catch {
    throw badRequest('Invalid signature');
  }
}

export const handler = httpFunction({
  name: 'billing-webhook',
  authDeps: deps,
  contracts: billingContracts,
  handlers: {
    'POST /billing/webhook': {
      run: async (request) => {
        await applyStripeEvent(deps(), await verifiedEvent(request));
        return { received: true };
      },
    },
  },
});
