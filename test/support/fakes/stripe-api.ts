import Stripe from 'stripe';

/** One request the SDK made, as Stripe would receive it. */
export interface Sent {
  method: string;
  path: string;
  form: Record<string, string>;
  idempotencyKey: string | null;
}

export type Reply = { status: number; body: unknown; headers?: Record<string, string> };

/** A fake of Stripe's HTTP API: records each request and answers from `route`. */
export function fakeStripe(route: (sent: Sent, attempt: number) => Reply) {
  const sent: Sent[] = [];
  const fetch = async (url: string | URL | globalThis.Request, init?: RequestInit) => {
    const request: Sent = {
      method: init?.method ?? 'GET',
      path: new URL(String(url)).pathname,
      form: Object.fromEntries(new URLSearchParams(String(init?.body ?? ''))),
      idempotencyKey: new Headers(init?.headers).get('idempotency-key'),
    };
    sent.push(request);
    const attempt = sent.filter((s) => s.method === request.method && s.path === request.path).length;
    const reply = route(request, attempt);
    return new Response(JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'content-type': 'application/json', 'request-id': `req_${sent.length}`, ...reply.headers },
    });
  };
  return { sent, fetch };
}

/** The Stripe SDK over a fake's `fetch`. */
export const client = (fetch: ReturnType<typeof fakeStripe>['fetch'], maxNetworkRetries = 0) =>
  new Stripe('sk_test_x', { httpClient: Stripe.createFetchHttpClient(fetch), maxNetworkRetries });

/**
 * Stripe's answers for the three calls of one overage invoice. As Stripe does, an invoice or an
 * invoice item without a customer is refused with a 400 (`parameter_missing`).
 */
export function stripeApi(sent: Sent): Reply {
  const needsCustomer = sent.path === '/v1/invoices' || sent.path === '/v1/invoiceitems';
  if (needsCustomer && !sent.form.customer) {
    const error = { type: 'invalid_request_error', code: 'parameter_missing', param: 'customer', message: 'Missing required param: customer.' };
    return { status: 400, body: { error } };
  }
  if (sent.path === '/v1/invoices') return { status: 200, body: { id: 'in_123', object: 'invoice', status: 'draft', customer: sent.form.customer } };
  if (sent.path === '/v1/invoiceitems') return { status: 200, body: { id: 'ii_456', object: 'invoiceitem', invoice: 'in_123' } };
  if (sent.path === '/v1/invoices/in_123/finalize') return { status: 200, body: { id: 'in_123', object: 'invoice', status: 'open' } };
  return { status: 404, body: { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${sent.path})` } } };
}
