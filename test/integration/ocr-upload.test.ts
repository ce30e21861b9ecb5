import { jobCredentials } from '../../lib/auth/job-credentials.ts';
import { localMacKey } from '../../lib/auth/local-mac.ts';
import { describe, expect, it } from 'vitest';
import { jobFieldsOf } from '../support/bodies.ts';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import type { SubscriptionStore } from '../../lib/billing/subscriptions.ts';
import { defaultTierCatalogue } from '../../lib/billing/tiers.ts';
import { DomainError } from '../../lib/errors.ts';
import type { OcrJobStore } from '../../lib/ocr/jobs/store.ts';
import { uploadKey } from '../../lib/ocr/jobs/fields.ts';
import { requireSubscription } from '../../lib/ocr/access.ts';
import { createJob, JobNotQueued, type UploadDeps } from '../../lib/ocr/jobs/upload.ts';
import { changedAfterCheck, createJobFromUpload, requestUpload } from '../../lib/ocr/jobs/presigned-upload.ts';
import { dynamoUploadStore } from '../../lib/adapters/dynamo/uploads.ts';
import { testDb, testStores } from '../support/stores.ts';
import { aUser } from '../unit/domain/fixtures.ts';

/** What a failure half way through `POST /ocr` leaves behind (docs/SPEC.md 4.1, errors). */
const stores = testStores();
const uploads = s3Objects(s3Client(), process.env.UPLOADS_BUCKET!);
const member = aUser('member');
const activeSubscription = {
  userId: member.userId,
  tier: 'basic',
  status: 'active' as const,
  currentPeriodStart: '2026-11-01T00:00:00.000Z',
  currentPeriodEnd: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
};
const snapshot = { remainingCredits: 100, tierCredits: 100, pagesUsed: 0, billingPeriodEnd: '2026-12-01T00:00:00.000Z' };

function uploadDeps(overrides: Partial<UploadDeps> = {}): UploadDeps {
  return {
    ocrJobs: stores.ocrJobs,
    index: stores.index,
    uploads,
    uploadsBucket: process.env.UPLOADS_BUCKET!,
    ocrQueue: { send: async () => ({ messageId: 'm-1' }) },
    subscriptions: stores.subscriptions,
    tierCatalogue: defaultTierCatalogue,
    jobCredentials: jobCredentials(localMacKey(async () => 'a test secret')),
    now: () => new Date(),
    ...overrides,
  };
}

async function storedFile() {
  const storageKey = uploadKey('scan.pdf');
  await uploads.put(storageKey, '%PDF-1.4', 'application/pdf');
  return { storageKey, originalName: 'scan.pdf', fileType: 'application/pdf', fileSize: 8 };
}

describe('creating an OCR job when a step fails', () => {
  it('keeps the File and the pending BookText when only the queue send fails, and answers 500', async () => {
    const failingQueue = { send: async () => Promise.reject(new Error('SQS unavailable')) };
    const stored = await storedFile();
    let jobId = '';
    const ocrJobs: OcrJobStore = { ...stores.ocrJobs, create: (bookText, file, queued) => ((jobId = bookText.jobId), stores.ocrJobs.create(bookText, file, queued)) };
    const error = await createJob(uploadDeps({ ocrJobs, ocrQueue: failingQueue }), member, stored, jobFieldsOf({}), snapshot, { removeObjectOnFailure: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('internal');
    const book = await stores.ocr.byJobId(jobId);
    expect(book).toMatchObject({ status: 'pending', visibility: 'private' });
    expect(await stores.ocr.getFile(book!.fileId)).toMatchObject({ storageKey: stored.storageKey });
    expect(await uploads.head(stored.storageKey)).toBeDefined();
  });

  it('removes the stored file when the records cannot be written, and queues nothing', async () => {
    const stored = await storedFile();
    let sent = 0;
    const ocrJobs: OcrJobStore = { ...stores.ocrJobs, create: async () => Promise.reject(new Error('DynamoDB unavailable')) };
    const deps = uploadDeps({ ocrJobs, ocrQueue: { send: async () => ({ messageId: String(++sent) }) } });
    await expect(createJob(deps, member, stored, jobFieldsOf({}), snapshot, { removeObjectOnFailure: true })).rejects.toMatchObject({ kind: 'internal' });
    expect(sent).toBe(0);
    expect(await uploads.head(stored.storageKey)).toBeUndefined();
  });
});

describe('creating a job from a presigned upload when the queue send fails', () => {
  it('keeps the upload used by the saved job, so a retry cannot make a second job from it', async () => {
    const pendingUploads = dynamoUploadStore(testDb());
    const deps = { ...uploadDeps({ ocrQueue: { send: async () => Promise.reject(new Error('SQS unavailable')) } }), pendingUploads };
    const asked = await requestUpload(deps, member, { fileName: 'scan.pdf', fileType: 'application/pdf', fileSize: 8 });
    await uploads.put(asked.storageKey, '%PDF-1.4', 'application/pdf');
    const gate = { subscription: activeSubscription };
    await expect(createJobFromUpload(deps, member, asked.uploadId, jobFieldsOf({}), gate)).rejects.toBeInstanceOf(JobNotQueued);
    const jobId = (await pendingUploads.get(asked.uploadId))!.jobId!;
    expect(await stores.ocr.byJobId(jobId)).toMatchObject({ status: 'pending' });

    const working = { ...deps, ocrQueue: { send: async () => ({ messageId: 'm-2' }) } };
    await expect(createJobFromUpload(working, member, asked.uploadId, jobFieldsOf({}), gate)).rejects.toMatchObject({ kind: 'bad_request' });
  });
});

describe('creating a job from a presigned upload replaced while it is checked', () => {
  it('copies nothing, answers that the file changed, and leaves the upload open for a retry that checks it anew', async () => {
    const pendingUploads = dynamoUploadStore(testDb());
    let sent = 0;
    const deps = { ...uploadDeps({ ocrQueue: { send: async () => ({ messageId: String(++sent) }) } }), pendingUploads };
    const asked = await requestUpload(deps, member, { fileName: 'scan.pdf', fileType: 'application/pdf', fileSize: 8 });
    await uploads.put(asked.storageKey, '%PDF-1.4', 'application/pdf');
    // The client's POST lands again between the server's check of the object and its copy.
    const racing = {
      ...deps,
      uploads: { ...uploads, head: async (key: string) => { const seen = await uploads.head(key); await uploads.put(key, '%PDF-1.7', 'application/pdf'); return seen; } },
    };
    const gate = { subscription: activeSubscription };
    await expect(createJobFromUpload(racing, member, asked.uploadId, jobFieldsOf({}), gate)).rejects.toMatchObject({ kind: 'bad_request', message: changedAfterCheck });
    expect(sent).toBe(0);
    expect(await pendingUploads.get(asked.uploadId)).toMatchObject({ jobId: null });

    const created = await createJobFromUpload(deps, member, asked.uploadId, jobFieldsOf({}), gate);
    expect(await uploads.getText(created.storageKey)).toBe('%PDF-1.7');
  });
});

describe('the subscription gate', () => {
  const failing: SubscriptionStore = { ...stores.subscriptions, get: async () => Promise.reject(new Error('timeout')) };

  it('answers 500 when the subscription cannot be verified', async () => {
    await expect(requireSubscription(failing, member)).rejects.toMatchObject({ kind: 'internal' });
  });

  it('lets editors and admins through without reading a subscription', async () => {
    await expect(requireSubscription(failing, { ...member, role: 'editor' })).resolves.toBeUndefined();
    await expect(requireSubscription(failing, { ...member, role: 'admin' })).resolves.toBeUndefined();
  });
});
