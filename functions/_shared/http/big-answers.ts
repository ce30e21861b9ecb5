import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Objects } from '../../../lib/objects.ts';
import { jsonBytes, platformLimits } from './platform-limits.ts';
import type { HttpResult } from './responses.ts';

/**
 * Every answer within Lambda's 6 MB (issue 14), in the HTTP layer, for every route alike:
 * 1. a body over `compressAboveBytes` goes compressed when the client accepts it (Accept-Encoding:
 *    Brotli, else gzip), base64 as an HTTP API carries binary; a 1,000-page Arabic book's text
 *    (7.2 MB of JSON) then travels in about a third of that;
 * 2. an answer still over Lambda's limit is written to the bucket (under `prefix`, expired after a
 *    day) and answered with 303 See Other to a signed URL, as the Word export already does: clients
 *    follow a 303 with a GET, and the stored answer comes back compressed as it would have.
 * Nothing is cut: the client gets the same JSON, straight or one hop away.
 */
export const answerRules = {
  /** Smaller bodies go as they are: the bytes saved would not pay for the compression. */
  compressAboveBytes: 32 * 1024,
  /**
   * Brotli 5 and gzip 6 up to `fastAboveBytes`, Brotli 1 and gzip 1 above it. On the 14.5 MB
   * lines-with-audio answer of a 6,236-line book, Brotli 5 took 614 ms for 2.13 MB and Brotli 1
   * 43 ms for 2.41 MB (gzip 6: 125 ms, 2.34 MB; gzip 1: 75 ms, 2.42 MB): past a megabyte the better
   * ratio costs more time than it saves on the wire. When the fast result misses Lambda's limit by
   * less than `retryWithin` (Brotli 5 is 15 to 20% smaller), the answer is compressed again the
   * slow way, which may spare the client the hop through the bucket.
   */
  brotliQuality: 5,
  gzipLevel: 6,
  fastAboveBytes: 1024 * 1024,
  fastBrotliQuality: 1,
  fastGzipLevel: 1,
  retryWithin: 1.3,
  /** Where a handed-over answer waits (infra/storage.ts expires the prefix after a day). */
  prefix: 'responses/',
  /** Its URL's lifetime: the client follows the redirect at once. */
  urlSeconds: 300,
} as const;

type Encoding = 'br' | 'gzip';

/** The encoding to send: Brotli, else gzip, when the client's Accept-Encoding allows it (q > 0). */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name) weights.set(name.trim(), q === undefined ? 1 : Number(q) || 0);
  }
  const accepts = (name: Encoding) => (weights.get(name) ?? weights.get('*') ?? 0) > 0;
  return accepts('br') ? 'br' : accepts('gzip') ? 'gzip' : undefined;
}

const compressors: Record<Encoding, (body: Buffer, fast: boolean) => Promise<Buffer>> = {
  br: (body, fast) =>
    promisify(brotliCompress)(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: fast ? answerRules.fastBrotliQuality : answerRules.brotliQuality,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  gzip: (body, fast) => promisify(gzip)(body, { level: fast ? answerRules.fastGzipLevel : answerRules.gzipLevel }),
};

const headerOf = (result: HttpResult, name: string): string | undefined => {
  const found = Object.entries(result.headers ?? {}).find(([key]) => key.toLowerCase() === name);
  return found === undefined ? undefined : String(found[1]);
};

/** The answer as it may leave a Lambda: compressed when that helps, handed over through the bucket when it must. */
export async function fitAnswer(result: HttpResult, acceptEncoding: string | undefined, bucket: () => Objects): Promise<HttpResult> {
  if (result.body === undefined || headerOf(result, 'content-encoding') !== undefined) return result;
  const bytes = Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  // Most answers are small: they fit as they are, without measuring the whole result again.
  if (bytes.length <= answerRules.compressAboveBytes) return result;
  let answer = result;
  const encoding = result.isBase64Encoded ? undefined : chooseEncoding(acceptEncoding);
  // A cache between here and the client must keep the encodings apart.
  answer = { ...answer, headers: { ...answer.headers, vary: 'accept-encoding' } };
  if (encoding) {
    const compressed = (fast: boolean) => compressors[encoding](bytes, fast);
    const withBody = (body: Buffer): HttpResult => ({ ...answer, body: body.toString('base64'), isBase64Encoded: true, headers: { ...answer.headers, 'content-encoding': encoding } });
    const fast = bytes.length > answerRules.fastAboveBytes;
    let sent = withBody(await compressed(fast));
    const size = jsonBytes(sent);
    if (fast && size > platformLimits.lambdaResponseBytes && size <= platformLimits.lambdaResponseBytes * answerRules.retryWithin) sent = withBody(await compressed(false));
    answer = sent;
  }
  if (jsonBytes(answer) <= platformLimits.lambdaResponseBytes) return answer;
  return handOver(answer, bucket());
}

async function handOver(answer: HttpResult, bucket: Objects): Promise<HttpResult> {
  const key = `${answerRules.prefix}${randomUUID()}`;
  const contentEncoding = headerOf(answer, 'content-encoding');
  await bucket.put(key, Buffer.from(answer.body!, answer.isBase64Encoded ? 'base64' : 'utf8'), headerOf(answer, 'content-type') ?? 'application/octet-stream', {
    ...(contentEncoding !== undefined && { contentEncoding }),
    // The answer may hold a private book's text: no shared cache keeps it.
    cacheControl: 'private, no-store',
  });
  const url = await bucket.presignGet(key, answerRules.urlSeconds);
  return {
    statusCode: 303,
    headers: { location: url, 'cache-control': 'private, no-store', 'content-type': 'application/json; charset=utf-8' },
    // For clients that do not follow redirects.
    body: JSON.stringify({ success: true, url }),
  };
}
