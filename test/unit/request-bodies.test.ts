import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allContracts } from '../../functions/_shared/contract/all.ts';
import * as v from 'valibot';
import { bodyLimitsOf, here, type Contract, type Invalid } from '../../functions/_shared/contract/contract.ts';
import { readBody } from '../../functions/_shared/http/request-body.ts';
import {
  checkJsonShape,
  defaultBodyLimits,
  notCompressible,
  overRatio,
  parseJsonBody,
  tooDeep,
  tooLargeText,
  tooManyValues,
  type BodyLimits,
} from '../../functions/_shared/http/body.ts';
import { signedInAuth } from '../../functions/_shared/http/handler.ts';
import { routeKey, routes } from '../../functions/routes.ts';
import { DomainError, forbidden } from '../../lib/errors.ts';

/** The values and depth of a parsed JSON value, counted as the scan counts them: containers, and each item or member after a container's first. */
function shapeOf(value: unknown, depth = 1): { values: number; depth: number } {
  if (typeof value !== 'object' || value === null) return { values: 0, depth: 0 };
  const children = Array.isArray(value) ? value : Object.values(value);
  let values = 1 + Math.max(0, children.length - 1);
  let deepest = depth;
  for (const child of children) {
    const inner = shapeOf(child, depth + 1);
    values += inner.values;
    deepest = Math.max(deepest, inner.depth);
  }
  return { values, depth: deepest };
}

const refusal = (run: () => void): { kind: string; message: string } | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { kind: error.kind, message: error.message };
  }
};

const event = (body: Buffer, headers: Record<string, string> = {}): APIGatewayProxyEventV2 =>
  ({ body: body.toString('base64'), isBase64Encoded: true, headers: { 'content-type': 'application/json', ...headers } }) as unknown as APIGatewayProxyEventV2;

const objects = (n: number) => Buffer.from(`[${Array(n).fill('{}').join(',')}]`);
const nested = (n: number) => Buffer.from(`${'['.repeat(n)}${']'.repeat(n)}`);
const compressible: BodyLimits = { ...defaultBodyLimits, maxBytes: 60 * 1024 * 1024, maxValues: 40_000, compressed: true };

describe('the JSON shape scan', () => {
  it('refuses exactly the JSON whose values or nesting pass the limits, whatever its text (property)', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 6 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 40 }), (text, maxDepth, maxValues) => {
        const shape = shapeOf(JSON.parse(text));
        const refused = refusal(() => checkJsonShape(Buffer.from(text), { maxDepth, maxValues }));
        const over = [...(shape.depth > maxDepth ? [tooDeep({ maxDepth })] : []), ...(shape.values > maxValues ? [tooManyValues({ maxValues })] : [])];
        if (over.length === 0) expect(refused).toBeUndefined();
        else expect(over).toContain(refused?.message);
      }),
      { numRuns: 500 },
    );
  });

  it('is not fooled by brackets, commas and escaped quotes inside strings', () => {
    const text = JSON.stringify({ a: '[[[{{{,,,\\"]]]', b: ['\\', '"', '\\\\"[', ','.repeat(100)] });
    // The object, its second member, the array and its three commas: 6 values, 2 deep.
    expect(refusal(() => checkJsonShape(Buffer.from(text), { maxDepth: 2, maxValues: 6 }))).toBeUndefined();
    expect(refusal(() => checkJsonShape(Buffer.from(text), { maxDepth: 2, maxValues: 5 }))?.message).toBe(tooManyValues({ maxValues: 5 }));
    expect(refusal(() => checkJsonShape(Buffer.from(text), { maxDepth: 1, maxValues: 6 }))?.message).toBe(tooDeep({ maxDepth: 1 }));
  });
});

describe('a request body, within its route’s limits', () => {
  it('refuses the issue’s bomb (110 bytes of Brotli, 60 MB of [{},{},…]) where compression is taken, by its ratio, before inflating it', () => {
    const bomb = brotliCompressSync(objects(20_000_000), { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
    expect(bomb.length).toBeLessThan(200);
    const before = process.memoryUsage().arrayBuffers;
    expect(refusal(() => parseJsonBody(event(bomb, { 'content-encoding': 'br' }), compressible))).toEqual({ kind: 'payload_too_large', message: overRatio });
    // What it inflated to is at most the floor (8 MB), not 60 MB.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('refuses a compressed body where the route takes none (415), without inflating it', () => {
    for (const [encoding, bytes] of [['br', brotliCompressSync(Buffer.from('{}'))], ['gzip', gzipSync(Buffer.from('{}'))]] as const) {
      expect(refusal(() => parseJsonBody(event(bytes, { 'content-encoding': encoding }), defaultBodyLimits))).toEqual({ kind: 'unsupported_media_type', message: notCompressible });
    }
  });

  it('counts the values of a plain body before parsing it, and its size before reading it', () => {
    expect(refusal(() => parseJsonBody(event(objects(10_001)), defaultBodyLimits))).toEqual({ kind: 'payload_too_large', message: tooManyValues(defaultBodyLimits) });
    expect(refusal(() => parseJsonBody(event(nested(33)), defaultBodyLimits))).toEqual({ kind: 'bad_request', message: tooDeep(defaultBodyLimits) });
    expect(refusal(() => parseJsonBody(event(Buffer.from(JSON.stringify({ a: 'x'.repeat(300 * 1024) }))), defaultBodyLimits))).toEqual({
      kind: 'payload_too_large',
      message: tooLargeText(defaultBodyLimits),
    });
    expect(parseJsonBody(event(objects(100)), defaultBodyLimits).parsedBody).toEqual({});
    expect(parseJsonBody(event(Buffer.from('{"a":[1,2,{"b":null}]}')), defaultBodyLimits).parsedBody).toEqual({ a: [1, 2, { b: null }] });
  });

  it('inflates an ordinary compressed body where the route takes one, in either encoding', () => {
    const value = { jobId: 'x', pages: Array.from({ length: 50 }, (_, i) => ({ pageNumber: i + 1, text: `صفحة ${i}` })) };
    for (const [encoding, compress] of [['br', brotliCompressSync], ['gzip', gzipSync]] as const) {
      expect(parseJsonBody(event(compress(Buffer.from(JSON.stringify(value))), { 'content-encoding': encoding }), compressible).parsedBody).toEqual(value);
    }
  });
});

describe('routes and their bodies', () => {
  it('takes a compressed body only on routes whose caller must sign in first: the OCR worker’s callbacks and PATCH', () => {
    const taking = routes.filter((r) => {
      const body = (allContracts as Record<string, Contract>)[routeKey(r)]?.body;
      return body !== undefined && bodyLimitsOf(body).compressed;
    });
    expect(taking.map(routeKey).sort()).toEqual(['PATCH /ocr/books/{bookTextId}', 'POST /ocr/result', 'POST /ocr/result/page']);
    expect(taking.every((r) => signedInAuth.has(r.auth))).toBe(true);
  });
});

describe('routes and their failures', () => {
  it('quotes each route’s 500 text (its contract’s failure) in every 500 answer it documents in JSON', () => {
    for (const [key, contract] of Object.entries(allContracts as Record<string, Contract>)) {
      const answers = [contract.responses[500] ?? []].flat().filter((a) => a.kind === 'json');
      for (const answer of answers) expect(answer.description, key).toContain(`\`${contract.failure}\``);
    }
  });
});

describe('a body read by its schema', () => {
  const body = (invalid: Invalid, schema: v.GenericSchema) => ({ kind: 'json' as const, schema, invalid });
  const page = v.object({ pageNumber: v.pipe(v.number(`${here} must be a number`), v.maxValue(9, `${here} must be at most 9`)) }, `${here} must be a number`);

  it('names where an issue is: an item, a field an object misses, a record’s key', () => {
    const list = body(400, v.object({ pages: v.array(page) }));
    expect(() => readBody(list, { pages: [{ pageNumber: 1 }, {}] })).toThrow(expect.objectContaining({ kind: 'bad_request', message: 'pages[1].pageNumber must be a number' }));
    const keyed = body(400, v.object({ pages: v.record(v.pipe(v.string(), v.regex(/^\d+$/, `${here} must be a number`)), v.unknown()) }));
    expect(() => readBody(keyed, { pages: { 1: {}, x: {} } })).toThrow(expect.objectContaining({ message: 'pages key x must be a number' }));
  });

  it('answers as its route says: the 400, the 500, per issue, or the route’s own error', () => {
    const schema = v.object({ pages: v.array(page) });
    expect(() => readBody(body(500, schema), { pages: [{ pageNumber: 'x' }] })).toThrow(expect.objectContaining({ kind: 'internal' }));
    const perIssue = body((issue) => (issue.type === 'max_value' ? 400 : 500), schema);
    expect(() => readBody(perIssue, { pages: [{ pageNumber: 10 }] })).toThrow(expect.objectContaining({ kind: 'bad_request', message: 'pages[0].pageNumber must be at most 9' }));
    expect(() => readBody(perIssue, { pages: [{ pageNumber: 'x' }] })).toThrow(expect.objectContaining({ kind: 'internal' }));
    expect(() => readBody(body(() => forbidden('no'), schema), { pages: 1 })).toThrow(expect.objectContaining({ kind: 'forbidden', message: 'no' }));
    expect(readBody(body(400, schema), { pages: [{ pageNumber: 2 }], other: 1 })).toEqual({ pages: [{ pageNumber: 2 }] });
  });
});
