import { checkedFetch } from '../support/api.ts';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { dynamoPageStore } from '../../lib/adapters/dynamo/book-text-pages.ts';
import { dynamoLedger } from '../../ocr-worker/adapters/dynamo-ledger.ts';
import { names, type LocalStack } from '../../infra/local/state.ts';
import { scannedPdf } from '../../ocr-worker/fixtures/pdf.ts';
import { renderTextPage } from '../../ocr-worker/fixtures/render.ts';
import { arabicLines } from '../../ocr-worker/fixtures/texts.ts';
import { cer } from '../../ocr-worker/text/cer.ts';
import { cli, freePort, startService } from '../support/processes.ts';

/**
 * `npm start` digitizes by itself (issue 13): a scanned Arabic PDF uploaded as a user would ends
 * `completed` with its text, page images a reader can fetch, and its pages charged once; a job
 * message delivered again charges nothing more, and a worker stopped half way resumes without reading
 * again the pages it had reported. Each page carries its confidence; a page read again (issue 33) is
 * posted alone, leaves the book completed and charges nothing.
 */
const linesPerPage = 4;
const pageLines = (p: number) => Array.from({ length: linesPerPage }, (_, i) => arabicLines[(p * linesPerPage + i) % arabicLines.length]!);
const pageCount = 4;
/** Character error rate, diacritics aside, on clean A4 scans at 16 pt in Noto Naskh (docs/benchmarks.md, "The OCR bench", measures noisier pages). */
const maxCer = 0.1;

describe('the reference OCR worker under npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'maktaba-ocr-e2e-'));
  let stop: (() => Promise<number | null>) | undefined;
  afterAll(() => stop?.());

  it('reads an uploaded scan to completed text once, resumes after a stop, and charges a redelivered job nothing', async () => {
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1' };
    let service = await startService(env);
    stop = service.stop;
    const seedFile = join(dataDir, 'seed.json');
    // 98 of 100 credits used: two of the four pages are invoiced, so a second charge would show.
    writeFileSync(seedFile, JSON.stringify({ users: [{ key: 'mo', username: 'mo', subscription: { tier: 'basic', status: 'active', pagesUsed: 98 } }] }));
    const mo = JSON.parse((await cli(['seed', seedFile], env)).stdout).users.mo as { userId: string; token: string };
    const auth = { authorization: `Bearer ${mo.token}` };

    const pdf = await scannedPdf(Array.from({ length: pageCount }, (_, p) => renderTextPage({ lines: pageLines(p), font: 'noto-naskh', sizePt: 16 })));
    const form = new FormData();
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'kitab.pdf');
    form.append('language', 'ar');
    const upload = await checkedFetch(`${service.url}/ocr`, { method: 'POST', headers: auth, body: form });
    expect(upload.status).toBe(201);
    const job = (await upload.json()) as { jobId: string; bookTextId: string; fileId: string; fileName: string; storageKey: string };

    const stack = () => JSON.parse(readFileSync(join(dataDir, 'local.json'), 'utf8')) as LocalStack;
    // The service's own page records (their updatedAt shows a page posted again), read from the embedded
    // DynamoDB of the running stack: its endpoint changes with each start.
    const withDynamo = async <T>(read: (client: DynamoDBDocumentClient, tableName: string) => Promise<T>) => {
      const { endpoints, tableName } = stack();
      const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: endpoints.dynamodb, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
      try {
        return await read(client, tableName);
      } finally {
        client.destroy();
      }
    };
    const pagesNow = () =>
      withDynamo(async (client, tableName) => new Map((await dynamoPageStore({ client, tableName }).pages(job.bookTextId)).map((p) => [p.pageNumber, p.updatedAt])));
    // The pages the worker counts reported: their POST was answered (a page stored but not yet answered
    // when the stop comes is posted again, as any client retries an unanswered call).
    const reportedNow = () => withDynamo(async (client) => (await dynamoLedger(client, names.ocrLedgerTable).pages(job.jobId)).map((p) => p.pageNumber));
    const status = async () =>
      ((await (await checkedFetch(`${service.url}/ocr/status/${job.jobId}`, { headers: auth })).json()) as { job: { status: string } }).job.status;
    const until = async (done: () => Promise<boolean>, what: string, seconds = 240) => {
      for (const end = Date.now() + seconds * 1000; Date.now() < end; await new Promise((r) => setTimeout(r, 500))) if (await done()) return;
      throw new Error(`timed out waiting for ${what}`);
    };

    // Stop the service once the worker has reported a page, while pages are left; start it again.
    await until(async () => (await reportedNow()).length >= 1, 'the first page');
    const reported = await reportedNow();
    const stored = await pagesNow();
    const before = new Map(reported.map((n) => [n, stored.get(n)]));
    expect(before.size).toBeLessThan(pageCount);
    await service.stop();
    service = await startService(env);
    stop = service.stop;
    await until(async () => (await status()) === 'completed', 'completed');

    const read = (await (await checkedFetch(`${service.url}/ocr/books/${job.bookTextId}`, { headers: auth })).json()) as {
      book: { extractedText: string; pageCount: number; pages: { pageNumber: number; text: string; imageUrl: string | null }[] };
    };
    expect(read.book.pageCount).toBe(pageCount);
    expect(read.book.pages.map((p) => p.pageNumber)).toEqual([1, 2, 3, 4]);
    const source = Array.from({ length: pageCount }, (_, p) => pageLines(p).join('\n')).join('\n\n');
    expect(cer(source, read.book.extractedText, { ignoreDiacritics: true })).toBeLessThan(maxCer);
    console.log(`OCR e2e: character error rate ${cer(source, read.book.extractedText, { ignoreDiacritics: true }).toFixed(3)} without diacritics, ${cer(source, read.book.extractedText).toFixed(3)} with`);
    for (const page of read.book.pages) {
      expect(cer(pageLines(page.pageNumber - 1).join('\n'), page.text, { ignoreDiacritics: true })).toBeLessThan(maxCer);
      const image = await fetch(page.imageUrl!);
      expect(image.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await image.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    }
    // The pages reported before the stop were not read (nor posted) again.
    const after = await pagesNow();
    for (const [pageNumber, updatedAt] of before) expect(after.get(pageNumber)).toBe(updatedAt);

    const invoices = async () => JSON.parse((await cli(['billing', 'invoices', mo.userId], env)).stdout) as { pages: number }[];
    await until(async () => (await invoices()).length > 0, 'the overage invoice', 30);
    expect(await invoices()).toMatchObject([{ pages: 2 }]);

    // The same job message again (a redelivery): nothing is read, posted or charged.
    const message = {
      jobId: job.jobId,
      fileId: job.fileId,
      bookTextId: job.bookTextId,
      userId: mo.userId,
      storage: { bucket: stack().uploadsBucket, key: job.storageKey },
      fileName: job.fileName,
      fileType: 'application/pdf',
      fileSize: pdf.byteLength,
      language: 'ar',
      customPrompt: null,
      metadata: {},
    };
    const sqs = new SQSClient({ endpoint: stack().endpoints.sqs, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    await sqs.send(new SendMessageCommand({ QueueUrl: stack().queueUrls['ocr-jobs'], MessageBody: JSON.stringify(message) }));
    await until(async () => JSON.parse((await cli(['queue', 'peek', 'ocr'], env)).stdout).length === 0, 'the redelivered message to be taken', 60);
    await new Promise((r) => setTimeout(r, 3000));
    expect(await status()).toBe('completed');
    expect(await invoices()).toHaveLength(1);
    expect(await pagesNow()).toEqual(after);

    // Every page read by OCR carries the engine's confidence, and its doubted words as whole words of its text.
    for (const page of read.book.pages as unknown as { text: string; confidence: number | null; uncertain: [number, number][] }[]) {
      expect(page.confidence).toBeGreaterThan(50);
      for (const [start, end] of page.uncertain) expect(page.text.slice(start, end)).toMatch(/^\S+$/u);
    }

    // Page 2 read again, as one block: 202 at once; the worker posts it; the book stays completed and nothing more is charged.
    const reread = await checkedFetch(`${service.url}/ocr/books/${job.bookTextId}/pages/2/reread`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ layout: 'single-block' }),
    });
    expect(reread.status).toBe(202);
    await until(async () => (await pagesNow()).get(2) !== after.get(2), 'page 2 read again', 120);
    const page2 = ((await (await checkedFetch(`${service.url}/ocr/books/${job.bookTextId}?pageOffset=1&pageLimit=1`, { headers: auth })).json()) as {
      book: { pages: { pageNumber: number; text: string; confidence: number | null }[] };
    }).book.pages[0]!;
    expect(page2.pageNumber).toBe(2);
    expect(cer(pageLines(1).join('\n'), page2.text, { ignoreDiacritics: true })).toBeLessThan(maxCer);
    expect(page2.confidence).toBeGreaterThan(50);
    expect(await status()).toBe('completed');
    await new Promise((r) => setTimeout(r, 2000));
    expect(await invoices()).toHaveLength(1);
    const others = await pagesNow();
    for (const n of [1, 3, 4]) expect(others.get(n)).toBe(after.get(n));
  }, 600_000);
});
