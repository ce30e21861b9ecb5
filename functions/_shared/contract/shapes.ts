import * as v from 'valibot';
import { unexpectedErrorText } from '../../../lib/errors.ts';
import { audioStyle, messageStyle, ocrStyle, styleOf, type ErrorStyle } from '../http/errors.ts';
import type { FunctionName } from '../../routes.ts';
import { splitList } from '../../../lib/ocr/book-text.ts';
import { defaultListLimit, maxLimit, maxOffset, queryInt } from '../../../lib/paging.ts';
import { answerRules } from '../http/big-answers.ts';
import { jsonAnswer, type Answer } from './contract.ts';

/** Shapes every group uses. Named ones (`sharedSchemas`) are components of the document. */

/** A lifetime in the prose's words, from the constant that sets it: `5 minutes`, `1 hour`, `2 hours`, `1 day`. */
export function lifetime(seconds: number): string {
  const [n, unit] =
    seconds % 86_400 === 0 ? [seconds / 86_400, 'day'] : seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : seconds % 60 === 0 ? [seconds / 60, 'minute'] : [seconds, 'second'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

export const objectId = v.pipe(v.string(), v.description('An ObjectId: 24 hexadecimal characters.'), v.examples(['66f1c2a9e4b0a1b2c3d4e5f6']));
export const uuid = v.pipe(v.string(), v.description('A UUID.'), v.examples(['0b6f3c1e-8a2d-4c55-9e0f-3a7b2c1d4e5f']));
export const timestamp = v.pipe(v.string(), v.description('An ISO 8601 timestamp.'), v.examples(['2026-11-23T09:30:00.000Z']));
export const nullableTimestamp = v.nullable(timestamp);

/** A path parameter: any text; the domain answers a malformed id as the spec says (often 500). */
export const pathId = (description: string) => v.pipe(v.string(), v.description(description));

/**
 * A whole-number query value, read by lib/paging.ts's rule: anything but digits takes the default.
 * Past `max` it is clamped (`over: 'clamp'`), or refused with a 400 naming the parameter and the
 * maximum (`over: 'refuse'`, a position past the listing window).
 */
export function queryNumber(name: string, o: { fallback: number; min: number; max?: number; over?: 'clamp' | 'refuse'; description: string }) {
  const { max } = o;
  const read = (value: string) => {
    const n = queryInt(value, o.fallback, o.min);
    return o.over === 'clamp' && max !== undefined ? Math.min(n, max) : n;
  };
  const about = [v.description<number, string>(o.description), v.metadata<number, { default: number }>({ default: o.fallback })] as const;
  // A default, so that the value is never undefined after parsing; '' reads as the fallback.
  const number = v.pipe(v.optional(v.string(), ''), v.transform(read), v.number(), v.minValue(o.min));
  return max === undefined ? v.pipe(number, v.integer(), ...about) : v.pipe(number, v.maxValue(max, `${name} must be at most ${max}`), v.integer(), ...about);
}

/** `offset` or `pageOffset`: 0..maxOffset, default 0, refused past the window. */
export const queryOffset = (name: string, description: string) => queryNumber(name, { fallback: 0, min: 0, max: maxOffset, over: 'refuse', description });

/** A query value that is one of `values` when given; any other value reads as `fallback`. */
export function queryChoice<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number] | undefined, description: string) {
  return v.pipe(
    v.optional(v.string(), ''),
    v.transform((value: string): T[number] | undefined => ((values as readonly string[]).includes(value) ? (value as T[number]) : fallback)),
    v.optional(v.picklist(values)),
    v.description(description),
    v.metadata(fallback === undefined ? {} : { default: fallback }),
  );
}

/** `true` unless the value is something else (docs/SPEC.md: "only the value `true`"). */
export const queryFlag = (description: string) =>
  v.pipe(
    v.optional(v.string(), 'true'),
    v.transform((value) => value === 'true'),
    v.boolean(),
    v.description(description),
    v.metadata({ default: true }),
  );

/** The notifications group's error bodies (docs/SPEC.md 7): `{message}`; a 500 adds `error`. */
const messageError = v.pipe(
  v.looseObject({ message: v.string(), error: v.optional(v.string()) }),
  v.description(`A notifications error: \`message\`, and for a 500 the operation in \`message\` and \`error\` (our own words, \`${unexpectedErrorText}\` for anything unexpected).`),
);

/** The OCR groups' error bodies: the shape of their success bodies (docs/decisions.md, "OCR error bodies"). */
const ocrError = v.pipe(
  v.looseObject({ success: v.literal(false), message: v.string(), error: v.optional(v.string()) }),
  v.description('An OCR error: `success: false` and `message`, plus the spec’s fields where it names them (`error`, `subscriptionRequired`).'),
);

/** The audio group's error bodies (docs/SPEC.md 7): `{error}` and the spec's fields; a 500 adds `details`. */
const audioError = v.pipe(
  v.looseObject({ error: v.string(), details: v.optional(v.string()) }),
  v.description('An audio error: `error`, plus the spec’s fields (`availableFields`, `availableVoices`, `invalidFields`); a 500 carries `details`.'),
);

/** A big answer handed over through the bucket (functions/_shared/http/big-answers.ts). */
const handedOver = v.pipe(
  v.strictObject({ success: v.literal(true), url: v.pipe(v.string(), v.url()) }),
  v.description(`The answer was too large for AWS Lambda even compressed: it waits at \`url\` (and in \`Location\`) for ${lifetime(answerRules.urlSeconds)}.`),
);

export const sharedSchemas = { MessageError: messageError, OcrError: ocrError, AudioError: audioError, HandedOver: handedOver };

export const messageErrorAnswer = (description: string): Answer => jsonAnswer(description, messageError);
export const ocrErrorAnswer = (description: string): Answer => jsonAnswer(description, ocrError);
export const audioErrorAnswer = (description: string): Answer => jsonAnswer(description, audioError);
const errorAnswerByStyle = new Map<ErrorStyle, (description: string) => Answer>([
  [messageStyle, messageErrorAnswer],
  [ocrStyle, ocrErrorAnswer],
  [audioStyle, audioErrorAnswer],
]);
/** A function's error answer, in its group's style (functions/_shared/http/errors.ts). */
export const errorAnswerOf = (name: FunctionName) => errorAnswerByStyle.get(styleOf[name])!;

/** The 303 of a JSON answer too large for Lambda. */
export const handedOverAnswer: Answer = {
  ...jsonAnswer('Too large for AWS Lambda even compressed: follow `Location` (the same JSON).', handedOver),
  headers: { Location: `The signed URL of the answer, valid ${lifetime(answerRules.urlSeconds)}.` },
};

// Listing queries

/** A list's `limit` (docs/SPEC.md 8): default 20, larger values read as `maxLimit` (docs/decisions.md, "Maxima and caps"). */
export const listLimit = queryNumber('limit', {
  fallback: defaultListLimit,
  min: 1,
  max: maxLimit,
  over: 'clamp',
  description: `Page size: a whole number, at most ${maxLimit} (larger values read as ${maxLimit}); anything else reads as ${defaultListLimit}.`,
});

/** A list's `offset`: 0..maxOffset, refused past the listing window. */
export const listOffset = queryOffset('offset', `Entries to skip: a whole number, at most ${maxOffset} (400 past it); anything else reads as 0.`);

/** Free text; empty reads as absent. */
export const queryText = (description: string) =>
  v.pipe(
    v.optional(v.string(), ''),
    v.transform((value) => value || undefined),
    v.optional(v.string()),
    v.description(description),
  );

/** A comma-separated list, trimmed, empties dropped; a repeated parameter reaches the function joined by commas (API Gateway), so both forms read alike. */
export const queryList = (description: string) =>
  v.pipe(v.optional(v.string(), ''), v.transform((value: string) => splitList(value)), v.array(v.string()), v.description(description));

/** One of `values` when given (empty reads as absent); any other value is a 400 `<name> must be one of ...`. */
export function queryOneOf<const T extends readonly [string, ...string[]]>(name: string, values: T, description: string) {
  return v.pipe(
    v.optional(v.string(), ''),
    v.transform((value) => value || undefined),
    v.optional(v.picklist(values, `${name} must be one of ${values.join(', ')}`)),
    v.description(description),
  );
}

// Reading request bodies: each route's body schema is its one parser (functions/_shared/contract/contract.ts `Body`).

type AnySchema = v.GenericSchema;

/**
 * An optional field read as absent when it is not what `is` accepts (docs/SPEC.md: a field of the
 * wrong type is ignored); a value it accepts is then checked by `schema`, which also documents it.
 */
export const ignoredUnless = <S extends AnySchema>(is: (value: unknown) => boolean, schema: S) =>
  v.optional(
    v.pipe(
      v.unknown(),
      v.transform((value) => (is(value) ? value : undefined) as v.InferInput<S> | undefined),
      v.optional(schema),
    ),
  );

export const isString = (value: unknown): value is string => typeof value === 'string';
export const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';
export const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value the spec counts as sent: a non-empty string, or anything else but null. */
const present = (value: unknown) => (typeof value === 'string' ? value !== '' : value !== undefined && value !== null);

/** One issue naming every required field not sent, in the order given: `Missing required fields: a, b`. */
export const requiredFields = (names: readonly string[]) =>
  v.rawCheck<Record<string, unknown>>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const missing = names.filter((name) => !present(dataset.value[name]));
    if (missing.length) addIssue({ message: `Missing required fields: ${missing.join(', ')}` });
  });

/** A required id read as text whatever its type (the domain checks its form where it matters); `documented` says what it is. */
export const anyId = <S extends v.GenericSchema<string, string>>(documented: S) => v.pipe(v.unknown(), v.transform(String), documented);

/**
 * Reads the value by the schema `by` picks for it (an array or an object of one field, say), in the
 * spec's words and order; its first issue is forwarded with its path, and in `issues` for the route's
 * refusal rule. A schema after it documents the field (and gives its output).
 */
export const readBy = <T>(by: (value: T) => v.GenericSchema) =>
  v.rawCheck<T>(({ dataset, addIssue }) => {
    const result = v.safeParse(by(dataset.value as T), dataset.value, { abortEarly: true });
    if (result.success) return;
    const [issue] = result.issues;
    // valibot keeps `issues` on the issue it adds, though its type does not name it.
    addIssue({ message: issue.message, input: issue.input, path: issue.path, issues: [issue] } as v.RawCheckIssueInfo<T>);
  });
