import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newJobId, newObjectId } from '../../lib/ids.ts';
import { newBookText } from '../../lib/ocr/book-text.ts';
import { maxImportPages } from '../../lib/ocr/export/import.ts';
import { newPage } from '../../lib/ocr/pages/page.ts';
import { startApi, seedUsers, type Account } from '../support/api.ts';
import { arabicProse } from '../support/arabic-pages.ts';
import { testStores } from '../support/stores.ts';

/**
 * A book at the worker's page cap (2,000 pages) through HTTP: its Brotli final result is stored whole,
 * and it imports as a line book, each inside one function's time. This file runs in the `alone`
 * project (vitest.config.ts): the time it checks is this code's with the embedded stores, not the time
 * the rest of the suite takes from them.
 */
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let ed: Account, mo: Account;

beforeAll(async () => {
  api = await startApi();
  ({ ed, mo } = await seedUsers(stores, [
    { key: 'ed', username: 'ed', role: 'editor' }, // jobs of an editor: never charged, so no usage to record
    { key: 'mo', username: 'mo', subscription: { tier: 'pro', status: 'active' } },
  ]));
}, 120_000);
afterAll(() => api?.close());

// Compressed off the event loop: a synchronous compression of seconds would hold the test's own HTTP
// client past the server's keep-alive, and its next request would meet a closed connection.
const compressBrotli = promisify(brotliCompress);
const compressGzip = promisify(gzip);

describe('a book of 2,000 pages', () => {
  it('has its Brotli final result (which gzip cannot carry under the worker\'s cap) stored whole', async () => {
    const job = { jobId: randomUUID(), fileId: newObjectId(), userId: ed.userId };
    const extractedText = Array.from({ length: 2_000 }, (_, i) => arabicProse(i + 1)).join('\n\n');
    const json = Buffer.from(JSON.stringify({ ...job, status: 'completed', extractedText, pageCount: 2_000, language: 'ar', processingTime: 1 }));
    const brotli = await compressBrotli(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: json.length } });
    expect((await compressGzip(json)).length).toBeGreaterThan(4 * 1024 * 1024); // over the worker's cap on a compressed body
    expect(brotli.length).toBeLessThan(4 * 1024 * 1024);

    const res = await fetch(`${api.url}/ocr/result`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ed.token}`, 'content-type': 'application/json', 'content-encoding': 'br' },
      body: brotli,
    });
    expect(res.status).toBe(201);
    const text = await api.call('GET', `/ocr/text/${job.jobId}`, { token: ed.token });
    expect(text.status).toBe(200);
    expect(text.body.data.extractedText).toBe(extractedText);
  }, 120_000);

  it(`imports as a line book, up to the import cap (${maxImportPages} pages)`, async () => {
    const at = new Date().toISOString();
    const fileId = newObjectId();
    const fileName = 'كتاب كبير.pdf';
    const book = newBookText(
      { bookTextId: newObjectId(), jobId: newJobId(), fileId, userId: mo.userId, fileName, status: 'completed', language: 'ar', tags: [], categories: [], visibility: 'private', pageCount: maxImportPages, metadata: {} },
      at,
    );
    const file = { fileId, userId: mo.userId, fileName, author: 'an-Nawawi', fileType: 'application/pdf', fileSize: 1234, tags: [], categories: ['ocr'], visibility: 'private' as const, storageKey: `ocr/${randomUUID()}.pdf`, createdAt: at, updatedAt: at };
    expect(await stores.ocr.create(book, file)).toBe(true);
    const pages = Array.from({ length: maxImportPages }, (_, i) => newPage(book.bookTextId, i, { text: `صفحة ${i}` }, at));
    await stores.ocr.putPages(pages);

    const res = await api.call('POST', `/ocr/books/${book.bookTextId}/import`, { token: mo.token });
    expect(res.status).toBe(201);
    const lines = await stores.books.lines(res.body.bookId);
    expect(lines.map((l) => l.arabic)).toEqual(pages.map((p) => p.text));
    expect((await stores.books.get(res.body.bookId))!.lineCount).toBe(maxImportPages);
  }, 120_000);
});
