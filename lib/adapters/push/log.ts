import { tokenHash } from '../../notifications/devices.ts';
import type { Push } from '../../notifications/push.ts';
import { logger } from '../../log.ts';

/** The local push provider: every registration and push is a log line on stderr, nothing is sent. */
export function logPush(): Push {
  return {
    async register({ userId, platform, token }) {
      const endpointId = `local:${platform}:${tokenHash(token).slice(0, 16)}`;
      logger.info('push endpoint registered', { userId, platform, endpointId });
      return endpointId;
    },
    async send(endpointId, platform, message) {
      logger.info('push sent', { endpointId, platform, notificationId: message.data.notificationId });
      return 'sent';
    },
  };
}
