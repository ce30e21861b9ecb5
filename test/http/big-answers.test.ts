import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerRules, chooseEncoding } from '../../functions/_shared/http/big-answers.ts';
import { platformLimits } from '../../functions/_shared/http/platform-limits.ts';
import { newObjectId } from '../../lib/ids.ts';
import { startApi, seedAccounts } from '../support/api.ts';
import { arabicPage } from '../support/arabic-pages.ts';
import { testStores } from '../support/stores.ts';

/**
 * Answers too big for a Lambda (issue 14), through the local server, which enforces Lambda's 6 MB
 * as AWS does: a 1,000-page Arabic book's text is 7.2 MB of JSON. A client that accepts compression
 * gets it compressed; one that does not gets a 303 to the same JSON in the bucket.
 */
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let editor: string;
let editorId: string;
const jobId = randomUUID();

const pages = Array.from({ length: 1_000 }, (_, i) => ({ pageNumber: i + 1, text: arabicPage(i + 1), storageKey: `ocr-pages/${jobId}/${i + 1}.png` }));

beforeAll(async () => {
  api = await startApi();
  const out = await seedAccounts(stores, { users: [{ key: 'ed', username: 'ed', role: 'editor' }] });
  editor = out.users.ed!.token;
  editorId = out.users.ed!.userId;
  // The pages, then the text, as a worker posts them: together they pass the request limit even compressed.
  // The pages go in parts of 250: 1,000 pages in one callback take 15 s on the local stores alone (the
  // SQLite index's writes 8 s, DynamoDB Local's 5 s), within reach of the 30 s integration timeout on a loaded machine.
  const job = { jobId, fileId: newObjectId(), userId: editorId };
  const parts = Array.from({ length: 4 }, (_, i) => ({ ...job, status: 'processing', pages: pages.slice(i * 250, i * 250 + 250), pageCount: 1_000 }));
  for (const body of [...parts, { ...job, status: 'completed', extractedText: pages.map((p) => p.text).join('\n\n'), language: 'ar' }]) {
    const res = await fetch(`${api.url}/ocr/result`, {
      method: 'POST',
      headers: { authorization: `Bearer ${editor}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify(body)),
    });
    expect(res.status).toBe(201);
  }
}, 120_000);
afterAll(() => api?.close());

interface TextAnswer {
  data: { pages: { pageNumber: number; text: string }[]; extractedText: string; pageCount: number };
}
const textOf = async (res: Response) => (await res.json()) as TextAnswer;

const getText = (acceptEncoding: string, redirect: 'follow' | 'manual' = 'follow') =>
  fetch(`${api.url}/ocr/text/${jobId}`, { headers: { authorization: `Bearer ${editor}`, 'accept-encoding': acceptEncoding }, redirect });

describe('answers larger than a Lambda may send', () => {
  it('sends a 1,000-page book text Brotli-compressed to a client that accepts it', async () => {
    const res = await getText('gzip, deflate, br');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('vary')).toBe('accept-encoding');
    const { data } = await textOf(res);
    expect(data.pages).toHaveLength(1_000);
    expect(data.pages[999]).toMatchObject({ pageNumber: 1_000, text: pages[999]!.text });
    expect(Buffer.byteLength(JSON.stringify(data))).toBeGreaterThan(platformLimits.lambdaResponseBytes);
  });

  it('hands over, still compressed, what gzip cannot fit (random letters compress 2.5 to 1; a real book about 4)', async () => {
    const res = await getText('gzip', 'manual');
    expect(res.status).toBe(303);
    const stored = await fetch(res.headers.get('location')!, { headers: { 'accept-encoding': 'gzip' } });
    expect(stored.status).toBe(200);
    expect(stored.headers.get('content-encoding')).toBe('gzip');
    expect((await textOf(stored)).data.pages).toHaveLength(1_000);
  });

  it('hands the same JSON over through the bucket, 303 See Other, to a client that accepts no compression', async () => {
    const res = await getText('identity', 'manual');
    expect(res.status).toBe(303);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const location = res.headers.get('location')!;
    expect(await res.json()).toEqual({ success: true, url: location });

    const stored = await fetch(location, { headers: { 'accept-encoding': 'identity' } });
    expect(stored.status).toBe(200);
    expect(stored.headers.get('content-type')).toMatch(/^application\/json/);
    const { data } = await textOf(stored);
    expect(data.extractedText).toBe(pages.map((p) => p.text).join('\n\n'));
    expect(data.pages).toHaveLength(1_000);
  });

  it('is what a client that follows redirects simply gets', async () => {
    const res = await getText('identity');
    expect(res.status).toBe(200);
    expect((await textOf(res)).data.pageCount).toBe(1_000);
  });

  it('reads 200 pages of the book with its whole text in one answer', async () => {
    const jobs = (await (await fetch(`${api.url}/ocr/jobs?limit=1`, { headers: { authorization: `Bearer ${editor}` } })).json()) as { jobs: { bookTextId: string }[] };
    const book = jobs.jobs[0]!;
    const read = await fetch(`${api.url}/ocr/books/${book.bookTextId}?pageLimit=200&pageOffset=800`, { headers: { authorization: `Bearer ${editor}` } });
    expect(read.status).toBe(200);
    const { book: got } = (await read.json()) as { book: { pages: { pageNumber: number; imageUrl: string | null }[]; extractedText: string } };
    expect(got.pages).toHaveLength(200);
    expect(got.pages[0]!.pageNumber).toBe(801);
    expect(got.pages[0]!.imageUrl).toContain(`/ocr-pages/${jobId}/801.png?`);
    expect(got.extractedText.length).toBeGreaterThan(4_000_000);
  });

  it('leaves small answers alone', async () => {
    const res = await fetch(`${api.url}/ocr/status/${jobId}`, { headers: { authorization: `Bearer ${editor}`, 'accept-encoding': 'gzip' } });
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(JSON.stringify(await res.json()).length).toBeLessThan(answerRules.compressAboveBytes);
  });
});

describe('Accept-Encoding', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0, gzip;q=0.5', 'gzip'],
    ['*', 'br'],
    ['*;q=0, gzip', 'gzip'],
    ['GZIP;Q=1', 'gzip'],
    ['deflate', undefined],
  ])('%s → %s', (header, expected) => {
    expect(chooseEncoding(header)).toBe(expected);
  });
});
