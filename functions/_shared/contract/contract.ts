import type * as v from 'valibot';
import { defaultBodyLimits, type BodyLimits } from '../http/body.ts';
import { platformLimits } from '../http/platform-limits.ts';
import type { DomainError } from '../../../lib/errors.ts';

/**
 * A route's contract (issue 15): what it reads (path, query, body) and every answer it gives, per
 * status. Declared once per route beside the route table (`functions/_shared/contract/<group>.ts`, keyed by route
 * key); the handler parses its request with it, `document.ts` turns it into the OpenAPI document, and
 * the HTTP tests hold every answer to it. The auth layer's plain-text answers are not written here:
 * they follow from the route's auth mode (document.ts).
 *
 * Schemas are valibot's (docs/interface.md, "The API document": 8 KB and no measurable cold start, where zod 4
 * adds 445 KB and about 25 ms to every function that parses with it).
 */

export type Schema = v.GenericSchema;
export type Entries = v.ObjectEntries;
/** A path or query schema: an object of named entries, each one parameter. */
export type ParamsSchema = v.ObjectSchema<Entries, undefined> | v.LooseObjectSchema<Entries, undefined>;

export interface Example {
  summary: string;
  value: unknown;
}

/** One way a route answers a status: JSON, plain text (one of `texts` when known) or bytes; `headers` by name, with what each says. */
export type Answer = { description: string; headers?: Record<string, string> } & (
  | { kind: 'json'; schema: Schema; examples?: Record<string, Example> }
  | { kind: 'text'; texts?: readonly string[] }
  | { kind: 'binary'; contentType: string }
);

export const jsonAnswer = (description: string, schema: Schema, examples?: Record<string, Example>): Answer => ({ kind: 'json', description, schema, ...(examples && { examples }) });
export const textAnswer = (description: string, texts?: readonly string[]): Answer => ({ kind: 'text', description, ...(texts && { texts }) });
export const binaryAnswer = (description: string, contentType: string): Answer => ({ kind: 'binary', description, contentType });

/** A schema issue, as the body rule reads it. */
export type Issue = v.BaseIssue<unknown>;

/**
 * How a route answers a body its schema refuses: the spec's 400 or its (validation) 500, with the
 * first issue's message (functions/_shared/http/request-body.ts `refusal`), or per issue where the route
 * answers both (the final result: a missing field or a cap is the 400, a malformed field the 500),
 * or the route's own error where its 400 carries more than a message (an unknown voice lists the voices).
 */
export type Invalid = 400 | 500 | ((issue: Issue) => 400 | 500 | DomainError);

/**
 * Stands in a schema's message for where its issue is (`pages[3].text`, `pages key 7`): valibot
 * writes a message before it knows the path, so the reader fills it in from the issue's path.
 */
export const here = '\u0000here\u0000';

/**
 * A request body. A JSON body's schema is its one parser: the handler gets the schema's output (the
 * domain's typed input) when it asks for it (`request.body()`, after whatever the spec checks first),
 * and a refused body is answered as `invalid` says, in the group's error style. Fields the spec ignores when of the wrong type read as absent
 * (`ignoredUnless`, functions/_shared/contract/shapes.ts). `signed` bodies are not parsed before the handler has
 * checked their signature over the exact bytes (`rawBody`): the schema documents them. `limits`
 * widen the default bounds of a JSON body (functions/_shared/http/body.ts) where the route needs more. A
 * route without a body never has one read.
 */
export type Body =
  | { kind: 'json'; schema: Schema; invalid: Invalid; required?: boolean; examples?: Record<string, Example>; limits?: Partial<BodyLimits> }
  | { kind: 'signed'; schema: Schema; required?: boolean; limits?: Partial<BodyLimits> }
  /** A form: `schema` documents it; its file is the upload parser's, its other fields are read by `fields`. */
  | { kind: 'multipart'; schema: Schema; fields: Schema; invalid: Invalid };

/**
 * The bounds a route's body is read within: a JSON body's defaults and what its contract widens; a
 * multipart body (a file) is bounded by the API's own payload limit and the upload parser's.
 */
export const bodyLimitsOf = (body: Body): BodyLimits =>
  body.kind === 'multipart' ? { ...defaultBodyLimits, maxBytes: platformLimits.httpApiBodyBytes } : { ...defaultBodyLimits, ...body.limits };

export interface Contract {
  /** The reference page's group. */
  tag: Tag;
  summary: string;
  description?: string;
  /** Path parameters: documented; ids are checked by the domain (the spec's 500 for a malformed id). */
  params?: ParamsSchema;
  /** Query parameters, parsed before the handler runs: the handler reads the schema's output. */
  query?: ParamsSchema;
  body?: Body;
  /**
   * The operation text of the route's 500 (docs/SPEC.md: `{ message, error }`, `{ error, details }`
   * or `{ message }` by group): what the handler answers when it fails, and what the 500 answer's
   * prose quotes.
   */
  failure: string;
  /** Every answer but the auth layer's, by status. */
  responses: Record<number, Answer | readonly Answer[]>;
}

/** The reference page's groups, in its order, each with its description. */
export const tags = {
  'OCR jobs': 'Upload a scanned book (a PDF or page images), then follow its OCR job and read its text.',
  'Digitized books': 'Digitized books (BookTexts): the catalogue, reading, editing, importing as a Book and exporting to Word.',
  Search: 'Full-text search of digitized books, Arabic-aware: across the catalogue, or within one book (beyond docs/SPEC.md).',
  'OCR worker callbacks': 'How the OCR worker reports pages and the final result. Editor or admin token (the worker account).',
  Audio: 'Text-to-speech MP3 audio for the fields of book lines: voices, generation, playback, listings and deletion.',
  'Audio jobs': 'Background generation of a whole book in one voice. Editor or admin.',
  Notifications: 'Push device tokens and the in-app inbox. Every route needs a token.',
  Billing: 'The payment provider’s webhook.',
  Reference: 'This document and its reference page.',
  Operations: 'Not part of the product’s API (not in docs/SPEC.md): the service’s own health, for monitors and load balancers.',
} as const;
export type Tag = keyof typeof tags;

/** Keeps a group's contracts exactly the group's route keys, with their literal types. */
export const contracts = <const G extends Record<string, Contract>>(group: G): G => group;

/** The handler's view of its query: the schema's output when the contract has one. */
export type QueryOf<C extends Contract> = C['query'] extends ParamsSchema ? v.InferOutput<C['query']> : Record<string, string | undefined>;
/** The handler's view of its body: a JSON body's schema output; else nothing parsed (a signed body is read from `rawBody`, a form by its parser). */
export type BodyOf<C extends Contract> = C['body'] extends { kind: 'json'; schema: infer S extends Schema } ? v.InferOutput<S> : Record<string, never>;
/** A form's fields as its contract reads them. */
export type FormFieldsOf<C extends Contract> = C['body'] extends { kind: 'multipart'; fields: infer S extends Schema } ? v.InferOutput<S> : never;
