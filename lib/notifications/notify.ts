import { badRequest } from '../errors.ts';
import { newObjectId } from '../ids.ts';
import { logger } from '../log.ts';
import type { DeviceStore } from './devices.ts';
import { jobOutcomeTypes, notificationTypes, systemTypes, type Notification, type NotificationData, type NotificationType } from './notification.ts';
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
  /** Null (or omitted) for system notifications; always null for them. */
  actorId?: string | null;
  title: string;
  body: string;
  post?: string | null;
  comment?: string | null;
  /** The job outcome types' ids (and only theirs). */
  data?: NotificationData;
  /** A fixed id for an event that may be told more than once (a retried callback): the inbox keeps one. */
  notificationId?: string;
  isRead?: boolean;
  /** For records of past events (the seed file); defaults to now. */
  createdAt?: Date;
}

const outcomeTypes: readonly NotificationType[] = jobOutcomeTypes;

/** Stores a notification in the recipient's inbox without pushing it; `created` is false when its id was there already. */
export async function storeNotification(deps: Pick<NotifyDeps, 'notifications' | 'now'>, input: NotifyInput) {
  if (!(notificationTypes as readonly string[]).includes(input.type)) throw badRequest(`Unknown notification type: ${input.type}`);
  const createdAt = (input.createdAt ?? deps.now()).toISOString();
  const isRead = input.isRead ?? false;
  return deps.notifications.create({
    notificationId: input.notificationId ?? newObjectId(),
    recipientId: input.recipientId,
    actorId: systemTypes.includes(input.type) ? null : (input.actorId ?? null),
    type: input.type,
    title: input.title,
    body: input.body,
    post: input.post ?? null,
    comment: input.comment ?? null,
    ...(outcomeTypes.includes(input.type) && input.data ? { data: input.data } : {}),
    isRead,
    readAt: isRead ? createdAt : null,
    createdAt,
  });
}

/**
 * Creates a notification for a recipient and pushes it to the recipient's active devices, once: a
 * notification whose id was already in the inbox is not pushed again. Push is best effort: the
 * notification is stored first, a failed push is logged, and a device the provider reports disabled
 * is marked inactive (docs/architecture.md, "Notifications and push").
 */
export async function notify(deps: NotifyDeps, input: NotifyInput): Promise<{ notification: Notification; created: boolean }> {
  const stored = await storeNotification(deps, input);
  if (stored.created) await pushToDevices(deps, stored.notification);
  return stored;
}

/** Pushes one notification to each active device of its recipient. */
export async function pushToDevices(deps: NotifyDeps, notification: Notification): Promise<void> {
  const devices = await deps.devices.listActive(notification.recipientId);
  const message = {
    notificationId: notification.notificationId,
    type: notification.type,
    title: notification.title,
    body: notification.body,
    data: notification.data ?? null,
  };
  await Promise.all(
    devices.map(async (device) => {
      if (!device.endpointId) return;
      try {
        const outcome = await deps.push.send(device, message);
        if (outcome === 'disabled') await deps.devices.deactivate(device.userId, device.token, deps.now().toISOString());
      } catch (error) {
        logger.warn('push failed', { notificationId: notification.notificationId, error: (error as Error).name });
      }
    }),
  );
}
