import * as v from 'valibot';
import { jobOutcomeTypes, notificationTypes } from '../../lib/notifications/notification.ts';
import { platforms, tokenRequired, unknownPlatform } from '../../lib/notifications/devices.ts';
import { announcementQueued, maxBodyLength, maxTitleLength, unknownRecipient } from '../../lib/notifications/announcements.ts';
import { maxOffset } from '../../lib/paging.ts';
import { contracts, jsonAnswer } from '../_shared/contract/contract.ts';
import { listLimit, messageErrorAnswer, nullableTimestamp, objectId, pathId, queryNumber, timestamp } from '../_shared/contract/shapes.ts';

/** `/notifications/*` (docs/SPEC.md 4.3): the inbox and push device tokens. */

const actor = v.strictObject({
  _id: objectId,
  username: v.string(),
  profilePicture: v.nullable(v.string()),
  profilePictureKey: v.nullable(v.string()),
});

const notificationFields = {
  _id: objectId,
  recipient: objectId,
  type: v.picklist(notificationTypes),
  title: v.string(),
  body: v.string(),
  post: v.optional(objectId),
  comment: v.optional(objectId),
  data: v.pipe(
    v.optional(v.record(v.string(), v.string())),
    v.description(
      `Only on the job outcome types (${jobOutcomeTypes.map((t) => `\`${t}\``).join(', ')}; added by this service, docs/decisions.md): \`{jobId, bookTextId}\` for OCR, \`{audioJobId, bookId}\` for audio. Other types have no \`data\` key.`,
    ),
  ),
  isRead: v.boolean(),
  readAt: nullableTimestamp,
  createdAt: timestamp,
  updatedAt: timestamp,
  __v: v.pipe(v.number(), v.integer()),
};

/** In the list the actor is the user (null for system notifications, docs/SPEC.md 6). */
const Notification = v.pipe(v.strictObject({ ...notificationFields, actor: v.nullable(actor) }), v.description('A notification as the inbox lists it (docs/SPEC.md 2.10).'));
/** In the mark-read answer the actor is an unpopulated id. */
const MarkedNotification = v.pipe(v.strictObject({ ...notificationFields, actor: v.nullable(objectId) }), v.description('A notification with its actor as an id.'));

export const notificationSchemas = { Notification, MarkedNotification };

const example = {
  _id: '66f1c2a9e4b0a1b2c3d4e5f7',
  recipient: '66f1c2a9e4b0a1b2c3d4e5f6',
  actor: { _id: '66f1c2a9e4b0a1b2c3d4e5f8', username: 'layla', profilePicture: null, profilePictureKey: null },
  type: 'comment_on_post',
  isRead: false,
  readAt: null,
  createdAt: '2026-11-23T09:30:00.000Z',
  updatedAt: '2026-11-23T09:30:00.000Z',
  __v: 0,
  post: '66f1c2a9e4b0a1b2c3d4e5f9',
};
/** A job outcome: a system notification (no actor) with the job's ids in `data`. */
const { post: _post, ...withoutPost } = example;
const outcomeExample = (title: string, body: string) => ({
  ...withoutPost,
  _id: '66f1c2a9e4b0a1b2c3d4e5fa',
  actor: null,
  type: 'ocr_completed',
  title,
  body,
  data: { jobId: '0b6f3c1e-8a2d-4c55-9e0f-3a7b2c1d4e5f', bookTextId: '66f1c2a9e4b0a1b2c3d4e5fb' },
});
const listExample = (title: string, body: string, outcome: [string, string]) => ({
  notifications: [outcomeExample(...outcome), { ...example, title, body }],
  currentPage: 1,
  totalPages: 1,
  total: 2,
});

/** A token of only spaces is no token (docs/SPEC.md 7: `Token is required`). */
const token = v.pipe(
  v.string(tokenRequired),
  v.check((value) => value.trim() !== '', tokenRequired),
  v.description('The device’s push token.'),
  v.examples(['f3c9a1e2d4b5c6a7']),
);
/** `ios` when absent, null or empty. */
const platform = v.pipe(
  v.nullish(v.string(unknownPlatform), ''),
  v.transform((value) => value || undefined),
  v.optional(v.picklist(platforms, unknownPlatform), 'ios'),
);
// The object's message is a missing key's: no `token` at all.
const deviceToken = v.object({ token, platform }, tokenRequired);
const tokenMissing = messageErrorAnswer(`\`${tokenRequired}\`; or an unknown platform.`);
const failed = (failure: string) => messageErrorAnswer(`\`${failure}\`: the operation failed.`);

/** Each route's 500 text (its contract's `failure`). */
const registerFailed = 'Error registering device token';
const unregisterFailed = 'Error unregistering device token';
const listFailed = 'Error fetching notifications';
const countFailed = 'Error fetching unread count';
const markFailed = 'Error marking notification as read';
const markAllFailed = 'Error marking all as read';
const announceFailed = 'Error sending the announcement';

/** The refusals of `POST /notifications/announcements`' body, each its 400's message. */
export const announcementRefusals = {
  type: 'type must be admin_message or announcement',
  title: `title is required: a text of 1 to ${maxTitleLength} characters`,
  body: `body is required: a text of 1 to ${maxBodyLength} characters`,
  recipientRequired: 'recipientId is required for an admin_message',
  recipientRefused: 'An announcement goes to every user: recipientId is not allowed',
} as const;

const text = (max: number, refusal: string) =>
  v.pipe(v.string(refusal), v.check((t) => t.trim() !== '', refusal), v.check((t) => [...t].length <= max, refusal));
const announcementFields = {
  title: v.pipe(text(maxTitleLength, announcementRefusals.title), v.description(`At most ${maxTitleLength} characters.`)),
  body: v.pipe(text(maxBodyLength, announcementRefusals.body), v.description(`At most ${maxBodyLength.toLocaleString('en-US')} characters.`)),
};
/** A missing key's refusal (valibot names the key in the issue's `expected`, as `"title"`). */
const missingKeys: Record<string, string> = {
  '"title"': announcementRefusals.title,
  '"body"': announcementRefusals.body,
  '"recipientId"': announcementRefusals.recipientRequired,
};
const missingKey = (issue: v.ObjectIssue) => missingKeys[issue.expected ?? ''] ?? announcementRefusals.type;
const systemMessage = v.variant(
  'type',
  [
    v.object(
      {
        type: v.literal('admin_message'),
        ...announcementFields,
        recipientId: v.pipe(v.string(announcementRefusals.recipientRequired), v.nonEmpty(announcementRefusals.recipientRequired), v.description('The one user it is for.')),
      },
      missingKey,
    ),
    v.object(
      {
        type: v.literal('announcement'),
        ...announcementFields,
        recipientId: v.pipe(v.optional(v.never(announcementRefusals.recipientRefused)), v.description('Not allowed: an announcement goes to every user.')),
      },
      missingKey,
    ),
  ],
  announcementRefusals.type,
);

export const notificationContracts = contracts({
  'POST /notifications/device-token': {
    tag: 'Notifications',
    summary: 'Register a push device token',
    failure: registerFailed,
    description: 'Upserts the (user, token) device and re-activates it. A token registered by another account is deactivated there: one phone, one account.',
    body: { kind: 'json', schema: deviceToken, invalid: 400, required: true, examples: { ios: { summary: 'An iPhone', value: { token: 'f3c9a1e2d4b5c6a7', platform: 'ios' } } } },
    responses: { 200: jsonAnswer('Registered.', v.strictObject({ message: v.literal('Device token registered') })), 400: tokenMissing, 500: failed(registerFailed) },
  },
  'DELETE /notifications/device-token': {
    tag: 'Notifications',
    summary: 'Unregister a push device token',
    failure: unregisterFailed,
    description: 'Marks the device inactive; succeeds even if it was never registered.',
    body: { kind: 'json', schema: v.object({ token }, tokenRequired), invalid: 400, required: true },
    responses: { 200: jsonAnswer('Unregistered.', v.strictObject({ message: v.literal('Device token unregistered') })), 400: tokenMissing, 500: failed(unregisterFailed) },
  },
  'GET /notifications': {
    tag: 'Notifications',
    summary: 'List the inbox',
    failure: listFailed,
    description: 'Newest first, by page.',
    query: v.object({
      page: queryNumber('page', { fallback: 1, min: 1, description: `1-based page. The page must start within the first ${maxOffset} notifications (400 otherwise).` }),
      limit: listLimit,
    }),
    responses: {
      200: jsonAnswer(
        'One page of the inbox.',
        v.strictObject({ notifications: v.array(Notification), currentPage: v.number(), totalPages: v.number(), total: v.number() }),
        {
          english: { summary: 'English', value: listExample('New comment', 'Layla commented on your post.', ['Text ready', '“Forty Hadith.pdf” is digitized: 42 pages.']) },
          arabic: { summary: 'Arabic', value: listExample('تعليق جديد', 'علّقت ليلى على منشورك.', ['النص جاهز', 'اكتمل استخراج نص «الأربعون النووية.pdf»: 42 صفحة.']) },
        },
      ),
      400: messageErrorAnswer('The page starts past the listing window.'),
      500: failed(listFailed),
    },
  },
  'GET /notifications/unread-count': {
    tag: 'Notifications',
    summary: 'Count unread notifications',
    failure: countFailed,
    responses: { 200: jsonAnswer('The count.', v.strictObject({ unreadCount: v.number() }), { count: { summary: 'Three unread', value: { unreadCount: 3 } } }), 500: failed(countFailed) },
  },
  'PUT /notifications/read-all': {
    tag: 'Notifications',
    summary: 'Mark every notification read',
    failure: markAllFailed,
    responses: { 200: jsonAnswer('Done.', v.strictObject({ message: v.literal('All notifications marked as read') })), 500: failed(markAllFailed) },
  },
  'POST /notifications/announcements': {
    tag: 'Notifications',
    summary: 'Send an admin message or an announcement',
    failure: announceFailed,
    description:
      'Admins only (an editor is refused 403). An `admin_message` goes to one user at once; an `announcement` to every user, through a queue and a worker off the request path (each user notified once however often a page of the fan-out runs). Each is pushed to its recipients’ active devices. Not in docs/SPEC.md: docs/interface.md, “Admin messages and announcements”.',
    body: {
      kind: 'json',
      schema: systemMessage,
      invalid: 400,
      required: true,
      examples: {
        message: { summary: 'To one user', value: { type: 'admin_message', title: 'Welcome', body: 'Your library is ready.', recipientId: '66f1c2a9e4b0a1b2c3d4e5f6' } },
        announcement: { summary: 'To everyone', value: { type: 'announcement', title: 'إعلان', body: 'أضفنا مئة كتاب جديد إلى المكتبة.' } },
      },
    },
    responses: {
      201: jsonAnswer('The admin message, stored and pushed.', v.strictObject({ notification: Notification })),
      202: jsonAnswer('The announcement, queued for every user.', v.strictObject({ message: v.literal(announcementQueued), announcementId: objectId })),
      400: messageErrorAnswer(`A missing or unknown \`type\`; a missing \`title\` or \`body\`, or one over ${maxTitleLength} or ${maxBodyLength.toLocaleString('en-US')} characters; \`recipientId\` on an announcement or its absence on an admin message; \`${unknownRecipient}\`.`),
      500: failed(announceFailed),
    },
  },
  'PUT /notifications/{id}/read': {
    tag: 'Notifications',
    summary: 'Mark one notification read',
    failure: markFailed,
    description: 'Only the recipient’s own notification; another user’s is answered as missing. A malformed id is a 500 (docs/SPEC.md 7).',
    params: v.object({ id: pathId('The notification’s ObjectId.') }),
    responses: {
      200: jsonAnswer('The notification, read.', v.strictObject({ notification: MarkedNotification })),
      404: messageErrorAnswer('`Notification not found`: missing, or another user’s.'),
      500: failed(markFailed),
    },
  },
});
