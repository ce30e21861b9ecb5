import type { Notification } from './notification.ts';

export type NewNotification = Omit<Notification, 'seq' | 'version' | 'updatedAt' | 'readAt'> & { readAt?: string | null };

export interface InboxCounters {
  total: number;
  unread: number;
}

/** Notification persistence. Every call costs a bounded number of reads, whatever the inbox size. */
export interface NotificationStore {
  /**
   * Stores the notification at the next inbox position, counting it atomically. A notification of
   * the same id already in the recipient's inbox is answered as it is (`created: false`), and
   * nothing is written: a fixed id makes a repeated event notify once.
   */
  create(notification: NewNotification): Promise<{ notification: Notification; created: boolean }>;
  /**
   * Stores one notification for each of many recipients (each recipient once), batched: the ones
   * whose id was already in their inbox are skipped. Returns those stored now.
   */
  createMany(notifications: NewNotification[]): Promise<Notification[]>;
  counters(recipientId: string): Promise<InboxCounters>;
  /** The notifications at positions `fromSeq..toSeq` (inclusive), highest first. */
  range(recipientId: string, fromSeq: number, toSeq: number): Promise<Notification[]>;
  /** Marks one read (idempotent); undefined when the recipient has no such notification. */
  markRead(recipientId: string, notificationId: string, readAt: string): Promise<Notification | undefined>;
  /** Marks every unread notification read; returns how many changed. */
  markAllRead(recipientId: string, readAt: string): Promise<number>;
}
