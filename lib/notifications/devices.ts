import { createHash } from 'node:crypto';
import type { Push } from './push.ts';

/** A push device token (docs/SPEC.md 2.11), keyed by (user, token). */
export const platforms = ['ios', 'android'] as const;
export type Platform = (typeof platforms)[number];

export interface DeviceToken {
  userId: string;
  token: string;
  platform: Platform;
  active: boolean;
  /** The push provider's endpoint for this device (an SNS endpoint ARN), when push is configured. */
  endpointId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DeviceStore {
  get(userId: string, token: string): Promise<DeviceToken | undefined>;
  put(device: DeviceToken): Promise<void>;
  /** Marks the device inactive; false when it was not registered. */
  deactivate(userId: string, token: string, at: string): Promise<boolean>;
  listActive(userId: string): Promise<DeviceToken[]>;
  /** The accounts whose record of this token is active. */
  activeHolders(token: string): Promise<DeviceToken[]>;
}

/** Tokens are keyed by hash: keys stay short and the raw token never appears in a key. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The 400s of the device-token routes (docs/SPEC.md 7), which their contract gives (functions/notifications-api/contract.ts). */
export const tokenRequired = 'Token is required';
export const unknownPlatform = 'Platform must be ios or android';

export interface DeviceDeps {
  devices: DeviceStore;
  push: Push;
  now: () => Date;
}

/**
 * Upsert on (user, token): re-activates, and creates or re-enables the push endpoint first. A device
 * token is one phone: when another account signs in on it, the previous account's record of the
 * token is deactivated, so that account's notifications are not pushed to the new user's phone.
 */
export async function registerDevice(deps: DeviceDeps, userId: string, { token, platform }: { token: string; platform: Platform }): Promise<void> {
  const existing = await deps.devices.get(userId, token);
  const reusable = existing?.platform === platform ? existing.endpointId : null;
  const endpointId = await deps.push.register({ userId, platform, token, endpointId: reusable });
  const at = deps.now().toISOString();
  await deps.devices.put({
    userId,
    token,
    platform,
    active: true,
    endpointId,
    createdAt: existing?.createdAt ?? at,
    updatedAt: at,
  });
  const others = (await deps.devices.activeHolders(token)).filter((device) => device.userId !== userId);
  await Promise.all(others.map((device) => deps.devices.deactivate(device.userId, token, at)));
}

/** Marks the token inactive; succeeds whether or not it was registered. */
export async function unregisterDevice(deps: DeviceDeps, userId: string, { token }: { token: string }): Promise<void> {
  await deps.devices.deactivate(userId, token, deps.now().toISOString());
}
