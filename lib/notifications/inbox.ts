import type { UserStore } from '../auth/users.ts';
import { internal, notFound } from '../errors.ts';
import { isObjectId } from '../ids.ts';
import { checkPage } from '../paging.ts';
import { toView, type ActorView } from './notification.ts';
import type { NotificationStore } from './store.ts';

export interface InboxDeps {
  notifications: NotificationStore;
  users: UserStore;
  now: () => Date;
}

/** Newest first. The inbox is numbered in creation order, so page p is one range of numbers. */
export async function listNotifications(deps: InboxDeps, recipientId: string, paging: { page: number; limit: number }) {
  checkPage(paging);
  const { page, limit } = paging;
  const { total } = await deps.notifications.counters(recipientId);
  const totalPages = Math.ceil(total / limit);
  const newest = total - (page - 1) * limit;
  const items = newest >= 1 ? await deps.notifications.range(recipientId, Math.max(1, newest - limit + 1), newest) : [];

  const actorIds = [...new Set(items.map((n) => n.actorId).filter((id): id is string => id !== null))];
  const actors = await deps.users.getMany(actorIds);
  const actorView = (id: string | null): ActorView | null => {
    const user = id === null ? undefined : actors.get(id);
    return user
      ? { _id: user.userId, username: user.username, profilePicture: user.profilePicture, profilePictureKey: user.profilePictureKey }
      : null;
  };
  return {
    notifications: items.map((n) => toView(n, actorView(n.actorId))),
    currentPage: page,
    totalPages,
    total,
  };
}

export async function unreadCount(deps: InboxDeps, recipientId: string) {
  const { unread } = await deps.notifications.counters(recipientId);
  return { unreadCount: unread };
}

export const notificationNotFound = 'Notification not found';

/** Only the recipient's own notification: another user's is indistinguishable from a missing one. */
export async function markRead(deps: InboxDeps, recipientId: string, notificationId: string) {
  if (!isObjectId(notificationId)) throw internal(`Invalid notification id: ${JSON.stringify(notificationId)}`);
  const updated = await deps.notifications.markRead(recipientId, notificationId.toLowerCase(), deps.now().toISOString());
  if (!updated) throw notFound(notificationNotFound);
  return { notification: toView(updated, updated.actorId) };
}

export async function markAllRead(deps: InboxDeps, recipientId: string) {
  await deps.notifications.markAllRead(recipientId, deps.now().toISOString());
  return { message: 'All notifications marked as read' };
}
