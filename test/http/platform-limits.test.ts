import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpFunctions, type FunctionName } from '../../functions/routes.ts';
import { jsonBytes, platformLimits } from '../../functions/_shared/http/platform-limits.ts';
import { startLocalServer, type LambdaHttpHandler } from '../../infra/local/server.ts';

/**
 * Issue 14: the local server refuses what API Gateway (HTTP API) and Lambda refuse, and answers as
 * the HTTP API does, so that a request or an answer too large, or a function too slow, fails here
 * before it fails on AWS. Small fake functions stand behind the route table; a client calls them.
 */
const textAnswer = (body: string): APIGatewayProxyStructuredResultV2 => ({ statusCode: 200, headers: { 'content-type': 'text/plain' }, body });
const binaryAnswer = (bytes: Buffer): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 200,
  headers: { 'content-type': 'application/octet-stream' },
  body: bytes.toString('base64'),
  isBase64Encoded: true,
});
/** The text body whose answer, as Lambda serializes it, is exactly `bytes` long. */
const textBodyOfAnswerSize = (bytes: number) => 'a'.repeat(bytes - jsonBytes(textAnswer('')));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const received: string[] = [];
const running = new Set<Promise<unknown>>();

/** One fake function for every route: what it answers depends on the route and the query. */
const fake: LambdaHttpHandler = (event: APIGatewayProxyEventV2) => {
  received.push(event.routeKey);
  const query = event.queryStringParameters ?? {};
  const answer = (async () => {
    switch (event.routeKey) {
      case 'GET /audio/voices':
        return textAnswer(textBodyOfAnswerSize(Number(query.answerBytes)));
      case 'GET /audio/fields':
        return binaryAnswer(Buffer.alloc(Number(query.rawBytes), 0xa5));
      case 'GET /notifications':
        await sleep(Number(query.delayMs));
        if (query.fail) throw new Error('late failure');
        return textAnswer('late');
      default:
        return { statusCode: 201, body: '' };
    }
  })();
  running.add(answer);
  void answer.finally(() => running.delete(answer)).catch(() => undefined);
  return answer;
};
const handlers = Object.fromEntries(httpFunctions().map((name) => [name, fake])) as Record<FunctionName, LambdaHttpHandler>;

let api: Awaited<ReturnType<typeof startLocalServer>>;
let quick: Awaited<ReturnType<typeof startLocalServer>>;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  api = await startLocalServer({ host: '127.0.0.1', port: 0, handlers });
  quick = await startLocalServer({ host: '127.0.0.1', port: 0, handlers, timeoutMs: 200 });
});
afterAll(async () => {
  await api?.close();
  await quick?.close();
  process.off('unhandledRejection', onUnhandled);
});
afterEach(() => {
  received.length = 0;
  vi.restoreAllMocks();
});

const post = (url: string, body: Buffer | string, contentType: string) =>
  fetch(`${url}/ocr/result`, { method: 'POST', headers: { 'content-type': contentType }, body });

describe('answers as large as Lambda returns', () => {
  it('delivers whole an answer exactly at Lambda’s response limit', async () => {
    const res = await fetch(`${api.url}/audio/voices?answerBytes=${platformLimits.lambdaResponseBytes}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(textBodyOfAnswerSize(platformLimits.lambdaResponseBytes));
  });

  it('answers 500 Internal Server Error, without the body, for one byte more, and says why on stderr', async () => {
    const stderr = vi.spyOn(process.stderr, 'write');
    const size = platformLimits.lambdaResponseBytes + 1;
    const res = await fetch(`${api.url}/audio/voices?answerBytes=${size}`);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('{"message":"Internal Server Error"}');
    const lines = stderr.mock.calls.map(([chunk]) => String(chunk)).filter((line) => line.includes('GET /audio/voices'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(String(size));
    expect(lines[0]).toContain(String(platformLimits.lambdaResponseBytes));
  });

  it('counts a binary answer at its base64 size: 4.6 MB arrives whole, 5 MB (6.7 MB in base64) is refused', async () => {
    const fits = 4_600_000;
    const res = await fetch(`${api.url}/audio/fields?rawBytes=${fits}`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.alloc(fits, 0xa5))).toBe(true);

    const tooLarge = await fetch(`${api.url}/audio/fields?rawBytes=${5_000_000}`);
    expect(tooLarge.status).toBe(500);
    expect(await tooLarge.json()).toEqual({ message: 'Internal Server Error' });
  });
});

describe('requests as large as Lambda takes', () => {
  it('invokes the function with a 6,000,000-byte JSON body', async () => {
    const res = await post(api.url, `"${'a'.repeat(6_000_000 - 2)}"`, 'application/json');
    expect(res.status).toBe(201);
    expect(received).toEqual(['POST /ocr/result']);
  });

  it('answers 413 without invoking the function when the event is over 6 MB though the body is under 10 MB', async () => {
    const json = await post(api.url, `"${'a'.repeat(6_300_000)}"`, 'application/json');
    expect(json.status).toBe(413);
    expect(await json.json()).toEqual({ message: 'Request Entity Too Large' });
    // A binary body travels base64-encoded: 4.8 MB of bytes is a 6.4 MB event.
    const binary = await post(api.url, Buffer.alloc(4_800_000, 0xa5), 'application/octet-stream');
    expect(binary.status).toBe(413);
    expect(await binary.json()).toEqual({ message: 'Request Entity Too Large' });
    expect(received).toEqual([]);
  });

  it('answers 413 to a body over the HTTP API’s 10 MB, as before', async () => {
    const res = await post(api.url, Buffer.alloc(platformLimits.httpApiBodyBytes + 1, 0x20), 'application/json');
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ message: 'Request Entity Too Large' });
    expect(received).toEqual([]);
  });
});

describe('the integration timeout', () => {
  it('passes on the answer of a function quicker than the timeout', async () => {
    const res = await fetch(`${quick.url}/notifications?delayMs=20`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('late');
  });

  it('answers 503 Service Unavailable at the timeout, and the late answer never reaches the client', async () => {
    const started = Date.now();
    // The function answers 2 s late, ten times the timeout: a loaded CI machine still tells the two apart.
    const res = await fetch(`${quick.url}/notifications?delayMs=2000`);
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('{"message":"Service Unavailable"}');
    expect(Date.now() - started).toBeLessThan(2000);
    await Promise.allSettled(running);
    // The server is not disturbed by the answer that came too late.
    expect((await fetch(`${quick.url}/notifications?delayMs=0`)).status).toBe(200);
  });

  it('drops a late failure too: no unhandled rejection, the client has its 503', async () => {
    const res = await fetch(`${quick.url}/notifications?delayMs=400&fail=1`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ message: 'Service Unavailable' });
    await Promise.allSettled(running);
    await sleep(10);
    expect(unhandled).toEqual([]);
  });
});
