import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../../../lib/errors.ts';

/**
 * Reading a request body at the cost of an ordinary request of its route, whatever a client sends
 * (issue 27): every bound holds before the bytes are inflated or parsed, not after. A body is read
 * only on a route whose contract has one; compressed only where the route accepts it, which only a
 * signed-in caller's routes may (the handler reads the body after the caller is resolved); inflated
 * at most to the route's size and to `maxCompressionRatio` times what was sent; and its JSON shape
 * (values, nesting) counted by a scan that allocates nothing before `JSON.parse` builds it.
 */
export interface BodyLimits {
  /** Bytes of the body as the route reads it (inflated, when it came compressed). */
  maxBytes: number;
  /** JSON values: each object and array, and each item or member after the first of one (its commas). */
  maxValues: number;
  /** Objects and arrays open at once. */
  maxDepth: number;
  /** Whether the body may come `Content-Encoding: gzip` or `br`: only where the caller must sign in. */
  compressed: boolean;
}

/**
 * A JSON route's body unless its contract says more: every such route takes a few fields (a device
 * token, a voice, an upload's form; `jobMetadata` at most 16 KB of JSON), never compressed.
 */
export const defaultBodyLimits: BodyLimits = { maxBytes: 256 * 1024, maxValues: 10_000, maxDepth: 32, compressed: false };

/**
 * What a compressed body may inflate to at most, on the routes that take the biggest (the final
 * result, `PATCH`): a 2,000-page book's final result is about 15 MB of JSON; Arabic text escaped as
 * `\uXXXX` is six bytes a letter.
 */
export const maxInflatedBodyBytes = 60 * 1024 * 1024;

/**
 * How many times its compressed size a body may inflate: JSON text compresses 4 to 10 times (a
 * 2,000-page book's final result 4.4 times in Brotli), so a big body past this is built to inflate.
 * Any body may inflate to `ratioFloorBytes` (within its route's size): what a route that takes
 * compressed bodies reads in an ordinary request (a `PATCH` of 1,000 pages is 7.2 MB), and what a
 * worker's text of repeated lines, which compresses a hundredfold, needs.
 */
export const maxCompressionRatio = 50;
export const ratioFloorBytes = 8 * 1024 * 1024;

export const malformedJson = 'Malformed JSON body';
export const malformedGzip = 'Body is not valid gzip';
export const malformedBrotli = 'Body is not valid Brotli';
export const notCompressible = 'This route takes its body uncompressed: send it without Content-Encoding';
export const overRatio = `Body inflates to more than ${maxCompressionRatio} times its compressed size`;
export const tooLargeText = (limits: Pick<BodyLimits, 'maxBytes' | 'compressed'>): string =>
  `Body is larger than ${formatBytes(limits.maxBytes)}${limits.compressed ? ' when decompressed' : ''}`;
export const tooManyValues = (limits: Pick<BodyLimits, 'maxValues'>): string => `JSON body has more than ${limits.maxValues.toLocaleString('en-US')} values`;
export const tooDeep = (limits: Pick<BodyLimits, 'maxDepth'>): string => `JSON body is nested more than ${limits.maxDepth} levels deep`;
/** The inflated-size refusal of the routes that take the biggest bodies (kept for their documents and tests). */
export const inflatedTooLarge = tooLargeText({ maxBytes: maxInflatedBodyBytes, compressed: true });

/** What a route's body may be refused with, by status, within its limits: its document lists them. */
export function bodyRefusals(limits: BodyLimits): Record<400 | 413 | 415, string[]> {
  return {
    400: [malformedJson, tooDeep(limits), ...(limits.compressed ? [malformedGzip, malformedBrotli] : [])],
    413: [tooLargeText(limits), tooManyValues(limits), ...(limits.compressed ? [overRatio] : [])],
    415: limits.compressed ? [] : [notCompressible],
  };
}

function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1 ? `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;
}

const gzipMagic = [0x1f, 0x8b];

/**
 * The request's bytes, inflated when the route takes compressed bodies. The OCR worker sends big
 * final results compressed (Brotli carries a 2,000-page book's text where gzip cannot fit Lambda's
 * 6 MB). HTTP APIs pass the compressed bytes through, base64-encoded (the local server does the same);
 * a gateway that already inflated a gzip body (REST APIs do) leaves no gzip magic, and the bytes are
 * used as they are.
 */
function requestBytes(event: APIGatewayProxyEventV2, limits: BodyLimits): Buffer {
  const encoding = event.headers?.['content-encoding']?.trim().toLowerCase();
  const compressed = encoding === 'br' || encoding === 'gzip';
  // What was sent is already in memory, within Lambda's 6 MB event: decoding it costs no more.
  const bytes = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  if (!compressed || bytes.length === 0) return checkedSize(bytes, limits);
  const isGzip = bytes[0] === gzipMagic[0] && bytes[1] === gzipMagic[1];
  if (encoding === 'gzip' && !isGzip) return checkedSize(bytes, limits);
  if (!limits.compressed) throw unsupportedMediaType(notCompressible);
  const ratioBound = Math.max(ratioFloorBytes, bytes.length * maxCompressionRatio);
  const maxOutputLength = Math.min(limits.maxBytes, ratioBound);
  try {
    return encoding === 'br' ? brotliDecompressSync(bytes, { maxOutputLength }) : gunzipSync(bytes, { maxOutputLength });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw badRequest(encoding === 'br' ? malformedBrotli : malformedGzip);
    throw payloadTooLarge(maxOutputLength === limits.maxBytes ? tooLargeText(limits) : overRatio);
  }
}

const checkedSize = (bytes: Buffer, limits: BodyLimits) => {
  if (bytes.length > limits.maxBytes) throw payloadTooLarge(tooLargeText(limits));
  return bytes;
};

const quote = 0x22;
const backslash = 0x5c;

/**
 * Counts the JSON's values and nesting before it is parsed, and refuses past the limits: what
 * `JSON.parse` would build is bounded by these, not by the bytes (60 MB of `[{},{},…]` is 20 million
 * objects, gigabytes). Strings are skipped with `indexOf` (native), so a body of text costs little
 * more than its bytes; malformed JSON is left for `JSON.parse` to refuse.
 */
export function checkJsonShape(bytes: Buffer, limits: Pick<BodyLimits, 'maxValues' | 'maxDepth'>): void {
  let depth = 0;
  let values = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === quote) {
      // To the closing quote: one not escaped by an odd run of backslashes.
      for (;;) {
        const end = bytes.indexOf(quote, i + 1);
        if (end < 0) return;
        let escapes = 0;
        while (bytes[end - 1 - escapes] === backslash) escapes++;
        i = end;
        if (escapes % 2 === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limits.maxDepth) throw badRequest(tooDeep(limits));
      if (++values > limits.maxValues) throw payloadTooLarge(tooManyValues(limits));
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2c) {
      if (++values > limits.maxValues) throw payloadTooLarge(tooManyValues(limits));
    }
  }
}

/**
 * Reads a route's JSON body within its limits. Unlike @middy/http-json-body-parser, an empty body (a
 * DELETE with a JSON content type and nothing sent) reads as `{}`, so the route answers with the
 * spec's own 400 rather than a 415. A body that is not JSON also reads as `{}`, as in Express.
 */
export function parseJsonBody(event: APIGatewayProxyEventV2, limits: BodyLimits = defaultBodyLimits): { parsedBody: Record<string, unknown>; rawBody: Buffer } {
  const rawBody = requestBytes(event, limits);
  const contentType = event.headers?.['content-type'] ?? '';
  if (rawBody.length === 0 || !/^application\/(.+\+)?json\b/i.test(contentType)) return { parsedBody: {}, rawBody };
  checkJsonShape(rawBody, limits);
  let value: unknown;
  try {
    value = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw badRequest(malformedJson);
  }
  const parsedBody = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return { parsedBody, rawBody };
}
