import type Stripe from 'stripe';
import { readSecret } from '../../lib/adapters/aws/secrets.ts';
import { config } from '../../lib/config.ts';
import { onceAsync } from '../../lib/lazy.ts';

/**
 * Stripe's API key and webhook signing secret, for the functions that talk to Stripe: inline
 * (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET) or one Secrets Manager secret
 * `{"secretKey", "webhookSecret"}` named by STRIPE_SECRET_ARN; an inline value wins over the secret's.
 */
interface StripeKeys {
  secretKey?: string;
  webhookSecret?: string;
}

async function loadKeys(): Promise<StripeKeys> {
  const { secretKey, webhookSecret, secretArn } = config().stripe;
  if (!secretArn || (secretKey && webhookSecret)) return { secretKey, webhookSecret };
  let stored: StripeKeys;
  try {
    stored = JSON.parse(await readSecret(secretArn)) as StripeKeys;
  } catch (error) {
    if (error instanceof SyntaxError) throw new Error('STRIPE_SECRET_ARN: the secret is not JSON {"secretKey","webhookSecret"}');
    throw error;
  }
  return { secretKey: secretKey ?? stored.secretKey, webhookSecret: webhookSecret ?? stored.webhookSecret };
}

/** Read once per cold start; a failed read is tried again by the next request. */
const stripeKeys = onceAsync(loadKeys);

export async function webhookSecret(): Promise<string> {
  const { webhookSecret } = await stripeKeys();
  if (!webhookSecret) throw new Error('No Stripe webhook secret configured (STRIPE_WEBHOOK_SECRET or STRIPE_SECRET_ARN)');
  return webhookSecret;
}

export const stripeApi = onceAsync(async (): Promise<Stripe> => {
  const { secretKey } = await stripeKeys();
  if (!secretKey) throw new Error('No Stripe secret key configured (STRIPE_SECRET_KEY or STRIPE_SECRET_ARN)');
  // Loaded on first use: the SDK is large, and the local runtime never needs it.
  const { stripeClient } = await import('../../lib/adapters/billing/stripe.ts');
  return stripeClient(secretKey);
});
