import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../functions/_shared/contract/document.ts';

/**
 * Holds an answer to the OpenAPI document (issue 15): its status must be documented for its route,
 * its content type among that status's, and its body valid against that schema. Checked against the
 * served document itself (not the valibot schemas it is made from), so what clients read is what
 * the tests saw. Used by test/support/api.ts on every answer of the local server.
 */

type Json = Record<string, unknown>;
const document = openApiDocument();
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(document, 'api');

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
const validators = new Map<string, ValidateFunction>();
function validatorFor(...parts: string[]): ValidateFunction {
  const ref = `api#/${pointer(...parts)}`;
  let validate = validators.get(ref);
  if (!validate) validators.set(ref, (validate = ajv.compile({ $ref: ref })));
  return validate;
}

function bodyBytes(result: APIGatewayProxyStructuredResultV2, header: (name: string) => string | undefined): Buffer {
  const bytes = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  const encoding = header('content-encoding');
  if (encoding === 'br') return brotliDecompressSync(bytes);
  if (encoding === 'gzip') return gunzipSync(bytes);
  return bytes;
}

/** Why the answer breaks its route's contract, or undefined when it keeps it. */
export function contractBreach(routeKey: string, result: APIGatewayProxyStructuredResultV2): string | undefined {
  const [method, path] = routeKey.split(' ') as [string, string];
  const operation = ((document.paths as Record<string, Record<string, Json>>)[path] ?? {})[method.toLowerCase()];
  if (!operation) return `${routeKey} is not in the document`;
  const status = String(result.statusCode ?? 200);
  const responses = operation.responses as Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
  const documented = responses[status];
  const where = `${routeKey} ${status}`;
  if (!documented) return `${where}: status not documented (documented: ${Object.keys(responses).join(', ')}); body ${String(result.body).slice(0, 300)}`;
  const header = (name: string) => Object.entries(result.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1]?.toString().toLowerCase();
  const mediaType = (header('content-type') ?? '').split(';')[0]!.trim();
  const missingHeaders = Object.keys(documented.headers ?? {}).filter((name) => header(name.toLowerCase()) === undefined);
  if (missingHeaders.length) return `${where}: documented headers missing: ${missingHeaders.join(', ')}`;
  const content = documented.content ?? {};
  if (!(mediaType in content)) return `${where}: content type ${mediaType || '(none)'} not documented (documented: ${Object.keys(content).join(', ')})`;
  const bytes = bodyBytes(result, header);
  let value: unknown;
  if (mediaType === 'application/json') {
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      return `${where}: body is not JSON`;
    }
  } else if (mediaType === 'text/plain') value = bytes.toString('utf8');
  else return bytes.length > 0 ? undefined : `${where}: empty ${mediaType} body`;
  const validate = validatorFor('paths', path, method.toLowerCase(), 'responses', status, 'content', mediaType, 'schema');
  if (validate(value)) return undefined;
  const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  return `${where} ${mediaType}: ${errors.join('; ')}; body ${JSON.stringify(value).slice(0, 400)}`;
}
