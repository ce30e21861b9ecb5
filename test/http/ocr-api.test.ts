import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { newObjectId } from '../../lib/ids.ts';
import { peekQueue } from '../../infra/local/embedded/sqs.ts';
import { s3JobFiles } from '../../ocr-worker/adapters/s3-files.ts';
import { startApi, seedAccounts, tinyPdf, seedUsers, type Account } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

/** `ocr-api` through HTTP: uploads (multipart and presigned), status, text and the job list (docs/SPEC.md 4.1). */
const stores = testStores();
const uploads = s3Objects(s3Client(), process.env.UPLOADS_BUCKET!);
let api: Awaited<ReturnType<typeof startApi>>;
let ed: Account, mo: Account, nosub: Account, lapsed: Account, other: Account;

function form(fields: Record<string, string> = {}, file: { name: string; type: string; data?: Buffer } | null = { name: 'كتاب الأربعين.pdf', type: 'application/pdf' }) {
  const f = new FormData();
  for (const [name, value] of Object.entries(fields)) f.append(name, value);
  if (file) f.append('file', new Blob([file.data ?? tinyPdf], { type: file.type }), file.name);
  return f;
}
const upload = (account: Account, f: FormData) => api.call('POST', '/ocr', { token: account.token, form: f });
const queued = async (jobId: string) =>
  (await peekQueue(process.env.AWS_ENDPOINT_URL_SQS!, process.env.OCR_QUEUE_URL!)).map((b) => JSON.parse(b)).find((m) => m.jobId === jobId);

beforeAll(async () => {
  api = await startApi();
  ({ ed, mo, nosub, lapsed, other } = await seedUsers(stores, [
    { key: 'ed', username: 'ed', role: 'editor' },
    { key: 'mo', username: 'mo', subscription: { tier: 'basic', status: 'active', pagesUsed: 30 } },
    { key: 'nosub', username: 'nosub' },
    { key: 'lapsed', username: 'lapsed', subscription: { tier: 'pro', status: 'past_due' } },
    { key: 'other', username: 'other', subscription: { tier: 'pro', status: 'active' } },
  ]));
});
afterAll(() => api?.close());

describe('POST /ocr (multipart)', () => {
  it('stores the file, a File, a private pending BookText and queues the job', async () => {
    const res = await upload(mo, form({ tags: 'hadith, fiqh', jobMetadata: '{"edition":2}', customPrompt: 'keep diacritics' }));
    expect(res.status).toBe(201);
    const body = res.body;
    expect(body).toMatchObject({
      message: expect.any(String),
      jobId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      bookTextId: expect.stringMatching(/^[0-9a-f]{24}$/),
      fileId: expect.stringMatching(/^[0-9a-f]{24}$/),
      fileName: 'كتاب الأربعين.pdf',
      storageKey: expect.stringMatching(/^ocr\/[0-9a-f-]{36}-كتاب_الأربعين\.pdf$/),
      queueMessageId: expect.any(String),
      status: 'pending',
      usageInfo: { remainingCredits: 70, tierCredits: 100, pagesUsed: 30, billingPeriodEnd: expect.any(String) },
    });
    expect(await uploads.head(body.storageKey)).toMatchObject({ size: tinyPdf.length, contentType: 'application/pdf' });

    const file = await stores.ocr.getFile(body.fileId);
    expect(file).toMatchObject({ author: 'Unknown', visibility: 'private', categories: ['ocr'], tags: ['hadith', 'fiqh'], fileSize: tinyPdf.length });
    const book = await stores.ocr.get(body.bookTextId);
    expect(book).toMatchObject({ status: 'pending', visibility: 'private', language: 'ar', categories: [], tags: ['hadith', 'fiqh'], metadata: { edition: 2 } });

    expect(await queued(body.jobId)).toEqual({
      jobId: body.jobId,
      fileId: body.fileId,
      bookTextId: body.bookTextId,
      userId: mo.userId,
      storage: { bucket: process.env.UPLOADS_BUCKET, key: body.storageKey },
      fileName: 'كتاب الأربعين.pdf',
      fileType: 'application/pdf',
      fileSize: tinyPdf.length,
      language: 'ar',
      customPrompt: 'keep diacritics',
      metadata: { edition: 2 },
      credential: expect.stringMatching(/^mkjob1\./),
    });
  });

  it('keeps the given fields: language, author, categories, visibility (File only) and fileName', async () => {
    const res = await upload(mo, form({ language: 'en', author: 'Ibn Kathir', categories: 'tafsir,history', visibility: 'public', fileName: 'Tafsir vol 1' }));
    expect(res.body.fileName).toBe('Tafsir vol 1');
    expect(await stores.ocr.getFile(res.body.fileId)).toMatchObject({ author: 'Ibn Kathir', categories: ['tafsir', 'history'], visibility: 'public' });
    expect(await stores.ocr.get(res.body.bookTextId)).toMatchObject({ language: 'en', categories: ['tafsir', 'history'], visibility: 'private' });
  });

  it('lets editors upload without a subscription, with unlimited (null) credits', async () => {
    const res = await upload(ed, form({}, { name: 'scan.png', type: 'image/png' }));
    expect(res).toMatchObject({ status: 201, body: { usageInfo: { remainingCredits: null, tierCredits: null, pagesUsed: 0 } } });
  });

  it('refuses members without an active subscription before reading the upload', async () => {
    for (const account of [nosub, lapsed]) {
      expect(await upload(account, form())).toMatchObject({
        status: 403,
        body: { error: 'SUBSCRIPTION_REQUIRED', subscriptionRequired: true },
      });
    }
    // Not even a malformed body is read without a subscription.
    expect((await api.call('POST', '/ocr', { token: nosub.token, body: 'garbage', headers: { 'content-type': 'multipart/form-data' } })).status).toBe(403);
  });

  it('answers 401 and 403 in plain text', async () => {
    expect(await api.call('POST', '/ocr', { form: form() })).toMatchObject({ status: 401, body: 'Unauthorized: No token provided' });
    expect(await api.call('POST', '/ocr', { form: form(), token: 'x.y.z' })).toMatchObject({ status: 403, body: 'Forbidden: Invalid token' });
  });

  it('answers 400 without a file', async () => {
    expect(await upload(mo, form({ language: 'ar' }, null))).toMatchObject({ status: 400, body: { success: false, message: 'No file uploaded' } });
  });

  it('refuses an unsupported type with a plain-text 500', async () => {
    const res = await upload(mo, form({}, { name: 'notes.txt', type: 'text/plain' }));
    expect(res.status).toBe(500);
    expect(res.contentType).toMatch(/^text\/plain/);
    expect(res.body).toMatch(/^Invalid file type: text\/plain/);
  });

  it('answers 500 for invalid jobMetadata and leaves nothing behind', async () => {
    const before = (await api.call('GET', '/ocr/jobs', { token: mo.token })).body.total;
    for (const jobMetadata of ['{not json', '[1,2]']) {
      const res = await upload(mo, form({ jobMetadata }));
      expect(res).toMatchObject({ status: 500, body: { success: false, message: 'Error creating OCR job', error: expect.stringMatching(/jobMetadata/) } });
    }
    expect((await api.call('GET', '/ocr/jobs', { token: mo.token })).body.total).toBe(before);
  });
});

describe('presigned upload for large files', () => {
  it('hands out a POST limited to the declared size and type, then creates the job from the stored object', async () => {
    const scan = Buffer.alloc(64 * 1024, 7);
    const asked = await api.call('POST', '/ocr/uploads', { token: mo.token, body: { fileName: 'big scan.tiff', fileType: 'image/tiff', fileSize: scan.length } });
    expect(asked).toMatchObject({ status: 201, body: { uploadId: expect.any(String), url: expect.any(String), fields: expect.any(Object), storageKey: expect.stringMatching(/^incoming\/.+-big_scan\.tiff$/) } });
    const { uploadId, url, fields } = asked.body;

    // Creating the job before the file is there is refused.
    expect((await api.call('POST', `/ocr/uploads/${uploadId}/job`, { token: mo.token, body: {} })).status).toBe(400);

    const post = new FormData();
    for (const [name, value] of Object.entries(fields as Record<string, string>)) post.append(name, value);
    post.append('file', new Blob([scan], { type: 'image/tiff' }), 'big scan.tiff');
    expect((await fetch(url, { method: 'POST', body: post })).ok).toBe(true);

    expect((await api.call('POST', `/ocr/uploads/${uploadId}/job`, { token: other.token, body: {} })).status).toBe(403);
    const created = await api.call('POST', `/ocr/uploads/${uploadId}/job`, { token: mo.token, body: { language: 'en', tags: ['a', 'b'], jobMetadata: { from: 'presigned' } } });
    expect(created).toMatchObject({ status: 201, body: { status: 'pending', fileName: 'big scan.tiff', storageKey: expect.stringMatching(/^ocr\/.+-big_scan\.tiff$/), usageInfo: { tierCredits: 100 } } });
    expect(await queued(created.body.jobId)).toMatchObject({ fileSize: scan.length, fileType: 'image/tiff', language: 'en', metadata: { from: 'presigned' } });
    expect(await stores.ocr.get(created.body.bookTextId)).toMatchObject({ tags: ['a', 'b'] });

    // One upload makes one job.
    expect((await api.call('POST', `/ocr/uploads/${uploadId}/job`, { token: mo.token, body: {} })).status).toBe(400);
  });

  it('gives the job the bytes that were checked, though the POST can still replace the upload', async () => {
    const original = Buffer.alloc(4096, 1);
    original.write('%PDF-1.4 the book that was checked');
    const swapped = Buffer.alloc(4096, 2);
    swapped.write('%PDF-1.4 something else, same size');
    const asked = await api.call('POST', '/ocr/uploads', { token: mo.token, body: { fileName: 'scan.pdf', fileType: 'application/pdf', fileSize: original.length } });
    const send = (bytes: Buffer) => {
      const post = new FormData();
      for (const [name, value] of Object.entries(asked.body.fields as Record<string, string>)) post.append(name, value);
      post.append('file', new Blob([bytes], { type: 'application/pdf' }), 'scan.pdf');
      return fetch(asked.body.url, { method: 'POST', body: post });
    };
    expect((await send(original)).status).toBe(204);
    const created = await api.call('POST', `/ocr/uploads/${asked.body.uploadId}/job`, { token: mo.token, body: {} });
    expect(created.status).toBe(201);
    // The claimed upload's own object is removed: the job has its copy.
    expect(await uploads.head(asked.body.storageKey)).toBeUndefined();

    // The POST is valid for its hour (S3 would take this too: same size, same type).
    expect((await send(swapped)).status).toBe(204);

    // The job names a key the POST cannot write, and the worker reads (with its own adapter) the checked bytes.
    const message = await queued(created.body.jobId);
    expect(message.storage).toEqual({ bucket: process.env.UPLOADS_BUCKET, key: created.body.storageKey });
    expect(created.body.storageKey).not.toBe(asked.body.storageKey);
    const file = await s3JobFiles(s3Client()).open(message.storage.bucket, message.storage.key);
    expect(Buffer.from(await file.read(0, file.size))).toEqual(original);
    expect(await stores.ocr.getFile(created.body.fileId)).toMatchObject({ storageKey: created.body.storageKey, fileSize: original.length });
    // What the POST stored since is left where no job reads it, to the bucket's lifecycle rule.
    expect(await uploads.getBytes(asked.body.storageKey)).toEqual(new Uint8Array(swapped));
  });

  it('applies the type, size and subscription rules when asked', async () => {
    const ask = (account: Account, body: object) => api.call('POST', '/ocr/uploads', { token: account.token, body });
    expect((await ask(nosub, { fileName: 'a.pdf', fileType: 'application/pdf', fileSize: 10 })).body).toMatchObject({ error: 'SUBSCRIPTION_REQUIRED' });
    const wrongType = await ask(mo, { fileName: 'a.exe', fileType: 'application/x-msdownload', fileSize: 10 });
    expect(wrongType).toMatchObject({ status: 500, body: expect.stringMatching(/^Invalid file type/) });
    const tooBig = await ask(mo, { fileName: 'a.pdf', fileType: 'application/pdf', fileSize: 1000 * 1024 * 1024 + 1 });
    expect(tooBig).toMatchObject({ status: 500, body: expect.stringMatching(/^File too large/) });
    expect((await ask(mo, { fileName: 'a.pdf', fileType: 'application/pdf' })).status).toBe(400);
  });

  it('refuses an object that does not match what was declared, and removes it', async () => {
    const asked = await api.call('POST', '/ocr/uploads', { token: mo.token, body: { fileName: 'x.pdf', fileType: 'application/pdf', fileSize: 100 } });
    // The local S3 stand-in does not enforce the POST policy, so a client can store something else.
    await uploads.put(asked.body.storageKey, Buffer.alloc(5000), 'application/pdf');
    const res = await api.call('POST', `/ocr/uploads/${asked.body.uploadId}/job`, { token: mo.token, body: {} });
    expect(res).toMatchObject({ status: 500, body: expect.stringMatching(/does not match/) });
    expect(await uploads.head(asked.body.storageKey)).toBeUndefined();
  });

  it('answers 404 for an unknown upload', async () => {
    expect((await api.call('POST', `/ocr/uploads/${newObjectId()}/job`, { token: mo.token, body: {} })).status).toBe(404);
  });
});

describe('GET /ocr/status, /ocr/text', () => {
  it('shows a job to its creator, editors and admins only, without text', async () => {
    const { body } = await upload(mo, form());
    const status = await api.call('GET', `/ocr/status/${body.jobId}`, { token: mo.token });
    expect(status).toMatchObject({ status: 200, body: { success: true, job: { jobId: body.jobId, fileId: body.fileId, fileName: 'كتاب الأربعين.pdf', status: 'pending', language: 'ar', pageCount: 0, hasFullText: false, completedAt: null } } });
    expect(status.body.job.extractedText).toBeUndefined();
    expect((await api.call('GET', `/ocr/status/${body.jobId}`, { token: ed.token })).status).toBe(200);
    expect(await api.call('GET', `/ocr/status/${body.jobId}`, { token: other.token })).toMatchObject({ status: 403, body: { message: 'Unauthorized to view this job' } });
    expect(await api.call('GET', `/ocr/text/${body.jobId}`, { token: other.token })).toMatchObject({ status: 403, body: { message: 'Unauthorized to view this text' } });
    expect((await api.call('GET', `/ocr/status/${randomUUID()}`, { token: mo.token })).status).toBe(404);
    expect((await api.call('GET', `/ocr/text/${randomUUID()}`, { token: mo.token })).status).toBe(404);
  });

  it('returns the full text from storage and every page in order', async () => {
    const { body } = await upload(mo, form());
    const long = 'ن'.repeat(12_000);
    const call = (path: string, b: object) => api.call('POST', path, { token: ed.token, body: { jobId: body.jobId, fileId: body.fileId, userId: mo.userId, ...b } });
    for (const n of [3, 1, 2]) await call('/ocr/result/page', { pageNumber: n, text: `page ${n}` });
    await call('/ocr/result', { status: 'completed', extractedText: long, pageCount: 3 });

    const status = await api.call('GET', `/ocr/status/${body.jobId}`, { token: mo.token });
    expect(status.body.job).toMatchObject({ status: 'completed', pageCount: 3, hasFullText: true, completedAt: expect.any(String) });
    const text = await api.call('GET', `/ocr/text/${body.jobId}`, { token: mo.token });
    expect(text.body.success).toBe(true);
    expect(text.body.data).toMatchObject({ jobId: body.jobId, fileId: body.fileId, extractedText: long, language: 'ar', pageCount: 3, status: 'completed' });
    expect(text.body.data.pages.map((p: { pageNumber: number; text: string }) => [p.pageNumber, p.text])).toEqual([[1, 'page 1'], [2, 'page 2'], [3, 'page 3']]);
    // confidence and uncertain: added (docs/interface.md, "Confidence").
    expect(Object.keys(text.body.data.pages[0]).sort()).toEqual(['_id', 'confidence', 'isAIGenerated', 'pageNumber', 'storageKey', 'text', 'uncertain']);
  });
});

describe('GET /ocr/jobs', () => {
  it("lists only the caller's own jobs, newest first, with status filter, limit, offset and total", async () => {
    const u = (
      await seedAccounts(stores, { users: [{ key: 'lister', username: 'lister', subscription: { tier: 'basic', status: 'active' } }] })
    ).users.lister!;
    const jobs: string[] = [];
    for (let i = 0; i < 5; i++) {
      jobs.push((await upload(u, form({ fileName: `book ${i}` }))).body.jobId);
      await new Promise((r) => setTimeout(r, 5));
    }
    await api.call('POST', '/ocr/result', { token: ed.token, body: { jobId: jobs[1], fileId: newObjectId(), userId: u.userId, status: 'failed' } });

    const all = await api.call('GET', '/ocr/jobs', { token: u.token });
    expect(all.body).toMatchObject({ success: true, total: 5, limit: 20, offset: 0 });
    expect(all.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([...jobs].reverse());
    expect(Object.keys(all.body.jobs[0]).sort()).toEqual(
      ['bookTextId', 'categories', 'completedAt', 'createdAt', 'fileId', 'fileName', 'jobId', 'language', 'pageCount', 'pagesProcessed', 'processingTime', 'status', 'tags', 'updatedAt'].sort(),
    );

    const paged = await api.call('GET', '/ocr/jobs?limit=2&offset=1', { token: u.token });
    expect(paged.body).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(paged.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([jobs[3], jobs[2]]);

    const failed = await api.call('GET', '/ocr/jobs?status=failed', { token: u.token });
    expect(failed.body).toMatchObject({ total: 1, jobs: [{ jobId: jobs[1], status: 'failed' }] });
    const pending = await api.call('GET', '/ocr/jobs?status=pending', { token: u.token });
    expect(pending.body.total).toBe(4);

    // Editors see their own jobs here too, not everyone's.
    const edJobs = await api.call('GET', '/ocr/jobs', { token: ed.token });
    expect(edJobs.body.jobs.every((j: { jobId: string }) => !jobs.includes(j.jobId))).toBe(true);
    expect((await api.call('GET', '/ocr/jobs?status=done', { token: u.token })).status).toBe(400);
  });
});
