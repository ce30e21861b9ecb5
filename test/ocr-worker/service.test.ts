import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { newObjectId } from '../../lib/ids.ts';
import { peekQueue } from '../../infra/local/embedded/sqs.ts';
import { httpServiceApi } from '../../ocr-worker/client/http-api.ts';
import { ApiRefused, ApiUnavailable } from '../../ocr-worker/client/service-api.ts';
import { workerDocumentClient, workerS3 } from '../../ocr-worker/adapters/aws-clients.ts';
import { dynamoLedger } from '../../ocr-worker/adapters/dynamo-ledger.ts';
import { ensureLedgerTable } from '../../ocr-worker/adapters/ensure-ledger-table.ts';
import { s3JobFiles } from '../../ocr-worker/adapters/s3-files.ts';
import type { OcrJobMessage } from '../../ocr-worker/contract.ts';
import { pageSeparator } from '../../ocr-worker/job/finish.ts';
import { planJob, runPages } from '../../ocr-worker/job/runner.ts';
import { startApi, seedAccounts } from '../support/api.ts';
import { testStores } from '../support/stores.ts';
import { born, fakeWorker, scanned } from './fakes.ts';

/** The worker's API client and its adapters against the local service, as `npm start` runs them (the reading is faked). */
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
type Account = { userId: string; token: string };
let editor: Account, member: Account;
const dynamo = new DynamoDBClient({});
const ledgerTable = `ocr-ledger-${randomUUID()}`;

beforeAll(async () => {
  api = await startApi();
  await ensureLedgerTable(dynamo, ledgerTable);
  const out = await seedAccounts(
    stores,
    { users: [{ key: 'ed', username: 'ed', role: 'editor' }, { key: 'mo', username: 'mo', subscription: { tier: 'basic', status: 'active' } }] },
  );
  ({ ed: editor, mo: member } = out.users as Record<'ed' | 'mo', Account>);
}, 60_000);
afterAll(async () => {
  dynamo.destroy();
  await api?.close();
});

const client = (token = editor.token) => httpServiceApi({ baseUrl: api.url, token, pause: async () => {} });

describe('the service API client', () => {
  it('posts a page, reads the job status, and posts a large final result Brotli-compressed', async () => {
    const job = { jobId: randomUUID(), fileId: newObjectId(), userId: editor.userId };
    const sent: Array<{ encoding?: string; bytes: number }> = [];
    const service = httpServiceApi({
      baseUrl: api.url,
      token: editor.token,
      fetch: (url, init) => {
        const headers = init?.headers as Record<string, string>;
        sent.push({ encoding: headers['content-encoding'], bytes: (init?.body as Buffer | undefined)?.length ?? 0 });
        return fetch(url, init);
      },
    });
    expect(await service.jobStatus(job.jobId)).toBeUndefined();
    await service.postPage({ ...job, pageNumber: 1, text: 'سطر', storageKey: null, pageCount: 1, pagesProcessed: 1 });
    expect(await service.jobStatus(job.jobId)).toBe('processing');
    const extractedText = 'بسم الله الرحمن الرحيم '.repeat(60_000); // 1.4 M characters, 2.6 MB of JSON
    const answer = await service.postResult({ ...job, status: 'completed', extractedText, pageCount: 1, language: 'ar', processingTime: 5 });
    expect(answer).toHaveProperty('usageInfo');
    // Only the large body went compressed: 2.6 MB of JSON in well under 1 MB.
    expect(sent.map((s) => s.encoding)).toEqual([undefined, undefined, undefined, 'br']);
    expect(sent[3]!.bytes).toBeLessThan(1024 * 1024);
    expect(await service.jobStatus(job.jobId)).toBe('completed');
    const text = await api.call('GET', `/ocr/text/${job.jobId}`, { token: editor.token });
    expect(text.body.data.extractedText).toBe(extractedText);
  });

  it('says in its own words when the service refuses a call, without trying again', async () => {
    const job = { jobId: randomUUID(), fileId: newObjectId(), userId: editor.userId };
    const refused = client(member.token).postPage({ ...job, pageNumber: 1, text: '', storageKey: null, pageCount: 1, pagesProcessed: 1 });
    await expect(refused).rejects.toThrow(new ApiRefused('The service refused the result of page 1 (403: Forbidden: You do not have the required permissions)', 403));
  });

  it('tries a call a bounded number of times while the service fails or cannot be reached, then gives up', async () => {
    let calls = 0;
    const failing = httpServiceApi({
      baseUrl: 'http://service.invalid',
      token: 't',
      attempts: 3,
      pause: async () => {},
      fetch: async () => {
        calls += 1;
        if (calls === 1) throw new TypeError('fetch failed');
        return new Response(JSON.stringify({ success: false, message: 'Error processing page result' }), { status: 503 });
      },
    });
    await expect(failing.jobStatus(randomUUID())).rejects.toThrow(
      new ApiUnavailable('The service did not take the status request after 3 attempts (503: Error processing page result)'),
    );
    expect(calls).toBe(3);
  });
});

describe('the job files in the bucket', () => {
  it('reads the upload by byte ranges and puts page images at ocr-pages/<jobId>/<n>.png', async () => {
    const s3 = workerS3();
    const files = s3JobFiles(s3);
    const bucket = process.env.UPLOADS_BUCKET!;
    const key = `ocr/${randomUUID()}-scan.bin`;
    const content = Buffer.from(Array.from({ length: 5_000 }, (_, i) => i % 251));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: content }));
    const bytes = await files.open(bucket, key);
    expect(bytes.size).toBe(5_000);
    expect(Buffer.from(await bytes.read(0, 4))).toEqual(content.subarray(0, 4));
    expect(Buffer.from(await bytes.read(4_990, 6_000))).toEqual(content.subarray(4_990));
    expect((await bytes.read(5_000, 5_100)).length).toBe(0);
    const jobId = randomUUID();
    expect(await files.putPageImage(bucket, jobId, 7, Buffer.from('png'))).toBe(`ocr-pages/${jobId}/7.png`);
    const put = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: `ocr-pages/${jobId}/7.png` }));
    expect(put.ContentType).toBe('image/png');
  });
});

describe('a job through the local service', () => {
  it('ends with the book completed, its pages readable with their images, and the pages charged once', async () => {
    const upload = new FormData();
    upload.append('file', new Blob([Buffer.from('%PDF-1.7 scan')], { type: 'application/pdf' }), 'kitab.pdf');
    const created = await api.call('POST', '/ocr', { token: member.token, form: upload });
    expect(created.status).toBe(201);
    const queued = (await peekQueue(process.env.AWS_ENDPOINT_URL_SQS!, process.env.OCR_QUEUE_URL!))
      .map((body) => JSON.parse(body) as OcrJobMessage)
      .find((m) => m.jobId === created.body.jobId)!;

    const book = [scanned(1), born(2, 'نص الصفحة الثانية'), scanned(3)];
    const ledger = dynamoLedger(workerDocumentClient(dynamo), ledgerTable);
    const { deps } = fakeWorker(book, { api: client(), ledger }, { files: s3JobFiles(workerS3()), pagesPerTask: 2 });
    const plan = await planJob(deps, queued);
    for (const task of plan.tasks) await runPages(deps, queued, task);
    // The message delivered again: nothing more is posted, nothing charged again.
    await planJob(deps, queued);

    const read = await api.call('GET', `/ocr/books/${created.body.bookTextId}`, { token: member.token });
    expect(read.body.book).toMatchObject({ status: 'completed', pageCount: 3, language: 'ar' });
    expect(read.body.book.extractedText).toBe(['text of page 1', 'نص الصفحة الثانية', 'text of page 3'].join(pageSeparator));
    expect(read.body.book.pages.map((p: { pageNumber: number }) => p.pageNumber)).toEqual([1, 2, 3]);
    for (const page of read.body.book.pages) {
      expect(page.storageKey).toBe(`ocr-pages/${queued.jobId}/${page.pageNumber}.png`);
      const image = await fetch(page.imageUrl);
      expect(Buffer.from(await image.arrayBuffer()).toString()).toBe(`scan of page ${page.pageNumber}`);
    }
    // The member's first job: its 3 pages are all the pages they used.
    expect(read.body.book.metadata.usageInfo).toMatchObject({ freePages: 3, totalPagesUsed: 3 });
  });
});
