/**
 * The Billing port: invoices for OCR pages beyond a user's monthly credits (SPEC.md section 1).
 * Stripe on AWS; a ledger in the table for the local runtime. Both are idempotent per usage record:
 * invoicing the same `usageId` twice returns the first invoice and charges nothing more.
 */
export interface OverageCharge {
  /** The usage record this charge is for; the idempotency key of every provider call. */
  usageId: string;
  userId: string;
  /** The user's customer at the payment provider (User.stripeCustomerId). */
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

/** The payment provider's customers: which user each one was made for. */
export interface Customers {
  /** The user id a customer was made for; undefined when it names none or is deleted. */
  userIdOf(customerId: string): Promise<string | undefined>;
}

/** An overage invoice as the CLI's `billing invoices USER_ID` prints it (local-runtime.md). */
export interface InvoiceRecord {
  jobId: string;
  pages: number;
  amountCents: number;
  status: string;
  createdAt: string;
}
