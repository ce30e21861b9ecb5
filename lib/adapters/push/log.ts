import { tokenHash } from '../../notifications/devices.ts';
import type { Push } from '../../notifications/push.ts';
import { logger } from '../../log.ts';

/**
 * The local push provider: every registration and push is a log line on stderr, nothing is sent.
 * They are the local phone, so they show at any LOG_LEVEL (npm start logs warnings only by default).
 */
export function logPush(): Push {
  // A child per line: it takes the request's keys as they are now.
  const pushLog = () => logger.createChild({ logLevel: 'INFO' });
  return {
    async register({ userId, platform, token }) {
      const endpointId = `local:${platform}:${tokenHash(token).slice(0, 16)}`;
      pushLog().info('push endpoint registered', { userId, platform, endpointId });
      return endpointId;
    },
    async send(endpointId, platform, message) {
      pushLog().info('push sent', { endpointId, platform, notificationId: message.data.notificationId });
      return 'sent';
    },
  };
}
