import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { maxClientMetadataBytes } from '../../lib/ocr/book-text.ts';
import { maxPageNumber, maxPagesPerRequest } from '../../lib/ocr/pages/page.ts';
import { startApi, pdfForm, uploadPdf, seedUsers, type Account } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

/**
 * Issue 12's trust boundaries, tried as an attacker would through HTTP: client metadata cannot say
 * where a text lives, a page cannot borrow another upload's image, racing text writers leave one
 * writer's whole text, and page edits are bounded.
 */
const stores = testStores();
const uploads = s3Objects(s3Client(), process.env.UPLOADS_BUCKET!);
let api: Awaited<ReturnType<typeof startApi>>;
let ed: Account, victim: Account, attacker: Account;

const upload = async (account: Account, fields: Record<string, string> = {}) =>
  (await uploadPdf(api, account.token, { fields, name: 'scan.pdf' })) as { jobId: string; bookTextId: string; fileId: string; storageKey: string };
const result = (body: object) => api.call('POST', '/ocr/result', { token: ed.token, body });
const patch = (account: Account, id: string, body: object) => api.call('PATCH', `/ocr/books/${id}`, { token: account.token, body });
const text = async (account: Account, jobId: string) => (await api.call('GET', `/ocr/text/${jobId}`, { token: account.token })).body.data.extractedText as string;
const read = async (account: Account | undefined, id: string) => (await api.call('GET', `/ocr/books/${id}`, { token: account?.token })).body.book;

const secret = `${'سر الضحية '.repeat(1200)} نهاية النص السري`;

beforeAll(async () => {
  api = await startApi();
  ({ ed, victim, attacker } = await seedUsers(stores, [
    { key: 'ed', username: 'ed', role: 'editor' },
    { key: 'victim', username: 'victim', subscription: { tier: 'pro', status: 'active' } },
    { key: 'attacker', username: 'attacker', subscription: { tier: 'pro', status: 'active' } },
  ]));
});
afterAll(() => api?.close());

describe('where a text lives is the service’s own fact (finding 1)', () => {
  it('ignores a textStorageKey in jobMetadata or result metadata, so nobody reads another user’s text', async () => {
    const theirs = await upload(victim);
    expect((await result({ jobId: theirs.jobId, fileId: theirs.fileId, userId: victim.userId, status: 'completed', extractedText: secret })).status).toBe(201);
    const theirKey = (await read(victim, theirs.bookTextId)).metadata.textStorageKey as string;
    expect(theirKey).toContain(theirs.jobId);

    const forged = { textStorageKey: theirKey, textLength: secret.length, usageInfo: { paymentStatus: 'not_required' }, pagesProcessed: 999, edition: 2 };
    const mine = await upload(attacker, { jobMetadata: JSON.stringify(forged) });
    // The worker echoes the client's metadata back with a short text, as a careless worker would.
    await result({ jobId: mine.jobId, fileId: mine.fileId, userId: attacker.userId, status: 'processing', extractedText: 'mine', metadata: forged });
    expect(await text(attacker, mine.jobId)).toBe('mine');
    const book = await read(attacker, mine.bookTextId);
    expect(book.extractedText).toBe('mine');
    // Client keys stay; the service's keys are only ever the service's.
    expect(book.metadata).toEqual({ edition: 2 });
    await api.call('PATCH', `/ocr/books/${mine.bookTextId}`, { token: attacker.token, body: { visibility: 'public' } });
    expect((await read(undefined, mine.bookTextId)).extractedText).toBe('mine');
    const docx = await fetch(`${api.url}/ocr/books/${mine.bookTextId}/export/docx`, { headers: { authorization: `Bearer ${attacker.token}` } });
    expect(docx.status).toBe(200);
    expect(Buffer.from(await docx.arrayBuffer()).includes(Buffer.from('نهاية'))).toBe(false);
  });

  it('answers a 400 for client metadata over the cap, and stores nothing', async () => {
    const huge = JSON.stringify({ blob: 'x'.repeat(maxClientMetadataBytes) });
    const res = await api.call('POST', '/ocr', { token: attacker.token, form: pdfForm({ jobMetadata: huge }, 'scan.pdf') });
    expect(res.status).toBe(400);
    expect(res.body.error ?? res.body.message).toMatch(/jobMetadata/);
  });
});

describe('page images belong to their book (finding 2)', () => {
  it('signs only the book’s own page images and upload; any other key gets imageUrl null', async () => {
    const theirs = await upload(victim);
    const mine = await upload(attacker);
    await uploads.put(`ocr-pages/${mine.jobId}/1.png`, 'own-page', 'image/png');
    const res = await patch(attacker, mine.bookTextId, {
      pages: [
        { pageNumber: 1, storageKey: `ocr-pages/${mine.jobId}/1.png` },
        { pageNumber: 2, storageKey: theirs.storageKey },
        { pageNumber: 3, storageKey: `ocr-pages/${theirs.jobId}/1.png` },
        { pageNumber: 4, storageKey: `ocr-pages/${mine.jobId}/../../${theirs.storageKey}` },
        { pageNumber: 5, storageKey: mine.storageKey },
      ],
    });
    expect(res.status).toBe(200);
    const pages = (await read(attacker, mine.bookTextId)).pages as { pageNumber: number; storageKey: string; imageUrl: string | null }[];
    const urls = Object.fromEntries(pages.map((p) => [p.pageNumber, p.imageUrl]));
    expect(urls[2]).toBeNull();
    expect(urls[3]).toBeNull();
    expect(urls[4]).toBeNull();
    expect(await (await fetch(urls[1]!)).text()).toBe('own-page');
    expect((await fetch(urls[5]!)).status).toBe(200);
    // The stored key is shown as it was written (docs/SPEC.md: the page-level storageKey goes to every caller).
    expect(pages.find((p) => p.pageNumber === 2)!.storageKey).toBe(theirs.storageKey);
  });
});

describe('racing text writers (finding 3)', () => {
  it('leaves one writer’s whole text after concurrent long and short edits and a final callback', async () => {
    const job = await upload(attacker);
    const long = (n: number) => `${`نص ${n} `.repeat(3000)}#${n}`;
    for (let round = 0; round < 4; round++) {
      const writers = [
        patch(attacker, job.bookTextId, { extractedText: long(round * 10 + 1) }),
        patch(attacker, job.bookTextId, { extractedText: `short ${round}` }),
        patch(attacker, job.bookTextId, { extractedText: long(round * 10 + 2) }),
        result({ jobId: job.jobId, fileId: job.fileId, userId: attacker.userId, status: 'processing', extractedText: long(round * 10 + 3) }),
      ];
      const answers = await Promise.all(writers);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 201]);
      const whole = [long(round * 10 + 1), `short ${round}`, long(round * 10 + 2), long(round * 10 + 3)];
      const res = await api.call('GET', `/ocr/text/${job.jobId}`, { token: attacker.token });
      expect(res.status).toBe(200);
      expect(whole).toContain(res.body.data.extractedText);
      const book = await read(attacker, job.bookTextId);
      expect(book.extractedText).toBe(res.body.data.extractedText);
      // The record's preview and length describe the same text, and only that text is stored.
      const stored = await uploads.list(`ocr-results/${job.jobId}`);
      if (res.body.data.extractedText.length > 10_000) {
        expect(book.metadata.textLength).toBe(res.body.data.extractedText.length);
        expect(stored.map((o) => o.key)).toEqual([book.metadata.textStorageKey]);
      } else {
        expect(book.metadata.textStorageKey).toBeUndefined();
        expect(stored).toEqual([]);
      }
    }
  });
});

describe('bounded page edits (finding 7)', () => {
  it('answers 400 for a page number past the range or too many pages, and writes nothing', async () => {
    const job = await upload(attacker);
    const tooFar = await patch(attacker, job.bookTextId, { pages: [{ pageNumber: 1, text: 'kept?' }, { pageNumber: 1e21, text: 'x' }] });
    expect(tooFar.status).toBe(400);
    expect(tooFar.body.error ?? tooFar.body.message).toMatch(String(maxPageNumber));
    const keyed = await patch(attacker, job.bookTextId, { pages: { [String(maxPageNumber + 1)]: { text: 'x' } } });
    expect(keyed.status).toBe(400);
    const many = Array.from({ length: maxPagesPerRequest + 1 }, (_, i) => ({ pageNumber: i }));
    const tooMany = await patch(attacker, job.bookTextId, { pages: many });
    expect(tooMany.status).toBe(400);
    const callback = await result({ jobId: job.jobId, fileId: job.fileId, userId: attacker.userId, pages: [{ pageNumber: maxPageNumber + 1 }] });
    expect(callback.status).toBe(400);
    const pageCallback = await api.call('POST', '/ocr/result/page', {
      token: ed.token,
      body: { jobId: job.jobId, fileId: job.fileId, userId: attacker.userId, pageNumber: 1e21 },
    });
    expect(pageCallback.status).toBe(400);
    expect((await read(attacker, job.bookTextId)).totalPages).toBe(0);
  });

  it('keeps the highest allowed page number in page order', async () => {
    const job = await upload(attacker);
    expect((await patch(attacker, job.bookTextId, { pages: [{ pageNumber: maxPageNumber, text: 'last' }, { pageNumber: 9, text: 'nine' }] })).status).toBe(200);
    const pages = (await read(attacker, job.bookTextId)).pages as { pageNumber: number }[];
    expect(pages.map((p) => p.pageNumber)).toEqual([9, maxPageNumber]);
  });
});
