import { dynamoDeviceStore } from '../../lib/adapters/dynamo/devices.ts';
import { dynamoNotificationStore } from '../../lib/adapters/dynamo/notifications.ts';
import { once } from '../../lib/lazy.ts';
import type { NotifyDeps } from '../../lib/notifications/notify.ts';
import { pushAdapter } from './adapters/push.ts';
import { deps as coreDeps } from './deps.ts';

/** The inbox, the devices and push: what creating a notification needs (lib/notifications/notify.ts), in any function. */
export const notifyDeps = once((): NotifyDeps => {
  const core = coreDeps();
  return { notifications: dynamoNotificationStore(core.db), devices: dynamoDeviceStore(core.db), push: pushAdapter(), now: core.now };
});
