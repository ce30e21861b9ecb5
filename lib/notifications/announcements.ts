import { createHash } from 'node:crypto';
import type { User, UserStore } from '../auth/users.ts';
import { badRequest } from '../errors.ts';
import { newObjectId } from '../ids.ts';
import { logger } from '../log.ts';
import type { Queue } from '../queue.ts';
import { toView } from './notification.ts';
import { notify, pushToDevices, type NotifyDeps } from './notify.ts';
import type { NewNotification } from './store.ts';

/**
 * Admin messages and announcements (docs/interface.md, "Admin messages and announcements"): an admin
 * writes to one user at once, or to every user through a fan-out off the request path. The request
 * costs the same at 100 users and at 1,000,000: one record and one message per user partition; the
 * queue's worker walks each partition a page at a time, each page's notifications stored in batches
 * under ids fixed by the announcement and the user, so a page run twice notifies no one twice.
 */

export const maxTitleLength = 200;
export const maxBodyLength = 2_000;
export const announcementQueued = 'Announcement queued';
export const unknownRecipient = 'Recipient not found';

/** `POST /notifications/announcements`'s body as its contract reads it. */
export type SystemMessage =
  | { type: 'admin_message'; title: string; body: string; recipientId: string }
  | { type: 'announcement'; title: string; body: string };

export interface Announcement {
  announcementId: string;
  title: string;
  body: string;
  createdBy: string;
  createdAt: string;
}

/** The fan-out's progress in one user partition: the last user notified, in id order, and its step. */
export interface AnnouncementShard {
  announcementId: string;
  shard: number;
  /** Pages done; each message names the step it does, so a stale or doubled message is known. */
  step: number;
  /** The last user id of the pages done; null before the first. */
  after: string | null;
  /** Whether the message of the current step was sent (a redelivery of the last one sends it if not). */
  nextSent: boolean;
  done: boolean;
  /** Notifications stored so far (those already there when a page ran again are not counted twice). */
  notified: number;
  updatedAt: string;
}

/** Every user, for a fan-out: in `shards` partitions, each listed by id. */
export interface Audience {
  readonly shards: number;
  /** The ids in one partition after `after` (by id), at most `limit`. */
  page(shard: number, after: string | null, limit: number): Promise<string[]>;
}

export interface AnnouncementStore {
  /** The announcement and a shard record per partition, at step 0, all at once. */
  create(announcement: Announcement, shards: number, at: string): Promise<void>;
  get(announcementId: string): Promise<Announcement | undefined>;
  /** A consistent read of one shard. */
  shard(announcementId: string, shard: number): Promise<AnnouncementShard | undefined>;
  /** Moves the shard past step `step`, on condition it is still there; false when another run did. */
  advance(shard: AnnouncementShard, next: { after: string | null; done: boolean; notified: number }, at: string): Promise<boolean>;
  /** Notes that the message of the shard's step `step` was sent, at `at` (the shard counts as moving then). */
  markSent(announcementId: string, shard: number, step: number, at: string): Promise<void>;
  /** Shards not done that have not moved since `before`, oldest first, at most `limit` (the sweeper's list). */
  stalled(before: string, limit: number): Promise<AnnouncementShard[]>;
}

export type AnnouncementMessage = { kind: 'announcement'; announcementId: string; shard: number; step: number };

export interface AnnouncementDeps extends NotifyDeps {
  users: Pick<UserStore, 'get'>;
  audience: Audience;
  announcements: AnnouncementStore;
  announcementQueue: Queue;
}

/** Users one step notifies: well inside the worker's time (50 to a transaction, pushes 25 at once). */
export const usersPerStep = 500;
const pushesInFlight = 25;

/** One notification per announcement and user: a page run again finds its notifications there. */
export const announcementNotificationId = (announcementId: string, userId: string) =>
  createHash('sha256').update(`announcement#${announcementId}#${userId}`).digest('hex').slice(0, 24);

/** `POST /notifications/announcements` (admins only: its route's auth). */
export async function sendSystemMessage(deps: AnnouncementDeps, admin: User, message: SystemMessage) {
  if (message.type === 'admin_message') {
    if (!(await deps.users.get(message.recipientId))) throw badRequest(unknownRecipient);
    const { notification } = await notify(deps, { recipientId: message.recipientId, type: 'admin_message', title: message.title, body: message.body });
    return { status: 201 as const, body: { notification: toView(notification, null) } };
  }
  const at = deps.now().toISOString();
  const announcement: Announcement = { announcementId: newObjectId(), title: message.title, body: message.body, createdBy: admin.userId, createdAt: at };
  await deps.announcements.create(announcement, deps.audience.shards, at);
  // Once the record is written the announcement is queued: a send that fails leaves its partition at step 0,
  // which the sweeper sends once it has stalled. Answering 500 here would invite a retry, and a second announcement.
  const sends = await Promise.allSettled(
    Array.from({ length: deps.audience.shards }, (_, shard) =>
      deps.announcementQueue.send({ kind: 'announcement', announcementId: announcement.announcementId, shard, step: 0 } satisfies AnnouncementMessage),
    ),
  );
  const unsent = sends.filter((s) => s.status === 'rejected').length;
  if (unsent) logger.warn('Announcement steps not sent; the sweeper will send them', { announcementId: announcement.announcementId, unsent });
  return { status: 202 as const, body: { message: announcementQueued, announcementId: announcement.announcementId } };
}

/**
 * One step of a fan-out: the next page of one partition's users, notified, then the shard moved on
 * and the next step's message sent. A message for a step already done is dropped, except that the
 * one just behind sends the current step's message when its sender died before it could.
 */
export async function runAnnouncementStep(deps: AnnouncementDeps, message: AnnouncementMessage): Promise<void> {
  const shard = await deps.announcements.shard(message.announcementId, message.shard);
  if (!shard || shard.done) return;
  if (shard.step === message.step + 1 && !shard.nextSent) return sendStep(deps, shard, deps.now());
  if (shard.step !== message.step) return;
  const announcement = await deps.announcements.get(message.announcementId);
  if (!announcement) return;

  const userIds = await deps.audience.page(shard.shard, shard.after, usersPerStep);
  const createdAt = deps.now().toISOString();
  const notices: NewNotification[] = userIds.map((recipientId) => ({
    notificationId: announcementNotificationId(announcement.announcementId, recipientId),
    recipientId,
    actorId: null,
    type: 'announcement',
    title: announcement.title,
    body: announcement.body,
    post: null,
    comment: null,
    isRead: false,
    createdAt,
  }));
  const created = await deps.notifications.createMany(notices);
  for (let i = 0; i < created.length; i += pushesInFlight) {
    await Promise.all(created.slice(i, i + pushesInFlight).map((n) => pushToDevices(deps, n)));
  }

  const next = { after: userIds.at(-1) ?? shard.after, done: userIds.length < usersPerStep, notified: shard.notified + created.length };
  if (!(await deps.announcements.advance(shard, next, deps.now().toISOString()))) return;
  if (next.done) {
    logger.info('Announcement partition done', { announcementId: shard.announcementId, shard: shard.shard, notified: next.notified });
    return;
  }
  await sendStep(deps, { ...shard, step: shard.step + 1 }, deps.now());
}

type Sender = Pick<AnnouncementDeps, 'announcements' | 'announcementQueue'>;

const sendStep = async (deps: Sender, shard: Pick<AnnouncementShard, 'announcementId' | 'shard' | 'step'>, at: Date) => {
  await deps.announcementQueue.send({ kind: 'announcement', announcementId: shard.announcementId, shard: shard.shard, step: shard.step } satisfies AnnouncementMessage);
  await deps.announcements.markSent(shard.announcementId, shard.shard, shard.step, at.toISOString());
};

/** Minutes a shard may go without moving before the sweeper sends its step again. */
export const announcementStallMinutes = 15;

/** The sweeper's part: each stalled shard's current step is sent again (a live run's twin is dropped or harmless). */
export async function resumeStalledAnnouncements(deps: Sender, now: Date, limit = 100) {
  const before = new Date(now.getTime() - announcementStallMinutes * 60_000).toISOString();
  const stalled = await deps.announcements.stalled(before, limit);
  for (const shard of stalled) await sendStep(deps, shard, now);
  if (stalled.length) logger.warn('Resumed stalled announcements', { shards: stalled.length });
  return { resumed: stalled.length };
}
