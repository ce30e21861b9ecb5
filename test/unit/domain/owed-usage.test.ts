import { beforeEach, describe, expect, it, vi } from 'vitest';
import { billOwedUsage, owedUsageSchedule } from '../../../lib/billing/owed-usage.ts';
import { newJobId, newObjectId } from '../../../lib/ids.ts';
import { metadataView } from '../../../lib/ocr/book-text.ts';
import { recordFinalResult, usageErrorText } from '../../../lib/ocr/jobs/callbacks.ts';
import { fakeWorld, type FakeWorld } from '../../support/fakes/index.ts';
import { aSubscription, storedJob, storedUser } from './fixtures.ts';

/**
 * Issue 29: a completed job is always billed once. The completion owes its usage in the same write
 * as its status; what the callback cannot record, the billing worker's reconciler does.
 */
let world: FakeWorld;
const march = '2026-03-01T00:00:00.000Z';
beforeEach(() => {
  world = fakeWorld({ now: '2026-03-15T12:00:00.000Z' });
});

async function subscriber(used = 95) {
  const owner = await storedUser(world);
  await world.subscriptions.put(aSubscription(owner.userId, 'basic'));
  await world.subscriptions.setPagesUsed(owner.userId, march, used);
  const { book } = await storedJob(world, owner.userId, { status: 'processing' });
  return { ...book, owner };
}
const complete = (job: { jobId: string; fileId: string; userId: string }, fields: Record<string, unknown> = {}) =>
  recordFinalResult(world.callbackDeps(), { jobId: job.jobId, fileId: job.fileId, userId: job.userId, status: 'completed', pageCount: 10, ...fields });
const used = (userId: string) => world.subscriptions.pagesUsed(userId, march);
const stored = async (jobId: string) => (await world.ocr.byJobId(jobId))!;
const reconcile = () => billOwedUsage(world.owedUsageDeps(), { now: world.clock.now, hasTime: () => true });
/** The usage write fails once, after the status write (DynamoDB throttled or gone mid-burst). */
const usageWriteFailsOnce = () => vi.spyOn(world.usage, 'record').mockRejectedValueOnce(new Error('ProvisionedThroughputExceededException'));
const expected = { freePages: 5, overagePages: 5, overageChargeCents: 10, totalPagesUsed: 105, remainingCredits: 0, paymentStatus: 'pending' };

describe('a completion whose usage could not be recorded', () => {
  it('is owed with its status, and the reconciler bills it once: a second run charges nothing', async () => {
    const job = await subscriber();
    usageWriteFailsOnce();
    expect(await complete(job)).toMatchObject({ status: 'completed', usageInfo: null });
    expect((await stored(job.jobId)).status).toBe('completed');
    expect(metadataView(await stored(job.jobId))).toMatchObject({ usageError: usageErrorText });
    expect(world.usage.logs.size).toBe(0);

    world.clock.advance(owedUsageSchedule.graceMs + 1000);
    expect(await reconcile()).toEqual({ billed: 1, failed: 0, oldestOwedSeconds: 61 });
    expect(await world.usage.forJob(job.jobId)).toMatchObject({ pages: 10, ...expected, createdAt: '2026-03-15T12:00:00.000Z' });
    expect(await used(job.owner.userId)).toBe(105);
    const book = metadataView(await stored(job.jobId));
    expect(book.usageInfo).toEqual(expected);
    expect(book.usageError).toBeUndefined();

    world.clock.advance(60_000);
    expect(await reconcile()).toEqual({ billed: 0, failed: 0, oldestOwedSeconds: 0 });
    expect(await used(job.owner.userId)).toBe(105);
    expect(world.usage.logs.size).toBe(1);
  });

  it('answers the real usageInfo when the worker sends the result again, counting the pages once', async () => {
    const job = await subscriber();
    usageWriteFailsOnce();
    expect((await complete(job)).usageInfo).toBeNull();
    expect((await complete(job)).usageInfo).toEqual(expected);
    expect((await complete(job)).usageInfo).toEqual(expected);
    expect(await used(job.owner.userId)).toBe(105);
    expect(world.owedUsage.markers.size).toBe(0);
    expect(await reconcile()).toMatchObject({ billed: 0 });
  });

  it('keeps the marker when it could not be settled after the usage was recorded; the reconciler settles it, counting nothing', async () => {
    const job = await subscriber();
    vi.spyOn(world.owedUsage, 'settle').mockRejectedValueOnce(new Error('InternalServerError'));
    expect((await complete(job)).usageInfo).toEqual(expected);
    expect(world.owedUsage.markers.has(job.jobId)).toBe(true);
    world.clock.advance(owedUsageSchedule.graceMs + 1000);
    expect(await reconcile()).toMatchObject({ billed: 1, failed: 0 });
    expect(world.owedUsage.markers.size).toBe(0);
    expect(await used(job.owner.userId)).toBe(105);
    expect(world.usage.logs.size).toBe(1);
  });

  it('counts in the period of the completion, not of the reconciling run', async () => {
    const job = await subscriber(0);
    world.clock.set('2026-03-31T23:59:30.000Z');
    usageWriteFailsOnce();
    await complete(job);
    world.clock.set('2026-04-01T00:05:00.000Z');
    expect(await reconcile()).toMatchObject({ billed: 1 });
    expect(await world.usage.forJob(job.jobId)).toMatchObject({ periodStart: march });
    expect(await used(job.owner.userId)).toBe(10);
  });

  it('owes an orphan’s completion too (it is completed by the write that owes it)', async () => {
    const owner = await storedUser(world);
    const job = { jobId: newJobId(), fileId: newObjectId(), userId: owner.userId };
    usageWriteFailsOnce();
    expect(await complete(job, { pageCount: 3 })).toMatchObject({ status: 'completed', usageInfo: null });
    expect((await stored(job.jobId)).status).toBe('completed');
    world.clock.advance(owedUsageSchedule.graceMs + 1000);
    expect(await reconcile()).toMatchObject({ billed: 1 });
    expect(await world.usage.forJob(job.jobId)).toMatchObject({ userId: owner.userId, pages: 3 });
  });
});

describe('the reconciler', () => {
  it('leaves a marker younger than the grace to its callback', async () => {
    const job = await subscriber();
    usageWriteFailsOnce();
    await complete(job);
    world.clock.advance(owedUsageSchedule.graceMs - 1000);
    expect(await reconcile()).toEqual({ billed: 0, failed: 0, oldestOwedSeconds: 59 });
    expect(world.usage.logs.size).toBe(0);
  });

  it('keeps what it cannot bill owed, and reports its age for the alarm', async () => {
    const job = { jobId: newJobId(), fileId: newObjectId(), userId: newObjectId() };
    // No user record: the usage cannot be recorded, by the callback or by the reconciler.
    expect(await complete(job)).toMatchObject({ usageInfo: null });
    world.clock.advance(owedUsageSchedule.oldestOwedAlarmSeconds * 1000);
    expect(await reconcile()).toEqual({ billed: 0, failed: 1, oldestOwedSeconds: owedUsageSchedule.oldestOwedAlarmSeconds });
    expect(world.owedUsage.markers.has(job.jobId)).toBe(true);
  });

  it('owes nothing for a completion without pages, nor for another status', async () => {
    const job = await subscriber();
    await complete(job, { pageCount: undefined });
    for (const status of ['processing', 'failed', 'pending']) await complete(job, { status });
    expect(world.owedUsage.markers.size).toBe(0);
  });
});
