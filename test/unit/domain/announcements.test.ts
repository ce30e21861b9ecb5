import { beforeEach, describe, expect, it } from 'vitest';
import { newObjectId } from '../../../lib/ids.ts';
import {
  announcementQueued,
  announcementStallMinutes,
  resumeStalledAnnouncements,
  runAnnouncementStep,
  sendSystemMessage,
  unknownRecipient,
  usersPerStep,
  type AnnouncementDeps,
  type AnnouncementMessage,
} from '../../../lib/notifications/announcements.ts';
import { FakeAnnouncements, FakeAudience } from '../../support/fakes/announcements.ts';
import { FakeQueue, fakeWorld, type FakeWorld } from '../../support/fakes/index.ts';
import { storedUser } from './fixtures.ts';

/** Issue 31: admin messages at once, announcements fanned out to every user off the request path, each user once. */
let world: FakeWorld;
let deps: AnnouncementDeps;
let audience: FakeAudience;
let queue: FakeQueue;
let announcements: FakeAnnouncements;
beforeEach(() => {
  world = fakeWorld({ now: '2026-03-15T12:00:00.000Z' });
  audience = new FakeAudience(4);
  queue = new FakeQueue();
  announcements = new FakeAnnouncements();
  deps = { ...world.inbox.deps, users: world.users, audience, announcements, announcementQueue: queue };
});

const inboxOf = (userId: string) => world.inbox.notifications.inbox(userId);
/** Runs the queue's steps as the worker would, until none is left (or `stopAfter` steps, a crash). */
async function drain(stopAfter = Infinity) {
  let steps = 0;
  for (let next = queue.sent.shift(); next && steps < stopAfter; next = queue.sent.shift(), steps++) await runAnnouncementStep(deps, next.body as AnnouncementMessage);
  return steps;
}
function users(count: number) {
  const ids = Array.from({ length: count }, () => newObjectId());
  audience.userIds.push(...ids);
  return ids;
}

describe('admin messages', () => {
  it('notifies the one recipient at once, without an actor, and pushes it', async () => {
    const admin = await storedUser(world, 'admin');
    const reader = await storedUser(world);
    const at = world.clock.iso();
    await world.inbox.devices.put({ userId: reader.userId, token: 'phone', platform: 'ios', active: true, endpointId: 'e', createdAt: at, updatedAt: at });
    const sent = await sendSystemMessage(deps, admin, { type: 'admin_message', title: 'Welcome', body: 'Your library is ready.', recipientId: reader.userId });
    expect(sent).toMatchObject({ status: 201, body: { notification: { type: 'admin_message', actor: null, recipient: reader.userId, title: 'Welcome', isRead: false } } });
    expect(sent.body).not.toHaveProperty('notification.data');
    expect(inboxOf(reader.userId)).toHaveLength(1);
    expect(world.inbox.push.sent.map((p) => [p.device.token, p.message.type, p.message.data])).toEqual([['phone', 'admin_message', null]]);
  });

  it('refuses an unknown recipient with a 400, writing nothing', async () => {
    const admin = await storedUser(world, 'admin');
    await expect(sendSystemMessage(deps, admin, { type: 'admin_message', title: 't', body: 'b', recipientId: newObjectId() })).rejects.toMatchObject({ kind: 'bad_request', message: unknownRecipient });
    expect([...world.inbox.notifications.inboxes.values()].flat()).toEqual([]);
  });
});

describe('announcements', () => {
  it('answers at once with one message per partition, however many users, and reaches every user once', async () => {
    const admin = await storedUser(world, 'admin');
    const everyone = users(usersPerStep * 2 + 37);
    const sent = await sendSystemMessage(deps, admin, { type: 'announcement', title: 'إعلان', body: 'كتب جديدة' });
    expect(sent).toEqual({ status: 202, body: { message: announcementQueued, announcementId: expect.any(String) } });
    expect(queue.sent).toHaveLength(audience.shards);
    await drain();
    for (const id of everyone) expect(inboxOf(id).map((n) => [n.type, n.title, n.actorId])).toEqual([['announcement', 'إعلان', null]]);
    const shards = [...announcements.shards.values()];
    expect(shards.every((s) => s.done)).toBe(true);
    expect(shards.reduce((n, s) => n + s.notified, 0)).toBe(everyone.length);
  });

  it('answers 202 once the announcement is written, even when its first steps could not be sent; the sweeper sends them', async () => {
    const admin = await storedUser(world, 'admin');
    const everyone = users(30);
    queue.failing = new Error('queue down');
    const sent = await sendSystemMessage(deps, admin, { type: 'announcement', title: 't', body: 'b' });
    expect(sent.status).toBe(202);
    queue.failing = undefined;
    world.clock.advance((announcementStallMinutes + 1) * 60_000);
    await resumeStalledAnnouncements(deps, world.now());
    await drain();
    for (const id of everyone) expect(inboxOf(id)).toHaveLength(1);
  });

  it('notifies no one twice when every step is delivered twice, or two deliveries of a step run at once', async () => {
    const admin = await storedUser(world, 'admin');
    const everyone = users(usersPerStep + 10);
    await sendSystemMessage(deps, admin, { type: 'announcement', title: 't', body: 'b' });
    for (let next = queue.sent.shift(); next; next = queue.sent.shift()) {
      const message = next.body as AnnouncementMessage;
      await Promise.all([runAnnouncementStep(deps, message), runAnnouncementStep(deps, message)]);
      await runAnnouncementStep(deps, message);
    }
    for (const id of everyone) expect(inboxOf(id)).toHaveLength(1);
  });

  it('resumes a fan-out whose worker died after moving a partition on but before sending its next step', async () => {
    const admin = await storedUser(world, 'admin');
    audience = new FakeAudience(1);
    deps = { ...deps, audience };
    const everyone = users(usersPerStep * 3);
    await sendSystemMessage(deps, admin, { type: 'announcement', title: 't', body: 'b' });
    const first = queue.sent.shift()!.body as AnnouncementMessage;
    // The step runs, moves the shard on, and its send of the next step is lost with the worker.
    queue.failing = new Error('worker died');
    await expect(runAnnouncementStep(deps, first)).rejects.toThrow('worker died');
    queue.failing = undefined;
    expect(inboxOf(everyone[0]!)).toHaveLength(1);
    // The queue delivers the first step again: it sends the next instead of running the page again.
    await runAnnouncementStep(deps, first);
    await drain();
    for (const id of everyone) expect(inboxOf(id)).toHaveLength(1);
  });

  it('has the sweeper send again a partition whose step was lost, and only a stalled one', async () => {
    const admin = await storedUser(world, 'admin');
    const everyone = users(40);
    await sendSystemMessage(deps, admin, { type: 'announcement', title: 't', body: 'b' });
    queue.sent.splice(0); // every first step lost
    expect(await resumeStalledAnnouncements(deps, world.now())).toEqual({ resumed: 0 });
    world.clock.advance((announcementStallMinutes + 1) * 60_000);
    expect(await resumeStalledAnnouncements(deps, world.now())).toEqual({ resumed: audience.shards });
    await drain();
    for (const id of everyone) expect(inboxOf(id)).toHaveLength(1);
    world.clock.advance((announcementStallMinutes + 1) * 60_000);
    expect(await resumeStalledAnnouncements(deps, world.now())).toEqual({ resumed: 0 });
  });

  it('stores each page in batches: a fraction of a write call per user', async () => {
    const admin = await storedUser(world, 'admin');
    audience = new FakeAudience(1);
    deps = { ...deps, audience };
    users(usersPerStep);
    await sendSystemMessage(deps, admin, { type: 'announcement', title: 't', body: 'b' });
    await drain();
    // 50 to a transaction; the last page, empty, writes nothing.
    expect(world.inbox.notifications.manyCalls).toBe(usersPerStep / 50);
  });
});
