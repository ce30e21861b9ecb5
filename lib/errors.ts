/**
 * The domain's one error type. Domain code says what went wrong; `functions/http/errors.ts` turns a
 * kind into the spec's status code and body shape, in one place.
 */
export type ErrorKind =
  | 'bad_request' // 400
  | 'unauthenticated' // 401
  | 'payment_required' // 402
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'payload_too_large' // 413
  | 'too_many_requests' // 429
  | 'internal'; // 500

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Extra body fields the spec requires (for example `availableFields`). */
    readonly fields: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const badRequest = (message: string, fields?: Record<string, unknown>) =>
  new DomainError('bad_request', message, fields);
export const notFound = (message: string, fields?: Record<string, unknown>) => new DomainError('not_found', message, fields);
export const forbidden = (message: string, fields?: Record<string, unknown>) => new DomainError('forbidden', message, fields);
export const payloadTooLarge = (message: string, fields?: Record<string, unknown>) => new DomainError('payload_too_large', message, fields);
export const tooManyRequests = (message: string, fields?: Record<string, unknown>) => new DomainError('too_many_requests', message, fields);
export const internal = (message: string, fields?: Record<string, unknown>) => new DomainError('internal', message, fields);

/** What callers see of a failure that is not ours: SDK and provider text (ARNs, accounts) stays in the logs. */
export const unexpectedErrorText = 'Unexpected error';

/** A DomainError's message is our own words; anything else is shown only as `unexpectedErrorText`. */
export const shownMessage = (error: unknown): string => (error instanceof DomainError ? error.message : unexpectedErrorText);
