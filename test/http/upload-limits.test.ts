import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { dynamoUploadStore } from '../../lib/adapters/dynamo/uploads.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { sweepUploads } from '../../lib/ocr/jobs/presigned-upload.ts';
import { maxOpenUploads } from '../../lib/ocr/jobs/upload-rules.ts';
import { startApi, seedAccounts, seedUsers, type Account } from '../support/api.ts';
import { testDb, testStores, ensureTestTable } from '../support/stores.ts';

/**
 * Issue 12, finding 9: presigned uploads nobody claims. A member holds at most `maxOpenUploads`
 * uploads not yet made into jobs; an upload still unclaimed a day after it was asked for is removed,
 * object and record, by the sweeper; a claimed one is kept. Own table: the sweeper reads every
 * unclaimed upload of the table.
 */
process.env.TABLE_NAME = `uploads-${randomUUID()}`;
const stores = testStores();
const objects = s3Objects(s3Client(), process.env.UPLOADS_BUCKET!);
const pendingUploads = dynamoUploadStore(testDb());
let api: Awaited<ReturnType<typeof startApi>>;
let mo: Account, ann: Account;

beforeAll(async () => {
  await ensureTestTable();
  api = await startApi();
  ({ mo, ann } = await seedUsers(stores, [
    { key: 'mo', username: 'mo', subscription: { tier: 'pro', status: 'active' } },
    { key: 'ann', username: 'ann', subscription: { tier: 'pro', status: 'active' } },
  ]));
}, 120_000);
afterAll(() => api?.close());

const ask = (account: Account, name = 'scan.pdf') =>
  api.call('POST', '/ocr/uploads', { token: account.token, body: { fileName: name, fileType: 'application/pdf', fileSize: 4 } });
const makeJob = async (account: Account, asked: { uploadId: string; storageKey: string }) => {
  await objects.put(asked.storageKey, Buffer.from('%PDF'), 'application/pdf');
  return api.call('POST', `/ocr/uploads/${asked.uploadId}/job`, { token: account.token, body: {} });
};

describe('open presigned uploads per user', () => {
  it(`allows ${maxOpenUploads} uploads not yet made into jobs, then answers 429 until one is used`, async () => {
    const asked = await Promise.all(Array.from({ length: maxOpenUploads }, () => ask(mo)));
    expect(asked.map((a) => a.status)).toEqual(asked.map(() => 201));
    const refused = await ask(mo);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, message: `You have ${maxOpenUploads} uploads not yet made into jobs: create a job from one, or wait a day until they are removed` });
    // Another member is not affected.
    expect((await ask(ann)).status).toBe(201);
    // A job made from one frees its place.
    expect((await makeJob(mo, asked[0]!.body)).status).toBe(201);
    expect((await ask(mo)).status).toBe(201);
    expect((await ask(mo)).status).toBe(429);
  });

  it('never lets racing requests past the cap', async () => {
    const racing = await Promise.all(Array.from({ length: maxOpenUploads + 10 }, () => ask(ann)));
    // ann already holds one upload from the test above.
    expect(racing.filter((r) => r.status === 201)).toHaveLength(maxOpenUploads - 1);
    expect(racing.filter((r) => r.status === 429)).toHaveLength(11);
  });
});

describe('the upload sweeper', () => {
  it('removes uploads still unclaimed after a day, object and record, keeps claimed and recent ones, and frees their places', async () => {
    const me = await seedAccounts(stores, { users: [{ key: 'sam', username: 'sam', subscription: { tier: 'pro', status: 'active' } }] });
    const sam = me.users.sam as Account;
    const unclaimed = (await ask(sam, 'never.pdf')).body;
    await objects.put(unclaimed.storageKey, Buffer.from('%PDF'), 'application/pdf');
    const claimed = (await ask(sam, 'used.pdf')).body;
    const job = await makeJob(sam, claimed);
    expect(job.status).toBe(201);

    // An hour on, nothing is old enough.
    const deps = { pendingUploads, uploads: objects };
    expect(await sweepUploads(deps, new Date(Date.now() + 60 * 60 * 1000))).toMatchObject({ removed: 0 });
    expect(await objects.head(unclaimed.storageKey)).toBeDefined();

    const later = new Date(Date.now() + 25 * 60 * 60 * 1000);
    const swept = await sweepUploads(deps, later);
    expect(swept.removed).toBeGreaterThanOrEqual(1);
    expect(await objects.head(unclaimed.storageKey)).toBeUndefined();
    expect(await pendingUploads.get(unclaimed.uploadId)).toBeUndefined();
    // The claimed upload's job keeps its file (a copy: the upload's own object went when the job was made).
    expect(await objects.head(job.body.storageKey)).toBeDefined();
    // The swept upload can no longer make a job.
    expect((await api.call('POST', `/ocr/uploads/${unclaimed.uploadId}/job`, { token: sam.token, body: {} })).status).toBe(404);
    // Sweeping again finds nothing left of it.
    expect(await sweepUploads(deps, later)).toMatchObject({ removed: 0 });
    // Its place is free again: sam may hold maxOpenUploads open uploads.
    const asked = await Promise.all(Array.from({ length: maxOpenUploads }, () => ask(sam)));
    expect(asked.every((a) => a.status === 201)).toBe(true);
  });
});
