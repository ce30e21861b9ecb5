/**
 * The Billing port: invoices for OCR pages beyond a user's monthly credits (docs/SPEC.md section 1).
 * Stripe on AWS; a ledger in the table for the local runtime. Both are idempotent per usage record:
 * invoicing the same `usageId` twice returns the first invoice and charges nothing more.
 */
export interface OverageCharge {
  /** The usage record this charge is for; the idempotency key of every provider call. */
  usageId: string;
  userId: string;
  /** The user's customer at the payment provider (User.stripeCustomerId); every adapter refuses a charge without one. */
  customerId: string | undefined;
  jobId: string;
  /** Pages billed (beyond the credits). */
  pages: number;
  amountCents: number;
  description: string;
  createdAt: string;
}

export interface Invoice {
  invoiceId: string;
  /** The provider's invoice status (`open`, `paid`, ...). */
  status: string;
}

export interface Billing {
  invoiceOverage(charge: OverageCharge): Promise<Invoice>;
}

/**
 * A charge for a user without a customer at the payment provider. Stripe refuses an invoice without
 * one (`Missing required param: customer`), so every adapter refuses it before any call, the local
 * ledger too, and the billing worker settles the usage `no_customer` once its attempts are spent.
 */
export class NoCustomerError extends Error {
  constructor(charge: Pick<OverageCharge, 'usageId' | 'userId'>) {
    super(`Cannot invoice usage ${charge.usageId}: user ${charge.userId} has no Stripe customer`);
    this.name = 'NoCustomerError';
  }
}

/** The charge's customer, or the refusal every provider gives a charge without one. */
export function customerOf(charge: OverageCharge): string {
  if (!charge.customerId) throw new NoCustomerError(charge);
  return charge.customerId;
}

/**
 * Where a user's customer at the payment provider is kept (User.stripeCustomerId). Written only
 * from a verified Stripe event (the webhook) or by the service itself (the local seed), never
 * from a client's value.
 */
export interface UserCustomers {
  /**
   * Makes `customerId` the user's customer, as told by a Stripe event created at `eventCreated`
   * (epoch seconds), unless the stored one came from a newer event; with `onlyIfNone`, only when
   * the user has none. False, writing nothing, then, and when there is no such user.
   */
  link(userId: string, customerId: string, eventCreated: number, options: { onlyIfNone: boolean }): Promise<boolean>;
}

/** The payment provider's customers: which user each one was made for. */
export interface Customers {
  /** The user id a customer was made for; undefined when it names none or is deleted. */
  userIdOf(customerId: string): Promise<string | undefined>;
}

/** An overage invoice as the CLI's `billing invoices USER_ID` prints it (docs/local-runtime.md). */
export interface InvoiceRecord {
  jobId: string;
  pages: number;
  amountCents: number;
  status: string;
  createdAt: string;
}
