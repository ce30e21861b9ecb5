import { DomainError, shownMessage, type ErrorKind } from '../../../lib/errors.ts';
import type { FunctionName } from '../../routes.ts';
import { json, text, type HttpResult } from './responses.ts';

export const statusOf: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  internal: 500,
};

/**
 * How an endpoint group writes its error bodies. `failure` is the route's operation text for 500s
 * (for example `Error fetching notifications`); `detail` is safe to show: a DomainError's message,
 * else our own `Unexpected error` (lib/errors.ts): an SDK's message can carry ARNs and account ids, and
 * even its error name is the provider's word (issue 12: only our words reach callers). The logs keep
 * the whole error.
 */
export interface ErrorStyle {
  body(error: DomainError, failure: string): unknown;
  internal(failure: string, detail: string): unknown;
}

/** The notifications group: `{message}`, and `{message: <operation>, error: <detail>}` for 500. */
export const messageStyle: ErrorStyle = {
  body: (error) => ({ message: error.message, ...error.fields }),
  internal: (failure, detail) => ({ message: failure, error: detail }),
};

/** The answer an error carries: its status, in the body it asks for; anything else is the group's 500. */
export function errorResponse(error: unknown, style: ErrorStyle, failure: string): HttpResult {
  if (error instanceof DomainError) {
    const status = statusOf[error.kind];
    if (error.body === 'plain-text') return text(status, error.message);
    if (error.body === 'fields') return json(status, { ...error.fields, message: error.message });
    if (error.kind !== 'internal') return json(status, style.body(error, failure));
  }
  return json(500, style.internal(failure, shownMessage(error)));
}

/** Whether a failure is ours to look into (logged as an error): anything but a DomainError saying otherwise. */
export const isLogged = (error: unknown): boolean => !(error instanceof DomainError) || error.logged;

/**
 * The OCR groups: the spec shows few OCR error bodies (section 7), so every one takes the shape of
 * its success bodies: `{success: false, message}` plus the spec's extra fields, and for 500
 * `{success: false, message: <operation>, error: <detail>}`.
 */
export const ocrStyle: ErrorStyle = {
  body: (error) => ({ success: false, message: error.message, ...error.fields }),
  internal: (failure, detail) => ({ success: false, message: failure, error: detail }),
};

/**
 * The audio group (docs/SPEC.md section 7): `{error}` plus the spec's extra fields, and for 500
 * `{error: <operation>, details: <detail>}` (the 402 writes its own fields: lib/audio/access.ts).
 */
export const audioStyle: ErrorStyle = {
  body: (error) => ({ error: error.message, ...error.fields }),
  internal: (failure, detail) => ({ error: failure, details: detail }),
};

/** Each function's error style: its group's (docs/SPEC.md 7). */
export const styleOf: Record<FunctionName, ErrorStyle> = {
  'ocr-api': ocrStyle,
  'ocr-callbacks': ocrStyle,
  'ocr-export': ocrStyle,
  // Its routes are under /ocr: the OCR group's style.
  'audio-api': audioStyle,
  'notifications-api': messageStyle,
  'billing-webhook': messageStyle,
  'api-docs': messageStyle,
  'search-api': ocrStyle,
  health: messageStyle,
};
