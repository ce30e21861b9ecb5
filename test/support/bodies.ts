import { allContracts } from '../../functions/_shared/contract/all.ts';
import type { BodyOf, Contract } from '../../functions/_shared/contract/contract.ts';
import { readBody } from '../../functions/_shared/http/request-body.ts';
import type { User } from '../../lib/auth/users.ts';
import { bookToEdit, editBookText, type BookEditDeps } from '../../lib/ocr/pages/edit.ts';

type Contracts = typeof allContracts;
type JsonRoute = { [K in keyof Contracts]: Contracts[K] extends { body: { kind: 'json' } } ? K : never }[keyof Contracts];

/**
 * A request body read as its route reads it (its contract's schema, the one parser): the domain's
 * typed input, or the route's refusal thrown (a DomainError, as the handler answers it).
 */
export function bodyOf<K extends JsonRoute>(route: K, raw: unknown): BodyOf<Contracts[K]> {
  const body = (allContracts as Record<string, Contract>)[route]?.body;
  if (body?.kind !== 'json') throw new Error(`${route} takes no JSON body`);
  return readBody(body, raw) as BodyOf<Contracts[K]>;
}

/** A job's fields as the presigned path reads them (the same reading as `POST /ocr`'s form). */
export const jobFieldsOf = (fields: Record<string, unknown>) => bodyOf('POST /ocr/uploads/{uploadId}/job', fields);

/** `PATCH /ocr/books/:bookTextId` as the route runs it: who may edit the book first, then the body read by its contract. */
export async function editAs(deps: BookEditDeps, user: User, bookTextId: string | undefined, body: Record<string, unknown>) {
  return editBookText(deps, await bookToEdit(deps, user, bookTextId), bodyOf('PATCH /ocr/books/{bookTextId}', body));
}
