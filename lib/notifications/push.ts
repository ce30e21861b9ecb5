import type { Platform } from './devices.ts';

export interface PushMessage {
  title: string;
  body: string;
  /** Small key/value data for the app (notification id and type). */
  data: Record<string, string>;
}

/** The push provider (SNS mobile push on AWS, a log line locally). */
export interface Push {
  /**
   * Makes sure the device has an enabled endpoint, reusing `endpointId` when given.
   * Returns the endpoint id, or null when push is not configured for the platform.
   */
  register(device: { userId: string; platform: Platform; token: string; endpointId: string | null }): Promise<string | null>;
  /** `disabled` when the provider reports the endpoint disabled (app uninstalled, token expired). */
  send(endpointId: string, platform: Platform, message: PushMessage): Promise<'sent' | 'disabled'>;
}
