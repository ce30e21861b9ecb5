/** The Notification record (docs/SPEC.md 2.10) and its wire shapes. */
export const notificationTypes = [
  'comment_on_post',
  'reply_to_comment',
  'like_on_post',
  'like_on_comment',
  'new_post',
  'admin_message',
  'announcement',
  // Added by this service (docs/decisions.md, "Job outcomes in the inbox"): the outcome of a user's long job.
  'ocr_completed',
  'ocr_failed',
  'audio_completed',
  'audio_failed',
] as const;
export type NotificationType = (typeof notificationTypes)[number];

/** The types that tell a job's outcome; only they carry `data` (the job's ids). */
export const jobOutcomeTypes = ['ocr_completed', 'ocr_failed', 'audio_completed', 'audio_failed'] as const satisfies readonly NotificationType[];
export type JobOutcomeType = (typeof jobOutcomeTypes)[number];

/** System notifications have no actor (docs/SPEC.md section 6). */
export const systemTypes: readonly NotificationType[] = ['admin_message', 'announcement', ...jobOutcomeTypes];

/** What a job outcome's notification points at: `{jobId, bookTextId}` for OCR, `{audioJobId, bookId}` for audio. */
export type NotificationData = Record<string, string>;

export interface Notification {
  notificationId: string;
  recipientId: string;
  actorId: string | null;
  type: NotificationType;
  title: string;
  body: string;
  post: string | null;
  comment: string | null;
  isRead: boolean;
  readAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Document version, shown as `__v`. */
  version: number;
  /** Position in the recipient's inbox, 1-based in creation order; paging works on it. */
  seq: number;
  /** Only on the job outcome types. */
  data?: NotificationData;
}

export interface ActorView {
  _id: string;
  username: string;
  profilePicture: string | null;
  profilePictureKey: string | null;
}

/** The API shape: `actor` is an id (mark-read) or a populated user (list). */
export function toView(n: Notification, actor: ActorView | string | null) {
  return {
    _id: n.notificationId,
    recipient: n.recipientId,
    actor,
    type: n.type,
    title: n.title,
    body: n.body,
    ...(n.post ? { post: n.post } : {}),
    ...(n.comment ? { comment: n.comment } : {}),
    ...(n.data ? { data: n.data } : {}),
    isRead: n.isRead,
    readAt: n.readAt,
    createdAt: n.createdAt,
    updatedAt: n.updatedAt,
    __v: n.version,
  };
}
