import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peekQueue } from '../../infra/local/embedded/sqs.ts';
import { jobCredentials } from '../../lib/auth/job-credentials.ts';
import { localMacKey } from '../../lib/auth/local-mac.ts';
import { outsideGrant } from '../../lib/ocr/jobs/callbacks.ts';
import { jobPageCap } from '../../lib/ocr/jobs/upload.ts';
import { startApi, uploadPdf, seedUsers, type Account } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

/**
 * The job credential (issue 28): the service issues one per job and carries it in the job message;
 * the OCR worker calls the callbacks and the job's status with it, for that job alone, its owner and
 * at most the page cap. A forged one, or one used anywhere else, is refused as an invalid token.
 */
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let mo: Account, other: Account, ed: Account;

interface Job {
  jobId: string;
  fileId: string;
  bookTextId: string;
  userId: string;
  credential: string;
}
async function uploadAs(account: Account): Promise<Job> {
  const { jobId } = await uploadPdf(api, account.token, { name: 'kitab.pdf' });
  const messages = (await peekQueue(process.env.AWS_ENDPOINT_URL_SQS!, process.env.OCR_QUEUE_URL!)).map((b) => JSON.parse(b) as Job);
  return messages.find((m) => m.jobId === jobId)!;
}
const ids = (job: Job) => ({ jobId: job.jobId, fileId: job.fileId, userId: job.userId });
const page = (job: Job, token: string, extra: object = {}) => api.call('POST', '/ocr/result/page', { token, body: { ...ids(job), pageNumber: 1, text: 'نص', ...extra } });
const result = (job: Job, token: string, extra: object = {}) => api.call('POST', '/ocr/result', { token, body: { ...ids(job), status: 'processing', ...extra } });

beforeAll(async () => {
  api = await startApi();
  ({ mo, other, ed } = await seedUsers(stores, [
    { key: 'mo', username: 'mo', subscription: { tier: 'basic', status: 'active' } },
    { key: 'other', username: 'other', subscription: { tier: 'basic', status: 'active' } },
    { key: 'ed', username: 'ed', role: 'editor' },
  ]));
});
afterAll(() => api?.close());

describe('a job credential', () => {
  it('comes with each job message, and reports pages, the status and the result of that job', async () => {
    const job = await uploadAs(mo);
    expect(job.credential).toMatch(/^mkjob1\.[\w-]+\.[\w-]+$/);
    expect((await page(job, job.credential)).status).toBe(200);
    const status = await api.call('GET', `/ocr/status/${job.jobId}`, { token: job.credential });
    expect(status).toMatchObject({ status: 200, body: { job: { jobId: job.jobId, status: 'processing' } } });
    const done = await result(job, job.credential, { status: 'completed', pageCount: 1, extractedText: 'نص' });
    expect(done).toMatchObject({ status: 201, body: { status: 'completed' } });
    expect((await stores.ocr.byJobId(job.jobId))!.pageCount).toBe(1);
  });

  it('reports on no other job, for no other owner, and no page or count past its cap', async () => {
    const job = await uploadAs(mo);
    const theirs = await uploadAs(other);
    const refused = { status: 403, body: { success: false, message: outsideGrant } };
    expect(await page(theirs, job.credential)).toMatchObject(refused);
    expect(await page({ ...job, userId: other.userId }, job.credential)).toMatchObject(refused);
    expect(await page({ ...job, fileId: theirs.fileId }, job.credential)).toMatchObject(refused);
    expect(await page(job, job.credential, { pageNumber: jobPageCap + 1 })).toMatchObject(refused);
    expect(await page(job, job.credential, { pageCount: jobPageCap + 1 })).toMatchObject(refused);
    // The 100,000-page completion that a standing editor token could post, billing anyone: refused.
    expect(await result(job, job.credential, { status: 'completed', pageCount: 100_000 })).toMatchObject(refused);
    expect(await result(job, job.credential, { pages: [{ pageNumber: jobPageCap + 1, text: 'x' }] })).toMatchObject(refused);
    expect(await api.call('GET', `/ocr/status/${theirs.jobId}`, { token: job.credential })).toMatchObject({ status: 403 });
    // Nothing of theirs was touched.
    expect((await stores.ocr.byJobId(theirs.jobId))!.status).toBe('pending');
    expect(await stores.pages.pages((await stores.ocr.byJobId(theirs.jobId))!.bookTextId)).toEqual([]);
  });

  it('is an invalid token when forged, signed with another key, expired, or used on any other route', async () => {
    const job = await uploadAs(mo);
    const [head, payload] = job.credential.split('.');
    const grant = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const raised = Buffer.from(JSON.stringify({ ...grant, maxPages: 100_000 })).toString('base64url');
    const forged = [`${head}.${raised}.${job.credential.split('.')[2]}`, `${job.credential.slice(0, -2)}AA`];
    const otherKey = await jobCredentials(localMacKey(async () => 'not the service secret')).issue(
      { jobId: job.jobId, userId: job.userId, fileId: job.fileId, maxPages: 10 },
      new Date(),
    );
    const expired = await jobCredentials(localMacKey(async () => process.env.AUTH_JWT_SECRET!)).issue(
      { jobId: job.jobId, userId: job.userId, fileId: job.fileId, maxPages: 10 },
      new Date(Date.now() - 400 * 24 * 3600 * 1000),
    );
    for (const token of [...forged, otherKey, expired]) {
      expect(await page(job, token), token).toMatchObject({ status: 403, body: 'Forbidden: Invalid token' });
    }
    // Not a token of any user: the owner's own routes refuse it.
    for (const path of [`/ocr/books/${job.bookTextId}`, '/ocr/jobs', `/ocr/text/${job.jobId}`, '/notifications']) {
      expect(await api.call('GET', path, { token: job.credential }), path).toMatchObject({ status: 403, body: 'Forbidden: Invalid token' });
    }
  });

  it('leaves editors and admins reporting on any job with their own token, as docs/SPEC.md says', async () => {
    const job = await uploadAs(other);
    expect((await page(job, ed.token, { pageNumber: 5_000 })).status).toBe(200);
    expect((await result(job, ed.token)).status).toBe(201);
  });
});
