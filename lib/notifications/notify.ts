import { badRequest } from '../errors.ts';
import { newObjectId } from '../ids.ts';
import { logger } from '../log.ts';
import type { DeviceStore } from './devices.ts';
import { notificationTypes, systemTypes, type Notification, type NotificationType } from './notification.ts';
import type { Push } from './push.ts';
import type { NotificationStore } from './store.ts';

export interface NotifyDeps {
  notifications: NotificationStore;
  devices: DeviceStore;
  push: Push;
  now: () => Date;
}

export interface NotifyInput {
  recipientId: string;
  type: NotificationType;
  /** Null (or omitted) for system notifications; always null for admin_message and announcement. */
  actorId?: string | null;
  title: string;
  body: string;
  post?: string | null;
  comment?: string | null;
  isRead?: boolean;
  /** For records of past events (the seed file); defaults to now. */
  createdAt?: Date;
}

/** Stores a notification in the recipient's inbox without pushing it. */
export async function storeNotification(deps: Pick<NotifyDeps, 'notifications' | 'now'>, input: NotifyInput) {
  if (!(notificationTypes as readonly string[]).includes(input.type)) throw badRequest(`Unknown notification type: ${input.type}`);
  const createdAt = (input.createdAt ?? deps.now()).toISOString();
  const isRead = input.isRead ?? false;
  return deps.notifications.create({
    notificationId: newObjectId(),
    recipientId: input.recipientId,
    actorId: systemTypes.includes(input.type) ? null : (input.actorId ?? null),
    type: input.type,
    title: input.title,
    body: input.body,
    post: input.post ?? null,
    comment: input.comment ?? null,
    isRead,
    readAt: isRead ? createdAt : null,
    createdAt,
  });
}

/**
 * Creates a notification for a recipient and pushes it to the recipient's active devices. Push is
 * best effort: the notification is stored first, and a device the provider reports disabled is
 * marked inactive. Called by the platform's other services, not by a route here (docs/architecture.md, "Push").
 */
export async function notify(deps: NotifyDeps, input: NotifyInput): Promise<Notification> {
  const notification = await storeNotification(deps, input);
  const devices = await deps.devices.listActive(input.recipientId);
  const message = {
    title: notification.title,
    body: notification.body,
    data: { notificationId: notification.notificationId, type: notification.type },
  };
  await Promise.all(
    devices.map(async (device) => {
      if (!device.endpointId) return;
      try {
        const outcome = await deps.push.send(device.endpointId, device.platform, message);
        if (outcome === 'disabled') await deps.devices.deactivate(device.userId, device.token, deps.now().toISOString());
      } catch (error) {
        logger.warn('push failed', { notificationId: notification.notificationId, error: (error as Error).name });
      }
    }),
  );
  return notification;
}
