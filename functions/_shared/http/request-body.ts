import * as v from 'valibot';
import { badRequest, internal, type DomainError } from '../../../lib/errors.ts';
import { here, type Body, type Issue } from '../contract/contract.ts';

/**
 * A JSON body read by its route's schema, the one parser of it (issue 30): the schema's output, or
 * the route's refusal of its first issue (checks run in the schema's order, and stop at the first).
 */
export function readBody(body: Extract<Body, { kind: 'json' | 'multipart' }>, input: unknown): unknown {
  const result = v.safeParse(body.kind === 'json' ? body.schema : body.fields, input, { abortEarly: true });
  if (result.success) return result.output;
  throw refusal(body, result.issues[0]);
}

/** The route's answer to an issue: its message, with where it is filled in, as the 400 or the 500. */
export function refusal(body: Extract<Body, { kind: 'json' | 'multipart' }>, issue: Issue): DomainError {
  const status = typeof body.invalid === 'function' ? body.invalid(issue) : body.invalid;
  if (typeof status !== 'number') return status;
  const message = issue.message.replaceAll(here, whereOf(issue));
  return status === 400 ? badRequest(message) : internal(message);
}

/**
 * The issue's place as the messages name it: `pages[3].text`, and `pages key 7` for a record's key.
 * valibot marks both a record's key and a key an object misses with `origin: 'key'`: a key the input
 * has is the record's; one it lacks is named as the field it is.
 */
export function whereOf(issue: Issue): string {
  let where = '';
  for (const item of issue.path ?? []) {
    const key = String(item.key);
    const ownKey = 'origin' in item && item.origin === 'key' && typeof item.input === 'object' && item.input !== null && Object.hasOwn(item.input, key as PropertyKey);
    if (ownKey) where = `${where} key ${key}`;
    else if (item.type === 'array') where = `${where}[${key}]`;
    else where = where ? `${where}.${key}` : key;
  }
  return where;
}
