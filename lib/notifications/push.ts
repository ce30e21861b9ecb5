import type { DeviceToken, Platform } from './devices.ts';
import type { NotificationData, NotificationType } from './notification.ts';

/** What a push carries: the notification's title, body, type and `data` (null for the types without). */
export interface PushMessage {
  notificationId: string;
  type: NotificationType;
  title: string;
  body: string;
  data: NotificationData | null;
}

/** The push provider (SNS mobile push on AWS; locally a ledger of what would have been sent). */
export interface Push {
  /**
   * Makes sure the device has an enabled endpoint, reusing `endpointId` when given.
   * Returns the endpoint id, or null when push is not configured for the platform.
   */
  register(device: { userId: string; platform: Platform; token: string; endpointId: string | null }): Promise<string | null>;
  /** `disabled` when the provider reports the endpoint disabled or the token rejected (app uninstalled, token expired). */
  send(device: DeviceToken, message: PushMessage): Promise<'sent' | 'disabled'>;
}
