import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';
import { authTexts } from '../http/auth.ts';
import * as v from 'valibot';
import { bodyRefusals } from '../http/body.ts';
import { platformAnswers } from '../http/platform-limits.ts';
import { routeKey, routes, type AuthMode, type Route } from '../../routes.ts';
import { bodyLimitsOf, jsonAnswer, tags, type Answer, type Body, type Contract, type ParamsSchema, type Schema } from './contract.ts';
import { allContracts, components } from './all.ts';
import { errorAnswerOf } from './shapes.ts';

/**
 * The OpenAPI 3.1 document (issue 15), made from the route table and the routes' contracts: nothing
 * in it is written twice. Served at `GET /openapi.json`; linted, compared with the route table and
 * used to check every answer of the HTTP tests (test/support/api-contract.ts).
 */

/** The package's version (a test keeps them equal); docs/SPEC.md 9 shows no versioning scheme. */
export const apiVersion = '0.1.0';

type Json = Record<string, unknown>;

/** Our shared shapes as `#/components/schemas/<name>`, wherever a contract uses them. */
const conversion = (typeMode: 'input' | 'output'): ConversionConfig => ({
  target: 'draft-2020-12',
  typeMode,
  // A `check` is a rule JSON Schema cannot state, and a transform a reading of the value: the
  // schema's description says them in words.
  ignoreActions: ['check', 'raw_check', 'transform', 'raw_transform'],
  definitions: components,
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
});

function schemaOf(schema: Schema, typeMode: 'input' | 'output' = 'output'): JsonSchema {
  const { $schema: _s, $defs: _d, ...rest } = toJsonSchema(schema, conversion(typeMode));
  return rest;
}

/** The auth layer's plain-text answers for a mode (functions/_shared/http/auth.ts; docs/SPEC.md sections 5 and 7). */
export function authAnswers(mode: AuthMode): Record<number, Answer> {
  const noToken = { kind: 'text', description: 'No token was sent.', texts: [authTexts.noToken] } as const;
  const userGone = { kind: 'text', description: 'The token’s user no longer exists.', texts: [authTexts.userGone] } as const;
  switch (mode) {
    case 'none':
    case 'optional-lenient':
      return {};
    case 'optional':
      return { 403: { kind: 'text', description: 'The token is invalid or expired.', texts: [authTexts.invalidToken] }, 404: userGone };
    case 'required':
      return { 401: noToken, 403: { kind: 'text', description: 'The token is invalid or expired.', texts: [authTexts.invalidToken] }, 404: userGone };
    case 'editor':
      return {
        401: noToken,
        403: { kind: 'text', description: 'The token is invalid or expired, or its user is not an editor or admin.', texts: [authTexts.invalidToken, authTexts.noPermission] },
        404: userGone,
      };
    case 'admin':
      return {
        401: noToken,
        403: { kind: 'text', description: 'The token is invalid or expired, or its user is not an admin (editors included).', texts: [authTexts.invalidToken, authTexts.noPermission] },
        404: userGone,
      };
  }
}

const security: Record<AuthMode, Json[]> = {
  none: [],
  'optional-lenient': [{}, { bearer: [] }],
  optional: [{}, { bearer: [] }],
  required: [{ bearer: [] }],
  editor: [{ bearer: [] }],
  admin: [{ bearer: [] }],
};

const authNotes: Record<AuthMode, string> = {
  none: 'No token.',
  'optional-lenient': 'Token optional; an invalid token is read as no token.',
  optional: 'Token optional; an invalid token is refused (403).',
  required: 'Bearer token required.',
  editor: 'Bearer token of an editor or admin required.',
  admin: 'Bearer token of an admin required.',
};

/** `GET /ocr/books/{bookTextId}` → `getOcrBooksByBookTextId`. */
export function operationId(route: Pick<Route, 'method' | 'path'>): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith('{') ? `by-${part.slice(1, -1)}` : part))
    .join('-')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  const camel = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return route.method.toLowerCase() + camel;
}

function parameters(where: 'path' | 'query', schema: ParamsSchema | undefined): Json[] {
  if (!schema) return [];
  return Object.entries(schema.entries).map(([name, entry]) => {
    const optional = entry.type === 'optional' || entry.type === 'nullish';
    const { description, ...rest } = schemaOf(entry) as Json;
    return {
      name,
      in: where,
      required: where === 'path' || !optional,
      ...(description !== undefined && { description }),
      schema: rest,
    };
  });
}

function requestBody(body: Body | undefined): Json | undefined {
  if (!body) return undefined;
  // As the service reads them: what a pipeline accepts in the end, with the defaults it applies.
  if (body.kind === 'multipart') return { required: true, content: { 'multipart/form-data': { schema: schemaOf(body.schema) } } };
  return {
    required: body.required ?? false,
    content: { 'application/json': { schema: schemaOf(body.schema), ...(body.kind === 'json' && body.examples && { examples: body.examples }) } },
  };
}

const textSchema = (texts: readonly string[] | undefined) => (texts ? { type: 'string', enum: [...new Set(texts)] } : { type: 'string' });

/** One status's answers as a response object: one media type each, JSON schemas as `anyOf`, plain texts merged. */
function response(answers: readonly Answer[]): Json {
  const content: Record<string, Json> = {};
  const texts: string[] = [];
  let anyText = false;
  const jsons = answers.filter((a): a is Extract<Answer, { kind: 'json' }> => a.kind === 'json');
  if (jsons.length) {
    const schemas = [...new Map(jsons.map((a) => [a.schema, schemaOf(a.schema)])).values()];
    const examples = Object.assign({}, ...jsons.map((a) => a.examples ?? {})) as Record<string, unknown>;
    content['application/json'] = { schema: schemas.length === 1 ? schemas[0] : { anyOf: schemas }, ...(Object.keys(examples).length && { examples }) };
  }
  for (const answer of answers) {
    if (answer.kind === 'binary') content[answer.contentType] = { schema: { type: 'string', contentMediaType: answer.contentType } };
    if (answer.kind === 'text') {
      anyText ||= !answer.texts;
      texts.push(...(answer.texts ?? []));
    }
  }
  if (answers.some((a) => a.kind === 'text')) content['text/plain'] = { schema: textSchema(anyText ? undefined : texts) };
  const headers = Object.assign({}, ...answers.map((a) => a.headers ?? {})) as Record<string, string>;
  return {
    description: answers.map((a) => a.description).join(' Or: '),
    ...(Object.keys(headers).length && { headers: Object.fromEntries(Object.entries(headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }),
    content,
  };
}

/**
 * What the HTTP layer answers before a route with a body runs (functions/_shared/http/body.ts), within the
 * route's limits: a body that is not what its headers say, or nested too deep, is a 400; one too big,
 * with too many values or inflating too far a 413; a compressed one where the route takes none a
 * 415, beside the route's own answers of the status. A route without a body reads none.
 */
function bodyAnswers(route: Route, body: Body | undefined): Record<number, Answer> {
  if (!body) return {};
  const error = errorAnswerOf(route.function);
  const texts = (list: readonly string[]) => list.map((t) => `\`${t}\``).join(', ');
  const refusals = bodyRefusals(bodyLimitsOf(body));
  const answers: Record<number, Answer> = {
    400: error(`The body is not what its headers say, or nested too deep: ${texts(refusals[400])}.`),
    413: error(`The body is too big for the route: ${texts(refusals[413])}.`),
  };
  if (refusals[415].length > 0) answers[415] = error(`A compressed body (\`Content-Encoding: gzip\` or \`br\`): ${texts(refusals[415])}.`);
  return answers;
}

/** What API Gateway answers any route past its rate, before a function runs. */
const throttledAnswer = jsonAnswer(
  'API Gateway’s throttling: past the route’s requests a second (docs/decisions.md, "Maxima and caps"). Not locally.',
  v.strictObject({ message: v.literal(platformAnswers.throttled.message) }),
);

/** The contract's answers, the HTTP layer's, the auth layer's and the gateway's, by status. */
export function answersOf(contract: Contract, route: Route): Map<number, Answer[]> {
  const byStatus = new Map<number, Answer[]>();
  const add = (status: number, answer: Answer | readonly Answer[]) => byStatus.set(status, [...(byStatus.get(status) ?? []), ...[answer].flat()]);
  for (const [status, answer] of Object.entries(contract.responses)) add(Number(status), answer);
  for (const [status, answer] of Object.entries(bodyAnswers(route, contract.body))) add(Number(status), answer);
  for (const [status, answer] of Object.entries(authAnswers(route.auth))) add(Number(status), answer);
  add(platformAnswers.throttled.statusCode, throttledAnswer);
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

function operation(route: Route, contract: Contract): Json {
  const description = [contract.description, authNotes[route.auth]].filter(Boolean).join('\n\n');
  return {
    operationId: operationId(route),
    summary: contract.summary,
    description,
    tags: [contract.tag],
    security: security[route.auth],
    'x-maktaba-auth': route.auth,
    'x-maktaba-function': route.function,
    ...(contract.params || contract.query ? { parameters: [...parameters('path', contract.params), ...parameters('query', contract.query)] } : {}),
    ...(contract.body && { requestBody: requestBody(contract.body) }),
    responses: Object.fromEntries([...answersOf(contract, route)].map(([status, answers]) => [String(status), response(answers)])),
  };
}

export const contractOf = (route: Pick<Route, 'method' | 'path'>): Contract => {
  const contract = (allContracts as Record<string, Contract>)[routeKey(route)];
  if (!contract) throw new Error(`no contract for ${routeKey(route)}`);
  return contract;
};

/** The whole document. */
export function openApiDocument(): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, contractOf(route));
  }
  const defs = toJsonSchemaDefs(components, conversion('output')) as Record<string, JsonSchema>;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Maktaba API',
      version: apiVersion,
      summary: 'Digitized books (OCR), text-to-speech audio for book lines, and notifications.',
      description:
        'A bilingual (Arabic and English) book platform’s backend. Bodies are JSON unless stated; timestamps are ISO 8601; ids written ObjectId are 24 hexadecimal characters.\n\n' +
        'Answers larger than AWS Lambda allows are compressed when the client accepts Brotli or gzip, and otherwise answered with **303 See Other** to a signed URL of the same JSON.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This API (the document is served by it).' }],
    tags: Object.entries(tags).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A user’s access token (`sub` is the user id).' } },
      schemas: defs,
    },
  };
}
