import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { badRequest } from '../../lib/errors.ts';

export const malformedJson = 'Malformed JSON body';

/**
 * Parses a JSON body. Unlike @middy/http-json-body-parser, an empty body
 * (a DELETE with a JSON content type and nothing sent) reads as `{}`, so the route answers with the
 * spec's own 400 rather than a 415. A body that is not JSON also reads as `{}`, as in Express.
 */
export function parseJsonBody(event: APIGatewayProxyEventV2): { parsedBody: Record<string, unknown>; rawBody: Buffer } {
  const rawBody = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  const contentType = event.headers?.['content-type'] ?? '';
  if (rawBody.length === 0 || !/^application\/(.+\+)?json\b/i.test(contentType)) return { parsedBody: {}, rawBody };
  let value: unknown;
  try {
    value = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw badRequest(malformedJson);
  }
  const parsedBody = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return { parsedBody, rawBody };
}
