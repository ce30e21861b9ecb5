import { httpFunction, signedIn, type Request } from '../_shared/http/handler.ts';
import { once } from '../../lib/lazy.ts';
import { deps as coreDeps } from '../_shared/deps.ts';
import { notifyDeps } from '../_shared/notify-deps.ts';
import { registerDevice, unregisterDevice } from '../../lib/notifications/devices.ts';
import { listNotifications, markAllRead, markRead, unreadCount } from '../../lib/notifications/inbox.ts';
import { notificationContracts } from './contract.ts';
import { sendSystemMessage } from '../../lib/notifications/announcements.ts';
import { dynamoAnnouncements, dynamoAudience } from '../../lib/adapters/dynamo/announcements.ts';
import { sqsQueueAt } from '../_shared/queues.ts';
import { json } from '../_shared/http/responses.ts';

/** `/notifications/*` (docs/SPEC.md 4.3): the in-app inbox and push device tokens. Every route needs a token. */
const deps = once(() => {
  const core = coreDeps();
  return { ...core, ...notifyDeps() };
});

/** What sending an admin message or an announcement needs besides the inbox: the users, the announcements and their queue. */
const announcementDeps = once(() => {
  const core = deps();
  return {
    ...core,
    audience: dynamoAudience(core.db),
    announcements: dynamoAnnouncements(core.db),
    announcementQueue: sqsQueueAt(core.config.announcementQueueUrl),
  };
});

const userId = (request: Pick<Request, 'caller'>) => signedIn(request).userId;

export const handler = httpFunction({
  name: 'notifications-api',
  authDeps: deps,
  contracts: notificationContracts,
  handlers: {
    'POST /notifications/device-token': {
      run: async (request) => {
        await registerDevice(deps(), userId(request), request.body());
        return { message: 'Device token registered' };
      },
    },
    'DELETE /notifications/device-token': {
      run: async (request) => {
        await unregisterDevice(deps(), userId(request), request.body());
        return { message: 'Device token unregistered' };
      },
    },
    'GET /notifications': {
      run: (request) => listNotifications(deps(), userId(request), request.query),
    },
    'GET /notifications/unread-count': {
      run: (request) => unreadCount(deps(), userId(request)),
    },
    'PUT /notifications/{id}/read': {
      run: (request) => markRead(deps(), userId(request), request.params.id ?? ''),
    },
    'PUT /notifications/read-all': {
      run: (request) => markAllRead(deps(), userId(request)),
    },
    'POST /notifications/announcements': {
      run: async (request) => {
        const { status, body } = await sendSystemMessage(announcementDeps(), signedIn(request), request.body());
        return json(status, body);
      },
    },
  },
});
