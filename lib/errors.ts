/**
 * The domain's one error type. It carries what its answer needs: the kind (one status each,
 * `functions/_shared/http/errors.ts`), the spec's extra fields, how its body is written, and whether it is
 * ours to look into. Its message is our own words and may be shown to the caller; any other error's
 * never is (`shownMessage`).
 */
export type ErrorKind =
  | 'bad_request' // 400
  | 'unauthenticated' // 401
  | 'payment_required' // 402
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'payload_too_large' // 413
  | 'unsupported_media_type' // 415
  | 'too_many_requests' // 429
  | 'internal'; // 500

/**
 * How the answer's body is written:
 * - `group`: the endpoint group's JSON shape (`{message}`, `{success: false, message}`, `{error}`);
 * - `plain-text`: the message alone, as the spec's auth layer and upload parser answer;
 * - `fields`: the spec's fields with the message (the audio 402, docs/SPEC.md 4.2).
 */
export type ErrorBody = 'group' | 'plain-text' | 'fields';

export interface DomainErrorOptions {
  /** Extra body fields the spec requires (for example `availableFields`). */
  fields?: Record<string, unknown>;
  body?: ErrorBody;
  /** Logged as an error: by default only `internal` failures; a client's refused file is not ours. */
  logged?: boolean;
}

export class DomainError extends Error {
  readonly fields: Record<string, unknown>;
  readonly body: ErrorBody;
  readonly logged: boolean;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.fields = options.fields ?? {};
    this.body = options.body ?? 'group';
    this.logged = options.logged ?? kind === 'internal';
  }
}

export const badRequest = (message: string, fields?: Record<string, unknown>) => new DomainError('bad_request', message, { fields });
export const notFound = (message: string, fields?: Record<string, unknown>) => new DomainError('not_found', message, { fields });
export const forbidden = (message: string, fields?: Record<string, unknown>) => new DomainError('forbidden', message, { fields });
export const payloadTooLarge = (message: string, fields?: Record<string, unknown>) => new DomainError('payload_too_large', message, { fields });
export const unsupportedMediaType = (message: string) => new DomainError('unsupported_media_type', message);
export const tooManyRequests = (message: string, fields?: Record<string, unknown>) => new DomainError('too_many_requests', message, { fields });
export const internal = (message: string, fields?: Record<string, unknown>) => new DomainError('internal', message, { fields });

/** What callers see of a failure that is not ours: SDK and provider text (ARNs, accounts) stays in the logs. */
export const unexpectedErrorText = 'Unexpected error';

/** A DomainError's message is our own words; anything else is shown only as `unexpectedErrorText`. */
export const shownMessage = (error: unknown): string => (error instanceof DomainError ? error.message : unexpectedErrorText);
