import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Route } from '../../functions/routes.ts';

/**
 * Hostile HTTP requests for the fuzz of the route table (test/http/fuzz.test.ts): malformed paths,
 * query values, Authorization headers, content types and bodies, mixed with real ids and real tokens
 * so that the requests also get past authentication and lookups into the routes' own code.
 */
export interface FuzzPool {
  /** Real values by path parameter name (`bookId`, `lineId`, `bookTextId`, `jobId`, `uploadId`, `id`, `field`). */
  params: Record<string, string[]>;
  /** Real ids a body may name (job ids, file ids, user ids). */
  bodyIds: string[];
  /** Tokens of real users: every caller class but anonymous (no header), e.g. subscriber and job owner, member and book owner, editor, admin. */
  tokens: string[];
  /** Tokens that must not authenticate anyone: alg none, expired, another secret, a deleted user. */
  badTokens: string[];
}

export interface FuzzRequest {
  method: string;
  /** Sent as is: already percent-encoded, or deliberately not. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const enc = encodeURIComponent;

/** Segments no well-behaved client sends: traversal, encoded slashes, broken percent-encoding, NULs. */
const nastySegments = [
  '..', '.', '%2e%2e', '%2E%2E%2F', '%2F', 'a%2Fb', '..%2F..%2Fetc%2Fpasswd', '%5C..%5C', '%00', '%', '%zz', '%E0%A4%A', '%C0%AE',
  '%FF', '%20', '*', '$', '%7BbookId%7D', 'null', 'undefined', '-1', '0', '1e308', '9'.repeat(400), 'FFFFFFFFFFFFFFFFFFFFFFFF',
  '65a1b2c3d4e5f60718293a4b%20', '65a1b2c3d4e5f60718293a4b%0A', '65a1b2c3d4e5f60718293a4b0', '5a1b2c3d4e5f60718293a4b',
  '65A1B2C3D4E5F60718293A4B', '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
];

function segment(name: string, pool: FuzzPool): fc.Arbitrary<string> {
  const real = pool.params[name] ?? [];
  return fc.oneof(
    { weight: real.length ? 5 : 0, arbitrary: real.length ? fc.constantFrom(...real).map(enc) : fc.constant('x') },
    { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 96n - 1n }).map((n) => n.toString(16).padStart(24, '0')) },
    { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map(enc) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(enc) },
    { weight: 1, arbitrary: fc.integer({ min: 300, max: 4000 }).map((n) => 'a'.repeat(n)) },
    { weight: 3, arbitrary: fc.constantFrom(...nastySegments) },
  );
}

const queryKeys = [
  'page', 'limit', 'offset', 'voice', 'expires', 'fields', 'fontSize', 'includeTitlePage', 'includePageHeadings', 'pageBreaks',
  'status', 'sort', 'tags', 'categories', 'language', 'pageLimit', 'pageOffset', 'includeText',
];

/** Text a careless or hostile client may send: Arabic with marks, bidi overrides, control characters, a lone surrogate. */
const oddText = ['بِسْمِ اللَّهِ الرَّحْمَٰنِ', 'كتاب\u202Eabc', '\u0000', '\u0007\u001B[31m', '\r\n\r\n', '\uFEFF', 'a\u0000b', '\t'];
/** A lone surrogate fits JSON (escaped) but not a URL: encodeURIComponent refuses it. */
const loneSurrogate = '\uD800';

const queryValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(
    '1e308', '9'.repeat(400), '-1', '-0', '0', 'NaN', 'Infinity', '-Infinity', '0x1F', '1.5', '', ' 5 ', '0'.repeat(30) + '1',
    String(2 ** 53 + 1), 'true', 'false', 'null', '[]', '{}', 'arabic,english', 'ARABIC,,latin', ',,,', 'alloy', 'ALLOY', 'robot',
    'completed', 'name_asc', 'pages_desc', '__proto__', 'constructor', '1000000000', ...oddText,
  ) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 4000 }).map((n) => 'x'.repeat(n)) },
);

/** `?k=v&...`: known parameter names and others, repeated keys (arrays), and a broken escape now and then. */
const query: fc.Arbitrary<string> = fc
  .tuple(
    fc.array(fc.tuple(fc.oneof(fc.constantFrom(...queryKeys), fc.constantFrom('tags[]', 'a[b]'), fc.string({ maxLength: 8 })), queryValue, fc.boolean()), { maxLength: 4 }),
    fc.constantFrom('', '', '', '&%zz=%', '&limit=%E0%A4%A', '&&=&'),
  )
  .map(([pairs, raw]) => {
    const parts = pairs.flatMap(([k, v, twice]) => (twice ? [`${enc(k)}=${enc(v)}`, `${enc(k)}=${enc(v)}2`] : [`${enc(k)}=${enc(v)}`]));
    const text = parts.join('&') + raw;
    return text ? `?${text}` : '';
  });

function authorization(pool: FuzzPool): fc.Arbitrary<string | undefined> {
  const [someToken = 'x'] = pool.tokens;
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 6, arbitrary: fc.constantFrom(...pool.tokens).map((t) => `Bearer ${t}`) },
    { weight: 2, arbitrary: fc.constantFrom(...pool.badTokens).map((t) => `Bearer ${t}`) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'Bearer x', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', `bearer ${someToken}`, `Bearer   ${someToken}   `, `Bearer ${someToken}x`,
        `Bearer ${someToken} extra`, 'Bearer a.b.c', `Token ${someToken}`, 'Bearer eyJhbGciOiJub25lIn0.e30.', 'Bearer ....', 'Bearer %00',
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 12_000 }).map((n) => `Bearer ${'A'.repeat(n)}`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`) },
  );
}

/** Every body field some route reads: a random body names them with values of any type. */
const bodyKeys = [
  'jobId', 'fileId', 'userId', 'pageNumber', 'status', 'text', 'error', 'storageKey', 'pageCount', 'pagesProcessed', 'extractedText',
  'language', 'pages', 'metadata', 'processingTime', 'voice', 'fields', 'token', 'platform', 'fileName', 'fileType', 'fileSize',
  'author', 'tags', 'categories', 'visibility', 'customPrompt', 'jobMetadata', 'isAIGenerated', '__proto__', 'constructor',
];

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

function fieldValue(pool: FuzzPool): fc.Arbitrary<unknown> {
  const pageItem = fc.record(
    {
      pageNumber: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 5 }), fc.constantFrom(1e308, -1, '7', 2 ** 53 + 1)),
      text: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 2 })),
      storageKey: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
      isAIGenerated: fc.oneof(fc.boolean(), fc.string({ maxLength: 3 })),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 2, arbitrary: fc.constantFrom(...pool.bodyIds) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        1e308, -1, 0, 1.5, 2 ** 53 + 1, Number.MAX_VALUE, '', ' ', 'completed', 'failed', 'processing', 'public', 'ios', 'android', 'alloy',
        'ARABIC', 'application/pdf', ['arabic', 'latin'], ['arabic', 1], [], {}, null, true, 1e21, -0, 2 ** 31, ...oddText, loneSurrogate,
      ),
    },
    // Past DynamoDB's 400 KB item and S3-sized texts: 2-byte characters.
    { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 600_000 }).map((n) => 'ب'.repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: 33, max: 120 }).map((d) => JSON.parse(deepArray(d)) as unknown) },
    { weight: 2, arbitrary: fc.array(pageItem, { maxLength: 5 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }) },
  );
}

const jsonTypes = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.api+json', 'application/json; charset=utf-16'];
const otherTypes = ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'application/octet-stream', 'image/png', 'multipart/form-data', 'multipart/form-data; boundary=zz'];

/** A multipart form as POST /ocr reads it, with a file of any declared type and odd fields. */
const multipart = fc
  .record({
    fileType: fc.constantFrom('application/pdf', 'image/png', 'text/plain', 'application/x-msdownload', '', 'image/jpeg; charset=x'),
    fileName: fc.oneof(fc.constantFrom('scan.pdf', '../../etc/passwd', '', 'ك.pdf'), fc.string({ maxLength: 20 })),
    fieldName: fc.constantFrom('file', 'file', 'file', 'upload', 'file[]'),
    twoFiles: fc.boolean(),
    bytes: fc.uint8Array({ maxLength: 200 }),
    fields: fc.dictionary(fc.constantFrom('jobMetadata', 'language', 'tags', 'categories', 'visibility', 'fileName', 'author', 'customPrompt'), fc.oneof(fc.string(), fc.constantFrom('{"a":1}', '[1]', 'null', '{', 'ب'.repeat(5000))), { maxKeys: 4 }),
  })
  .map(({ fileType, fileName, fieldName, twoFiles, bytes, fields }) => {
    const b = 'fuzzboundary';
    const file = (field: string) =>
      Buffer.concat([
        Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName.replace(/["\r\n]/g, '')}"\r\nContent-Type: ${fileType}\r\n\r\n`),
        Buffer.from(bytes),
        Buffer.from('\r\n'),
      ]);
    const parts = Object.entries(fields).map(([k, v]) => Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
    const body = Buffer.concat([...parts, file(fieldName), ...(twoFiles ? [file('file')] : []), Buffer.from(`--${b}--\r\n`)]);
    return { contentType: `multipart/form-data; boundary=${b}`, body };
  });

/** A body and how it says it is encoded. */
interface FuzzBody {
  contentType?: string;
  body?: Buffer;
  encoding?: string;
}

/** 60 MB of `[{},{},…]` in 110 bytes of Brotli, or in gzip (issue 27): compression bombs of the cheapest kind. */
const bombJson = Buffer.from(`[${'{},'.repeat(20_000_000)}{}]`);
const bombs = [
  { encoding: 'br', body: brotliCompressSync(bombJson, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }) },
  { encoding: 'gzip', body: gzipSync(bombJson, { level: 9 }) },
];

/** Any body, or the same compressed (gzip or Brotli, said or not), or a compression bomb. */
function body(pool: FuzzPool): fc.Arbitrary<FuzzBody> {
  const compress = (b: FuzzBody) =>
    fc.constantFrom('gzip', 'br', 'deflate').map((encoding): FuzzBody => {
      const bytes = b.body ?? Buffer.alloc(0);
      return { ...b, encoding, body: encoding === 'br' ? brotliCompressSync(bytes) : encoding === 'gzip' ? gzipSync(bytes) : bytes };
    });
  return fc.oneof(
    { weight: 8, arbitrary: plainBody(pool) },
    { weight: 2, arbitrary: plainBody(pool).chain(compress) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...bombs), fc.constantFrom(...jsonTypes)).map(([bomb, contentType]) => ({ ...bomb, contentType })) },
  );
}

function plainBody(pool: FuzzPool): fc.Arbitrary<FuzzBody> {
  const object = fc
    .tuple(
      fc.option(fc.record({ jobId: fc.oneof(fc.constantFrom(...pool.bodyIds), fc.uuid()), fileId: fc.constantFrom(...pool.bodyIds), userId: fc.constantFrom(...pool.bodyIds) }), { nil: undefined }),
      fc.dictionary(fc.constantFrom(...bodyKeys), fieldValue(pool), { maxKeys: 6 }),
    )
    .map(([base, fields]) => JSON.stringify({ ...base, ...fields }));
  const json = (text: fc.Arbitrary<string>) =>
    fc.tuple(text, fc.constantFrom(...jsonTypes)).map(([t, contentType]) => ({ contentType, body: Buffer.from(t) }));
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({}) },
    { weight: 8, arbitrary: json(object) },
    { weight: 2, arbitrary: json(fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null')) },
    { weight: 1, arbitrary: json(fc.constantFrom(1000, 20_000).chain((d) => fc.constantFrom(deepArray(d), deepObject(d), `{"metadata":${deepObject(d)}}`))) },
    { weight: 2, arbitrary: json(fc.constantFrom('{', '{"a":', '[1,2', '\u0000', 'nul', '{"a":1}garbage', '\uFEFF{}', "{'a':1}", '{"a":NaN}', '"')) },
    { weight: 2, arbitrary: fc.tuple(object, fc.constantFrom(...otherTypes, undefined)).map(([t, contentType]) => ({ contentType, body: Buffer.from(t) })) },
    { weight: 2, arbitrary: fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 2000 }), fc.constantFrom(...jsonTypes, ...otherTypes)).map(([bytes, contentType]) => ({ contentType, body: Buffer.from(bytes) })) },
    { weight: 2, arbitrary: multipart },
  );
}

/**
 * Paging values past any sane maximum, sent on every GET route with real ids and a real subscriber's
 * token whatever the seed (a random query rarely names both `offset` and `tags`).
 */
const pagingQueries = [
  `offset=1000000000&tags=x`, `offset=${'9'.repeat(400)}`, `limit=${'9'.repeat(400)}`, 'limit=-1&offset=-1', 'offset=1.5&limit=1e308',
  'page=1000000000', `page=${'9'.repeat(400)}&limit=1000000000`, `pageLimit=${'9'.repeat(400)}&pageOffset=1000000000`,
  'limit=1&limit=2&offset=0&offset=1', 'tags=x&tags=y&categories=a,b&sort=pages_desc&status=completed',
];

export function pagingRequests(route: Route, pool: FuzzPool, token: string): FuzzRequest[] {
  if (route.method !== 'GET') return [];
  const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => enc(pool.params[name]?.[0] ?? 'x'));
  return pagingQueries.map((q) => ({ method: route.method, path: `${path}?${q}`, headers: { authorization: `Bearer ${token}` } }));
}

/** A request for one route of the table, built from its path template. */
export function requestFor(route: Route, pool: FuzzPool): fc.Arbitrary<FuzzRequest> {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return fc
    .record({
      segments: fc.tuple(...names.map((name) => segment(name, pool))),
      query,
      authorization: authorization(pool),
      body: body(pool),
      extra: fc.constantFrom<Record<string, string>>({}, {}, { 'stripe-signature': 't=1,v1=00' }, { 'x-forwarded-for': '::1' }, { range: 'bytes=0-1' }),
    })
    .map(({ segments, query: q, authorization: auth, body: b, extra }) => {
      let i = 0;
      const path = route.path.replace(/\{\w+\}/g, () => segments[i++]!) + q;
      const headers: Record<string, string> = { ...extra };
      if (auth !== undefined) headers.authorization = auth;
      if (b.contentType !== undefined) headers['content-type'] = b.contentType;
      if (b.encoding !== undefined) headers['content-encoding'] = b.encoding;
      return { method: route.method, path, headers, ...(b.body ? { body: b.body } : {}) };
    });
}
