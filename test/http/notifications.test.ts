import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeedOutput } from '../../infra/local/seed.ts';
import { rawTokenFor, startApi, seedAccounts } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let fixture: SeedOutput;
const token = (key: string) => fixture.users[key]!.token;

beforeAll(async () => {
  api = await startApi();
  fixture = await seedAccounts(
    stores,
    {
      users: [
        { key: 'ed', username: 'ed', role: 'editor', profilePicture: 'https://example.com/ed.png' },
        { key: 'cara', username: 'cara', profilePicture: 'https://example.com/cara.png', profilePictureKey: 'users/cara.png' },
        { key: 'mo', username: 'mo' },
        { key: 'gone', username: 'gone' },
      ],
      notifications: [
        { key: 'n1', recipient: 'ed', actor: 'cara', type: 'like_on_post', title: 'Like', body: 'cara liked', createdAt: '2026-01-01T00:00:00.000Z' },
        { key: 'n2', recipient: 'ed', actor: null, type: 'announcement', title: 'News', body: 'hello', createdAt: '2026-01-02T00:00:00.000Z' },
        { key: 'n3', recipient: 'ed', actor: 'cara', type: 'comment_on_post', title: 'Comment', body: 'nice', post: '65a1b2c3d4e5f60718293a4b', createdAt: '2026-01-03T00:00:00.000Z' },
        { key: 'n4', recipient: 'ed', actor: 'mo', type: 'reply_to_comment', title: 'Reply', body: 'read one', isRead: true, createdAt: '2026-01-04T00:00:00.000Z' },
        { key: 'n5', recipient: 'ed', actor: 'cara', type: 'new_post', title: 'Post', body: 'newest', createdAt: '2026-01-05T00:00:00.000Z' },
        { key: 'm1', recipient: 'mo', actor: 'ed', type: 'like_on_comment', title: 'Like', body: 'for mo' },
      ],
    },
  );
  await stores.users.delete(fixture.users.gone!.userId);
});

afterAll(() => api?.close());

describe('authentication on /notifications', () => {
  it('answers 401 in plain text without a token', async () => {
    const res = await api.call('GET', '/notifications');
    expect(res).toMatchObject({ status: 401, body: 'Unauthorized: No token provided' });
    expect(res.contentType).toMatch(/^text\/plain/);
  });

  it('answers 403 in plain text for an invalid or expired token, or one that never expires', async () => {
    expect(await api.call('GET', '/notifications/unread-count', { token: 'nonsense' })).toMatchObject({
      status: 403,
      body: 'Forbidden: Invalid token',
    });
    const expired = await rawTokenFor(fixture.users.ed!.userId, { exp: Math.floor(Date.now() / 1000) - 60 });
    expect((await api.call('GET', '/notifications', { token: expired })).status).toBe(403);
    const endless = await rawTokenFor(fixture.users.ed!.userId, {});
    expect(await api.call('GET', '/notifications', { token: endless })).toMatchObject({ status: 403, body: 'Forbidden: Invalid token' });
  });

  it('answers a plain-text 404 when the user behind a valid token no longer exists', async () => {
    expect(await api.call('GET', '/notifications', { token: token('gone') })).toMatchObject({ status: 404, body: 'User not found' });
  });

  it('answers an unknown route like API Gateway', async () => {
    expect(await api.call('GET', '/nothing-here')).toMatchObject({ status: 404, body: { message: 'Not Found' } });
  });
});

describe('GET /notifications', () => {
  it('lists newest first with the actor populated, null for system notifications', async () => {
    const res = await api.call('GET', '/notifications', { token: token('ed') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ currentPage: 1, totalPages: 1, total: 5 });
    const list = res.body.notifications;
    expect(list.map((n: { title: string }) => n.title)).toEqual(['Post', 'Reply', 'Comment', 'News', 'Like']);
    expect(list[0]).toEqual({
      _id: fixture.notifications.n5,
      recipient: fixture.users.ed!.userId,
      actor: {
        _id: fixture.users.cara!.userId,
        username: 'cara',
        profilePicture: 'https://example.com/cara.png',
        profilePictureKey: 'users/cara.png',
      },
      type: 'new_post',
      title: 'Post',
      body: 'newest',
      isRead: false,
      readAt: null,
      createdAt: '2026-01-05T00:00:00.000Z',
      updatedAt: '2026-01-05T00:00:00.000Z',
      __v: 0,
    });
    expect(list[2].post).toBe('65a1b2c3d4e5f60718293a4b');
    expect(list[3].actor).toBeNull();
    expect(list[1].actor).toEqual({ _id: fixture.users.mo!.userId, username: 'mo', profilePicture: null, profilePictureKey: null });
  });

  it('pages with page and limit', async () => {
    const page2 = await api.call('GET', '/notifications?page=2&limit=2', { token: token('ed') });
    expect(page2.body).toMatchObject({ currentPage: 2, totalPages: 3, total: 5 });
    expect(page2.body.notifications.map((n: { title: string }) => n.title)).toEqual(['Comment', 'News']);
    const page3 = await api.call('GET', '/notifications?page=3&limit=2', { token: token('ed') });
    expect(page3.body.notifications.map((n: { title: string }) => n.title)).toEqual(['Like']);
    const beyond = await api.call('GET', '/notifications?page=9&limit=2', { token: token('ed') });
    expect(beyond.body).toEqual({ notifications: [], currentPage: 9, totalPages: 3, total: 5 });
  });

  it("shows only the caller's own inbox", async () => {
    const res = await api.call('GET', '/notifications', { token: token('mo') });
    expect(res.body.total).toBe(1);
    expect(res.body.notifications[0].body).toBe('for mo');
    const empty = await api.call('GET', '/notifications', { token: token('cara') });
    expect(empty.body).toEqual({ notifications: [], currentPage: 1, totalPages: 0, total: 0 });
  });
});

describe('reading notifications', () => {
  it('counts unread, marks one read, and refuses other users’ notifications', async () => {
    const ed = token('ed');
    expect((await api.call('GET', '/notifications/unread-count', { token: ed })).body).toEqual({ unreadCount: 4 });

    const res = await api.call('PUT', `/notifications/${fixture.notifications.n3}/read`, { token: ed });
    expect(res.status).toBe(200);
    const { notification } = res.body;
    expect(notification).toMatchObject({ _id: fixture.notifications.n3, isRead: true, actor: fixture.users.cara!.userId, __v: 1 });
    expect(Date.parse(notification.readAt)).toBeGreaterThan(Date.now() - 60_000);
    expect((await api.call('GET', '/notifications/unread-count', { token: ed })).body).toEqual({ unreadCount: 3 });

    // Marking it again changes nothing and counts nothing.
    const again = await api.call('PUT', `/notifications/${fixture.notifications.n3}/read`, { token: ed });
    expect(again.body.notification.readAt).toBe(notification.readAt);
    expect((await api.call('GET', '/notifications/unread-count', { token: ed })).body).toEqual({ unreadCount: 3 });

    expect(await api.call('PUT', `/notifications/${fixture.notifications.m1}/read`, { token: ed })).toMatchObject({
      status: 404,
      body: { message: 'Notification not found' },
    });
    expect((await api.call('PUT', '/notifications/65a1b2c3d4e5f60718293a4b/read', { token: ed })).status).toBe(404);
    const list = await api.call('GET', '/notifications?limit=1&page=3', { token: ed });
    expect(list.body.notifications[0]).toMatchObject({ title: 'Comment', isRead: true, readAt: notification.readAt });
  });

  it('answers 500 with the operation text for a malformed id', async () => {
    const res = await api.call('PUT', '/notifications/not-an-id/read', { token: token('ed') });
    expect(res.status).toBe(500);
    expect(res.body.message).toBe('Error marking notification as read');
    expect(res.body.error).toMatch(/not-an-id/);
  });

  it('marks all read', async () => {
    const ed = token('ed');
    expect(await api.call('PUT', '/notifications/read-all', { token: ed })).toMatchObject({
      status: 200,
      body: { message: 'All notifications marked as read' },
    });
    expect((await api.call('GET', '/notifications/unread-count', { token: ed })).body).toEqual({ unreadCount: 0 });
    const list = (await api.call('GET', '/notifications', { token: ed })).body.notifications;
    expect(list.every((n: { isRead: boolean; readAt: string | null }) => n.isRead && n.readAt)).toBe(true);
    // Mo's inbox is untouched.
    expect((await api.call('GET', '/notifications/unread-count', { token: token('mo') })).body).toEqual({ unreadCount: 1 });
  });
});

describe('device tokens', () => {
  it('registers with platform ios by default, re-registers, and unregisters', async () => {
    const mo = token('mo');
    const moId = fixture.users.mo!.userId;
    expect(await api.call('POST', '/notifications/device-token', { token: mo, body: { token: 'device-1' } })).toMatchObject({
      status: 200,
      body: { message: 'Device token registered' },
    });
    expect(await stores.devices.get(moId, 'device-1')).toMatchObject({ platform: 'ios', active: true });

    expect(await api.call('DELETE', '/notifications/device-token', { token: mo, body: { token: 'device-1' } })).toMatchObject({
      status: 200,
      body: { message: 'Device token unregistered' },
    });
    expect(await stores.devices.get(moId, 'device-1')).toMatchObject({ active: false });

    await api.call('POST', '/notifications/device-token', { token: mo, body: { token: 'device-1', platform: 'android' } });
    const device = await stores.devices.get(moId, 'device-1');
    expect(device).toMatchObject({ platform: 'android', active: true });
    expect((await stores.devices.listActive(moId)).map((d) => d.token)).toEqual(['device-1']);
  });

  it('moves a phone to the account that registers it last, so the previous account no longer pushes to it', async () => {
    const shared = { token: 'shared-phone', platform: 'ios' };
    await api.call('POST', '/notifications/device-token', { token: token('cara'), body: shared });
    expect((await stores.devices.listActive(fixture.users.cara!.userId)).map((d) => d.token)).toContain('shared-phone');

    await api.call('POST', '/notifications/device-token', { token: token('ed'), body: shared });
    expect((await stores.devices.listActive(fixture.users.ed!.userId)).map((d) => d.token)).toContain('shared-phone');
    expect((await stores.devices.listActive(fixture.users.cara!.userId)).map((d) => d.token)).not.toContain('shared-phone');
    expect(await stores.devices.get(fixture.users.cara!.userId, 'shared-phone')).toMatchObject({ active: false });
  });

  it('unregisters a token that was never registered', async () => {
    expect(
      await api.call('DELETE', '/notifications/device-token', { token: token('cara'), body: { token: 'never-seen' } }),
    ).toMatchObject({ status: 200, body: { message: 'Device token unregistered' } });
  });

  it('answers 400 when the token is missing, empty or not a string', async () => {
    const cara = token('cara');
    for (const body of [undefined, {}, { token: '' }, { token: 42 }]) {
      expect(await api.call('POST', '/notifications/device-token', { token: cara, body })).toMatchObject({
        status: 400,
        body: { message: 'Token is required' },
      });
    }
    // A DELETE with a JSON content type and no body at all.
    expect(
      await api.call('DELETE', '/notifications/device-token', { token: cara, headers: { 'content-type': 'application/json' } }),
    ).toMatchObject({ status: 400, body: { message: 'Token is required' } });
  });

  it('answers 400 for an unknown platform and for a body that is not JSON', async () => {
    const cara = token('cara');
    expect(
      await api.call('POST', '/notifications/device-token', { token: cara, body: { token: 't', platform: 'windows' } }),
    ).toMatchObject({ status: 400, body: { message: 'Platform must be ios or android' } });
    expect(await api.call('POST', '/notifications/device-token', { token: cara, body: '{"token":' })).toMatchObject({
      status: 400,
      body: { message: 'Malformed JSON body' },
    });
  });
});
