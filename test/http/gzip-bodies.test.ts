import { randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, gzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inflatedTooLarge, malformedBrotli, malformedGzip, maxCompressionRatio, overRatio } from '../../functions/_shared/http/body.ts';
import { newObjectId } from '../../lib/ids.ts';
import { startApi, seedAccounts } from '../support/api.ts';
import { arabicPage } from '../support/arabic-pages.ts';
import { testStores } from '../support/stores.ts';

/**
 * Gzip request bodies (issue 13): a 1,000-page book's final result is larger than API Gateway's and
 * Lambda's request limits as plain JSON, so the OCR worker compresses it; the service inflates it,
 * within a cap.
 */
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let editor: string;
let editorId: string;

beforeAll(async () => {
  api = await startApi();
  const out = await seedAccounts(stores, { users: [{ key: 'ed', username: 'ed', role: 'editor' }] });
  editor = out.users.ed!.token;
  editorId = out.users.ed!.userId; // jobs of an editor: never charged, so no usage to record
});
afterAll(() => api?.close());

// Compressed off the event loop: a synchronous compression of seconds would hold the test's own HTTP
// client past the server's keep-alive, and its next request would meet a closed connection.
const gzipped = promisify(gzip);
const brotlied = promisify(brotliCompress);

const post = (body: Buffer, headers: Record<string, string>) =>
  fetch(`${api.url}/ocr/result`, {
    method: 'POST',
    headers: { authorization: `Bearer ${editor}`, 'content-type': 'application/json', ...headers },
    body,
  });

describe('compressed request bodies', () => {
  it('stores whole the gzip final result of a 1,000-page Arabic book, larger than the request limits as JSON', async () => {
    const job = { jobId: randomUUID(), fileId: newObjectId(), userId: editorId };
    const extractedText = Array.from({ length: 1_000 }, (_, i) => arabicPage(i + 1)).join('\n\n');
    const json = Buffer.from(JSON.stringify({ ...job, status: 'completed', extractedText, pageCount: 1_000, language: 'ar', processingTime: 1 }));
    const compressed = await gzipped(json);
    expect(json.length).toBeGreaterThan(6 * 1024 * 1024); // Lambda's request payload limit
    expect(compressed.length).toBeLessThan(4 * 1024 * 1024); // the worker's cap on a compressed body

    const res = await post(compressed, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(201);
    const text = await api.call('GET', `/ocr/text/${job.jobId}`, { token: editor });
    expect(text.status).toBe(200);
    expect(text.body.data.extractedText).toBe(extractedText);
    expect(text.body.data).toMatchObject({ pageCount: 1_000, status: 'completed', language: 'ar' });
  });

  it('answers 413 for a compressed body that inflates over 50 times its size (a bomb), before inflating it whole; 400 for one that is not Brotli', async () => {
    for (const [encoding, bomb] of [['br', await brotlied(Buffer.alloc(100 * 1024 * 1024, 0x20))], ['gzip', await gzipped(Buffer.alloc(100 * 1024 * 1024, 0x20))]] as const) {
      expect(bomb.length).toBeLessThan(200 * 1024);
      const tooLarge = await post(bomb, { 'content-encoding': encoding });
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.json()).toEqual({ success: false, message: overRatio });
    }
    const bad = await post(Buffer.from(JSON.stringify({ jobId: randomUUID() })), { 'content-encoding': 'br' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ success: false, message: malformedBrotli });
  });

  it('answers 413 in the OCR style for a body that inflates past 60 MB at an ordinary ratio, 400 for one that is not gzip', async () => {
    // A string of 61 MB carrying one random bit every 8 bytes: gzip makes it about 2.5 MB (26 to 1).
    const inflated = Buffer.alloc(61 * 1024 * 1024, 0x61);
    const bits = randomBytes(inflated.length / 8);
    for (let i = 0; i < bits.length; i++) if (bits[i]! & 1) inflated.fill(0x62, i * 8, i * 8 + 8);
    inflated[0] = inflated[inflated.length - 1] = 0x22;
    const body = await gzipped(inflated);
    expect(inflated.length / body.length).toBeLessThan(maxCompressionRatio);
    const tooLarge = await post(body, { 'content-encoding': 'gzip' });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({ success: false, message: inflatedTooLarge });

    const truncated = (await gzipped(Buffer.from(JSON.stringify({ jobId: randomUUID(), fileId: newObjectId(), userId: editorId })))).subarray(0, 12);
    const bad = await post(truncated, { 'content-encoding': 'gzip' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ success: false, message: malformedGzip });
  }, 60_000);

  it('reads a JSON body marked gzip but already inflated on the way (as REST API gateways do) as it is', async () => {
    const job = { jobId: randomUUID(), fileId: newObjectId(), userId: editorId };
    const res = await post(Buffer.from(JSON.stringify({ ...job, status: 'processing' })), { 'content-encoding': 'gzip' });
    expect(res.status).toBe(201);
  });

  it('leaves a page callback without Content-Encoding as it was', async () => {
    const job = { jobId: randomUUID(), fileId: newObjectId(), userId: editorId };
    const res = await api.call('POST', '/ocr/result/page', { token: editor, body: { ...job, pageNumber: 1, text: 'سطر' } });
    expect(res).toMatchObject({ status: 200, body: { success: true } });
  });
});
