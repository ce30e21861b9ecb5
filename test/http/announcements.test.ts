import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as announcementWorker } from '../../functions/announcement-worker/handler.ts';
import { announcementRefusals } from '../../functions/notifications-api/contract.ts';
import { startQueueWorker } from '../../infra/local/queue-worker.ts';
import { ledgerPush } from '../../lib/adapters/push/ledger.ts';
import { newObjectId } from '../../lib/ids.ts';
import { announcementQueued, maxBodyLength, maxTitleLength, unknownRecipient } from '../../lib/notifications/announcements.ts';
import { seedUsers, startApi, type Account } from '../support/api.ts';
import { ensureTestTable, testDb, testStores } from '../support/stores.ts';

/**
 * `POST /notifications/announcements` through HTTP (issue 31), with the announcement worker on its
 * queue. An announcement goes to every user of the table, so this file has a table of its own (the
 * functions read TABLE_NAME on their first request).
 */
process.env.TABLE_NAME = `announcements-${randomUUID()}`;
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let worker: { stop(): Promise<void> };
let ad: Account, ed: Account, mo: Account, cara: Account;

beforeAll(async () => {
  await ensureTestTable();
  api = await startApi();
  worker = startQueueWorker(process.env.ANNOUNCEMENT_QUEUE_URL!, announcementWorker);
  ({ ad, ed, mo, cara } = await seedUsers(stores, [
    { key: 'ad', username: 'ad', role: 'admin' },
    { key: 'ed', username: 'ed', role: 'editor' },
    { key: 'mo', username: 'mo' },
    { key: 'cara', username: 'cara' },
  ]));
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

const announce = (body: unknown, account?: Account) => api.call('POST', '/notifications/announcements', { token: account?.token, body });
const inbox = async (account: Account) => (await api.call('GET', '/notifications?limit=100', { token: account.token })).body.notifications as Record<string, unknown>[];
const registerPhone = (account: Account, token: string) =>
  api.call('POST', '/notifications/device-token', { token: account.token, body: { token, platform: 'android' } });

describe('POST /notifications/announcements', () => {
  it('answers 401 and 403 in plain text: no token, a member, an editor', async () => {
    expect(await announce({ type: 'announcement', title: 't', body: 'b' })).toMatchObject({ status: 401, body: 'Unauthorized: No token provided' });
    for (const account of [mo, ed]) {
      expect(await announce({ type: 'announcement', title: 't', body: 'b' }, account)).toMatchObject({ status: 403, body: 'Forbidden: You do not have the required permissions' });
    }
  });

  it('answers 400 with a message for each refused body, writing nothing', async () => {
    const refused: [unknown, string][] = [
      [{ title: 't', body: 'b' }, announcementRefusals.type],
      [{ type: 'broadcast', title: 't', body: 'b' }, announcementRefusals.type],
      [{ type: 'announcement', body: 'b' }, announcementRefusals.title],
      [{ type: 'announcement', title: '   ', body: 'b' }, announcementRefusals.title],
      [{ type: 'announcement', title: 't'.repeat(maxTitleLength + 1), body: 'b' }, announcementRefusals.title],
      [{ type: 'announcement', title: 't' }, announcementRefusals.body],
      [{ type: 'announcement', title: 't', body: 'ب'.repeat(maxBodyLength + 1) }, announcementRefusals.body],
      [{ type: 'announcement', title: 't', body: 'b', recipientId: mo.userId }, announcementRefusals.recipientRefused],
      [{ type: 'admin_message', title: 't', body: 'b' }, announcementRefusals.recipientRequired],
      [{ type: 'admin_message', title: 't', body: 'b', recipientId: newObjectId() }, unknownRecipient],
    ];
    for (const [body, message] of refused) expect(await announce(body, ad), JSON.stringify(body).slice(0, 80)).toMatchObject({ status: 400, body: { message } });
    expect(await inbox(mo)).toEqual([]);
  });

  it('sends an admin message to its one recipient at once, pushed to the recipient’s phone', async () => {
    expect((await registerPhone(cara, 'cara-phone')).status).toBe(200);
    const res = await announce({ type: 'admin_message', title: 'مرحبا', body: 'مكتبتك جاهزة.', recipientId: cara.userId }, ad);
    expect(res).toMatchObject({ status: 201, body: { notification: { type: 'admin_message', recipient: cara.userId, actor: null, title: 'مرحبا', isRead: false } } });
    expect(await inbox(cara)).toMatchObject([{ _id: res.body.notification._id, type: 'admin_message', actor: null }]);
    expect(await inbox(mo)).toEqual([]);
    expect(await ledgerPush(testDb()).sent(cara.userId)).toEqual([
      { token: 'cara-phone', platform: 'android', type: 'admin_message', title: 'مرحبا', body: 'مكتبتك جاهزة.', data: null, sentAt: expect.any(String) },
    ]);
  });

  it('queues an announcement (202) that reaches every user once, the admin included', async () => {
    const res = await announce({ type: 'announcement', title: 'News', body: 'A hundred new books.' }, ad);
    expect(res).toEqual(expect.objectContaining({ status: 202, body: { message: announcementQueued, announcementId: expect.stringMatching(/^[0-9a-f]{24}$/) } }));
    const everyone = [ad, ed, mo, cara];
    for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
      const got = await Promise.all(everyone.map(async (a) => (await inbox(a)).filter((n) => n.type === 'announcement').length));
      if (got.every((n) => n >= 1)) break;
    }
    for (const account of everyone) expect((await inbox(account)).filter((n) => n.type === 'announcement')).toMatchObject([{ title: 'News', actor: null }]);
    expect((await ledgerPush(testDb()).sent(cara.userId)).map((p) => p.type)).toEqual(['admin_message', 'announcement']);
  });
});
