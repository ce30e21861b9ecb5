import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { badRequest, payloadTooLarge } from '../../lib/errors.ts';

export const malformedJson = 'Malformed JSON body';
export const malformedGzip = 'Body is not valid gzip';
export const malformedBrotli = 'Body is not valid Brotli';

/**
 * A compressed body may inflate to at most this: a 2,000-page book's final result is about 15 MB of JSON,
 * and a small compressed body must not become gigabytes in memory (a zip bomb).
 */
export const maxInflatedBodyBytes = 60 * 1024 * 1024;
export const inflatedTooLarge = `Body is larger than ${maxInflatedBodyBytes / (1024 * 1024)} MB when decompressed`;

const gzipMagic = [0x1f, 0x8b];

/**
 * The request's bytes. A body sent with `Content-Encoding: gzip` or `br` (the OCR worker's large
 * final results, which exceed API Gateway's and Lambda's request limits as plain JSON; Brotli
 * carries a 2,000-page book's text where gzip cannot) is inflated here. HTTP APIs pass the
 * compressed bytes through, base64-encoded (the local server does the same); a gateway that already
 * inflated a gzip body (REST APIs do) leaves no gzip magic, and the bytes are used as they are.
 */
function requestBytes(event: APIGatewayProxyEventV2): Buffer {
  const bytes = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  const encoding = event.headers?.['content-encoding']?.trim().toLowerCase();
  const inflate = (run: () => Buffer, malformed: string) => {
    try {
      return run();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw payloadTooLarge(inflatedTooLarge);
      throw badRequest(malformed);
    }
  };
  if (encoding === 'br' && bytes.length > 0) return inflate(() => brotliDecompressSync(bytes, { maxOutputLength: maxInflatedBodyBytes }), malformedBrotli);
  if (encoding !== 'gzip' || bytes[0] !== gzipMagic[0] || bytes[1] !== gzipMagic[1]) return bytes;
  return inflate(() => gunzipSync(bytes, { maxOutputLength: maxInflatedBodyBytes }), malformedGzip);
}

/**
 * Parses a JSON body. Unlike @middy/http-json-body-parser, an empty body
 * (a DELETE with a JSON content type and nothing sent) reads as `{}`, so the route answers with the
 * spec's own 400 rather than a 415. A body that is not JSON also reads as `{}`, as in Express.
 */
export function parseJsonBody(event: APIGatewayProxyEventV2): { parsedBody: Record<string, unknown>; rawBody: Buffer } {
  const rawBody = requestBytes(event);
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
