import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoAnnouncements, dynamoAudience } from '../../lib/adapters/dynamo/announcements.ts';
import { keys, userListShards } from '../../lib/adapters/dynamo/keys.ts';
import { newObjectId } from '../../lib/ids.ts';
import type { NewNotification } from '../../lib/notifications/store.ts';
import { ensureTestTable, testDb, testStores } from '../support/stores.ts';

/**
 * The stores of issue 31's fan-out against DynamoDB Local: batched notifications, the audience, the
 * progress records. The audience is every user of the table, so this file has a table of its own.
 */
process.env.TABLE_NAME = `announcements-${randomUUID()}`;
beforeAll(() => ensureTestTable(), 60_000);

const notice = (recipientId: string, notificationId = newObjectId()): NewNotification => ({
  notificationId,
  recipientId,
  actorId: null,
  type: 'announcement',
  title: 't',
  body: 'b',
  post: null,
  comment: null,
  isRead: false,
  createdAt: new Date().toISOString(),
});

describe('createMany', () => {
  it('stores one notification per recipient in batches, skips the ones already there, and counts each inbox once', async () => {
    const { notifications } = testStores();
    const recipients = Array.from({ length: 70 }, () => newObjectId());
    const batch = recipients.map((r) => notice(r));
    expect(await notifications.createMany(batch)).toHaveLength(70);
    // Run again (a redelivered step): nothing new, nothing counted twice.
    expect(await notifications.createMany(batch)).toEqual([]);
    for (const r of recipients.slice(0, 5)) {
      expect(await notifications.counters(r)).toEqual({ total: 1, unread: 1 });
      expect(await notifications.range(r, 1, 1)).toMatchObject([{ seq: 1, type: 'announcement' }]);
    }
  }, 120_000);

  it('makes a refused batch one by one: an inbox written before its counter named its recipient keeps counting', async () => {
    const { notifications } = testStores();
    const old = newObjectId();
    await notifications.create(notice(old));
    // As an inbox counter written before `recipientId` was kept on it.
    await testDb().client.send(new UpdateCommand({ TableName: process.env.TABLE_NAME!, Key: keys.inbox(old), UpdateExpression: 'REMOVE recipientId' }));
    const fresh = newObjectId();
    const created = await notifications.createMany([notice(old), notice(fresh)]);
    expect(created.map((n) => [n.recipientId, n.seq])).toEqual([
      [old, 2],
      [fresh, 1],
    ]);
    expect(await notifications.counters(old)).toEqual({ total: 2, unread: 2 });
  });
});

describe('the audience', () => {
  it('lists every user in its partition by id, a page after a given id', async () => {
    const { users } = testStores();
    const at = new Date().toISOString();
    const ids = Array.from({ length: 60 }, () => newObjectId());
    for (const userId of ids) await users.put({ userId, username: userId, email: `${userId}@x.test`, role: 'member', profilePicture: null, profilePictureKey: null, createdAt: at, updatedAt: at });
    const audience = dynamoAudience(testDb());
    const listed: string[] = [];
    for (let shard = 0; shard < userListShards; shard++) {
      const all = await audience.page(shard, null, 1_000);
      expect(all).toEqual([...all].sort());
      const firstTwo = await audience.page(shard, null, 2);
      expect(firstTwo).toEqual(all.slice(0, 2));
      if (all.length > 2) expect(await audience.page(shard, all[1]!, 1_000)).toEqual(all.slice(2));
      listed.push(...all);
    }
    expect(listed.sort()).toEqual([...ids].sort());
  });
});

describe('the announcement store', () => {
  it('moves a partition on once per step, notes its message sent, and lists only the stalled open ones', async () => {
    const store = dynamoAnnouncements(testDb());
    const announcementId = newObjectId();
    const long = '2026-01-01T00:00:00.000Z';
    await store.create({ announcementId, title: 't', body: 'b', createdBy: newObjectId(), createdAt: long }, 3, long);
    expect(await store.get(announcementId)).toMatchObject({ title: 't' });
    const shard = (await store.shard(announcementId, 1))!;
    expect(shard).toMatchObject({ step: 0, after: null, nextSent: true, done: false, notified: 0 });

    const at = new Date().toISOString();
    expect(await Promise.all([store.advance(shard, { after: 'u5', done: false, notified: 5 }, at), store.advance(shard, { after: 'u5', done: false, notified: 5 }, at)])).toEqual(
      expect.arrayContaining([true, false]),
    );
    expect(await store.shard(announcementId, 1)).toMatchObject({ step: 1, after: 'u5', nextSent: false, notified: 5 });
    await store.markSent(announcementId, 1, 1, at);
    expect(await store.shard(announcementId, 1)).toMatchObject({ step: 1, nextSent: true, updatedAt: at });

    const stalled = await store.stalled('2026-06-01T00:00:00.000Z', 100);
    expect(stalled.filter((s) => s.announcementId === announcementId).map((s) => s.shard).sort()).toEqual([0, 2]);
    const moved = (await store.shard(announcementId, 1))!;
    expect(await store.advance(moved, { after: 'u9', done: true, notified: 9 }, at)).toBe(true);
    expect((await store.stalled(new Date(Date.now() + 60_000).toISOString(), 100)).filter((s) => s.announcementId === announcementId).map((s) => s.shard).sort()).toEqual([0, 2]);
  });
});
