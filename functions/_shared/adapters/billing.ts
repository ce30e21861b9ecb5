import { ledgerBilling } from '../../../lib/adapters/billing/ledger.ts';
import type { Billing } from '../../../lib/billing/billing.ts';
import { config } from '../../../lib/config.ts';
import { deps } from '../deps.ts';
import { stripeApi } from '../stripe.ts';

/** Overage invoicing: Stripe on AWS; the table's ledger locally (the CLI's `billing invoices`). */
export async function billingAdapter(): Promise<Billing> {
  if (config().adapters === 'local') return ledgerBilling(deps().db);
  const [{ stripeBilling }, api] = await Promise.all([import('../../../lib/adapters/billing/stripe.ts'), stripeApi()]);
  return stripeBilling(api);
}
