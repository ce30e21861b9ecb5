import { randomBytes, randomUUID } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inflatedTooLarge, malformedBrotli, malformedGzip, maxCompressionRatio, overRatio } from '../../functions/_shared/http/body.ts';
import { newObjectId } from '../../lib/ids.ts';
import { startApi, seedAccounts } from '../support/api.ts';
import { arabicPage, arabicProse } from '../support/arabic-pages.ts';
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
    const gzip = gzipSync(json);
    expect(json.length).toBeGreaterThan(6 * 1024 * 1024); // Lambda's request payload limit
    expect(gzip.length).toBeLessThan(4 * 1024 * 1024); // the worker's cap on a compressed body

    const res = await post(gzip, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(201);
    const text = await api.call('GET', `/ocr/text/${job.jobId}`, { token: editor });
    expect(text.status).toBe(200);
    expect(text.body.data.extractedText).toBe(extractedText);
    expect(text.body.data).toMatchObject({ pageCount: 1_000, status: 'completed', language: 'ar' });
  });

  it('stores whole the Brotli final result of a 2,000-page book (the worker\'s page cap), which gzip cannot carry', async () => {
    const job = { jobId: randomUUID(), fileId: newObjectId(), userId: editorId };
    const extractedText = Array.from({ length: 2_000 }, (_, i) => arabicProse(i + 1)).join('\n\n');
    const json = Buffer.from(JSON.stringify({ ...job, status: 'completed', extractedText, pageCount: 2_000, language: 'ar', processingTime: 1 }));
    const brotli = brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: json.length } });
    expect(gzipSync(json).length).toBeGreaterThan(4 * 1024 * 1024); // over the worker's cap on a compressed body
    expect(brotli.length).toBeLessThan(4 * 1024 * 1024);

    const res = await post(brotli, { 'content-encoding': 'br' });
    expect(res.status).toBe(201);
    const text = await api.call('GET', `/ocr/text/${job.jobId}`, { token: editor });
    expect(text.status).toBe(200);
    expect(text.body.data.extractedText).toBe(extractedText);
  }, 60_000);

  it('answers 413 for a compressed body that inflates over 50 times its size (a bomb), before inflating it whole; 400 for one that is not Brotli', async () => {
    for (const [encoding, bomb] of [['br', brotliCompressSync(Buffer.alloc(100 * 1024 * 1024, 0x20))], ['gzip', gzipSync(Buffer.alloc(100 * 1024 * 1024, 0x20))]] as const) {
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
    const body = gzipSync(inflated);
    expect(inflated.length / body.length).toBeLessThan(maxCompressionRatio);
    const tooLarge = await post(body, { 'content-encoding': 'gzip' });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({ success: false, message: inflatedTooLarge });

    const truncated = gzipSync(Buffer.from(JSON.stringify({ jobId: randomUUID(), fileId: newObjectId(), userId: editorId }))).subarray(0, 12);
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
