import type { DeviceStore, DeviceToken } from '../../../lib/notifications/devices.ts';
import type { Notification } from '../../../lib/notifications/notification.ts';
import type { NotifyDeps } from '../../../lib/notifications/notify.ts';
import type { Push, PushMessage } from '../../../lib/notifications/push.ts';
import type { InboxCounters, NewNotification, NotificationStore } from '../../../lib/notifications/store.ts';
import { copy } from './copy.ts';

/** NotificationStore in memory (lib/adapters/dynamo/notifications.ts): each inbox in creation order; `failing` makes `create` throw. */
export class FakeNotificationStore implements NotificationStore {
  readonly inboxes = new Map<string, Notification[]>();
  failing: Error | undefined;

  inbox(recipientId: string): Notification[] {
    return (this.inboxes.get(recipientId) ?? []).map(copy);
  }

  async create(input: NewNotification) {
    if (this.failing) throw this.failing;
    const inbox = this.inboxes.get(input.recipientId) ?? [];
    const existing = inbox.find((n) => n.notificationId === input.notificationId);
    if (existing) return { notification: copy(existing), created: false };
    const notification: Notification = { ...copy(input), readAt: input.readAt ?? null, seq: inbox.length + 1, version: 0, updatedAt: input.createdAt };
    this.inboxes.set(input.recipientId, [...inbox, notification]);
    return { notification: copy(notification), created: true };
  }

  /** `manyCalls` counts the batch writes as the store makes them: one transaction per 50 notifications. */
  async createMany(inputs: NewNotification[]) {
    this.manyCalls += Math.ceil(inputs.length / 50);
    const created: Notification[] = [];
    for (const input of inputs) {
      const one = await this.create(input);
      if (one.created) created.push(one.notification);
    }
    return created;
  }
  manyCalls = 0;

  async counters(recipientId: string): Promise<InboxCounters> {
    const inbox = this.inboxes.get(recipientId) ?? [];
    return { total: inbox.length, unread: inbox.filter((n) => !n.isRead).length };
  }

  async range(recipientId: string, fromSeq: number, toSeq: number) {
    return this.inbox(recipientId).filter((n) => n.seq >= fromSeq && n.seq <= toSeq).reverse();
  }

  async markRead(recipientId: string, notificationId: string, readAt: string) {
    const n = (this.inboxes.get(recipientId) ?? []).find((x) => x.notificationId === notificationId);
    if (!n) return undefined;
    if (!n.isRead) Object.assign(n, { isRead: true, readAt, updatedAt: readAt, version: n.version + 1 });
    return copy(n);
  }

  async markAllRead(recipientId: string, readAt: string) {
    const unread = (this.inboxes.get(recipientId) ?? []).filter((n) => !n.isRead);
    for (const n of unread) Object.assign(n, { isRead: true, readAt, updatedAt: readAt, version: n.version + 1 });
    return unread.length;
  }
}

/** DeviceStore in memory (lib/adapters/dynamo/devices.ts), keyed by (user, token). */
export class FakeDeviceStore implements DeviceStore {
  readonly devices = new Map<string, DeviceToken>();
  private key = (userId: string, token: string) => `${userId} ${token}`;

  async get(userId: string, token: string) {
    const device = this.devices.get(this.key(userId, token));
    return device && copy(device);
  }
  async put(device: DeviceToken) {
    this.devices.set(this.key(device.userId, device.token), copy(device));
  }
  async deactivate(userId: string, token: string, at: string) {
    const device = this.devices.get(this.key(userId, token));
    if (!device) return false;
    Object.assign(device, { active: false, updatedAt: at });
    return true;
  }
  async listActive(userId: string) {
    return [...this.devices.values()].filter((d) => d.userId === userId && d.active).map(copy);
  }
  async activeHolders(token: string) {
    return [...this.devices.values()].filter((d) => d.token === token && d.active).map(copy);
  }
}

/** Push in memory: what was sent to which device; a token in `disabled` is answered as SNS answers a disabled endpoint. */
export class FakePush implements Push {
  readonly sent: { device: DeviceToken; message: PushMessage }[] = [];
  readonly disabled = new Set<string>();

  async register({ platform, token }: { platform: string; token: string }) {
    return `fake:${platform}:${token}`;
  }
  async send(device: DeviceToken, message: PushMessage) {
    if (this.disabled.has(device.token)) return 'disabled' as const;
    this.sent.push({ device: copy(device), message: copy(message) });
    return 'sent' as const;
  }
}

/** The inbox, devices and push of a fake world (what lib/notifications/notify.ts needs). */
export function fakeInbox(now: () => Date) {
  const notifications = new FakeNotificationStore();
  const devices = new FakeDeviceStore();
  const push = new FakePush();
  const deps: NotifyDeps = { notifications, devices, push, now };
  return { notifications, devices, push, deps };
}
