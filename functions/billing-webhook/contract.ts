import * as v from 'valibot';
import { contracts, jsonAnswer } from '../_shared/contract/contract.ts';
import { messageErrorAnswer } from '../_shared/contract/shapes.ts';

/** `POST /billing/webhook`: Stripe's subscription events (docs/decisions.md, "subscriptions"). */

/** Each route's 500 text (its contract's `failure`). */
const webhookFailed = 'Error processing webhook';

export const billingContracts = contracts({
  'POST /billing/webhook': {
    tag: 'Billing',
    summary: 'Receive a Stripe event',
    failure: webhookFailed,
    description:
      'For Stripe only: authenticated by the `Stripe-Signature` header over the exact body. `customer.subscription.created`, `.updated` and `.deleted` update the user’s subscription; other events are acknowledged and ignored, and a repeated event is applied once.',
    body: {
      kind: 'signed',
      schema: v.pipe(v.looseObject({ id: v.string(), type: v.string() }), v.description('A Stripe event object.')),
      required: true,
      // An event is a few KB (lists in it carry their first 10 items); read before its signature is
      // checked, so no more than an event ever needs.
      limits: { maxBytes: 1024 * 1024, maxValues: 50_000 },
    },
    responses: {
      200: jsonAnswer('Received.', v.strictObject({ received: v.literal(true) })),
      400: messageErrorAnswer('`Invalid signature`, or a malformed body.'),
      500: messageErrorAnswer(`\`${webhookFailed}\`: Stripe retries.`),
    },
  },
});
