import { isOpen, type AudioJob } from '../../audio/audio-job.ts';
import type { User } from '../../auth/users.ts';
import type { Invoice, OverageCharge } from '../../billing/billing.ts';
import type { CreatorSubscription, Subscription } from '../../billing/subscriptions.ts';
import type { OwedUsage } from '../../billing/owed-usage.ts';
import type { UsageLog } from '../../billing/usage.ts';
import type { Book, BookImport, Line } from '../../books/book.ts';
import { tokenHash, type DeviceToken, type Platform } from '../../notifications/devices.ts';
import type { Notification, NotificationData, NotificationType } from '../../notifications/notification.ts';
import type { Announcement, AnnouncementShard } from '../../notifications/announcements.ts';
import type { BookText, FileRecord, LooseText } from '../../ocr/book-text.ts';
import type { BookTextPage } from '../../ocr/pages/page.ts';
import type { PendingReread } from '../../ocr/pages/reread.ts';
import type { PendingUpload } from '../../ocr/jobs/presigned-upload.ts';
import type { QueuedOcrJob } from '../../ocr/jobs/upload.ts';
import { entity } from './entity.ts';
import { keys } from './keys.ts';

/** An OCR job's claim; `queued` and `createdAt` only for a job the service queued (not an orphan result's). */
export interface OcrJobClaim {
  jobId: string;
  bookTextId: string;
  createdAt?: string;
  queued?: QueuedOcrJob;
}

/** An edit of more pages than one transaction takes, while it is saved (book-text-edits.ts). */
export interface OpenPageEdit {
  editId: string;
  bookTextId: string;
  startedAt: string;
  /** The pages it writes: what an undo looks at. */
  pageNumbers: number[];
}

/** The ledger's invoice item (adapters/billing/ledger.ts): the charge without its customer, and the invoice. */
export type StoredInvoice = Invoice & Omit<OverageCharge, 'customerId'>;

/** A push the local ledger recorded in place of sending it (adapters/push/ledger.ts). */
export interface PushRecord {
  userId: string;
  token: string;
  platform: Platform;
  notificationId: string;
  type: NotificationType;
  title: string;
  body: string;
  data: NotificationData | null;
  sentAt: string;
}

/**
 * Each record type of the table, declared once: its key, the index attributes derived from it, and
 * so its stored item (entity.ts). Every write path builds its items here.
 */
export const entities = {
  user: entity('User', { key: (u: User) => keys.user(u.userId), indexes: (u) => keys.userListed(u.userId) }),
  subscription: entity('Subscription', { key: (s: Subscription) => keys.subscription(s.userId) }),
  creatorSubscription: entity('CreatorSubscription', { key: (s: CreatorSubscription) => keys.creatorSubscription(s.userId, s.creatorId) }),
  usagePeriod: entity('UsagePeriod', {
    key: (p: { userId: string; periodStart: string; pagesUsed: number }) => keys.usagePeriod(p.userId, p.periodStart),
  }),
  /** Written by update only (its counters); notifications.ts. */
  inbox: entity('Inbox', { key: (i: { recipientId: string }) => keys.inbox(i.recipientId) }),
  notification: entity('Notification', {
    key: (n: Notification) => keys.notification(n.recipientId, n.notificationId),
    // gsi2 is sparse: only an unread notification is in it.
    indexes: (n) => ({ ...keys.notificationBySeq(n.recipientId, n.seq), ...(n.isRead ? {} : keys.unread(n.recipientId, n.notificationId)) }),
  }),
  deviceToken: entity('DeviceToken', {
    key: (d: DeviceToken) => keys.deviceToken(d.userId, tokenHash(d.token)),
    indexes: (d) => keys.deviceHolder(tokenHash(d.token), d.userId),
  }),

  book: entity('Book', { key: (b: Book) => keys.book(b.bookId) }),
  line: entity('Line', { key: (l: Line) => keys.line(l.bookId, l.lineId) }),
  bookImport: entity('BookImport', {
    key: (i: BookImport) => keys.bookImport(i.importKey),
    // Written while importing; finishing removes it (books.ts).
    indexes: (i) => keys.openImport(i.startedAt, i.importKey),
  }),
  /** Written by update only (one attribute per file); audio-files.ts. */
  audioFiles: entity('AudioFiles', { key: (f: { bookId: string; voice: string; shard: string }) => keys.audioFiles(f.bookId, f.voice, f.shard) }),

  file: entity('File', { key: (f: FileRecord) => keys.file(f.fileId) }),
  bookText: entity('BookText', {
    key: (b: BookText) => keys.bookText(b.bookTextId),
    indexes: (b: BookText) => ({
      ...keys.ownerJobs(b.userId, b.createdAt, b.bookTextId),
      ...keys.ownerJobsByStatus(b.userId, b.status, b.createdAt, b.bookTextId),
      catalogue: keys.catalogue(b.visibility),
      ...keys.catalogueSort(b),
    }),
    // userId, createdAt and the id never change, so neither do gsi1 and the sort keys' other parts.
    movedBy: { status: ['gsi2pk'], visibility: ['catalogue'], fileName: ['byName'], pageCount: ['byPages'] },
  }),
  bookTextPage: entity('BookTextPage', { key: (p: BookTextPage) => keys.bookTextPage(p.bookTextId, p.pageNumber) }),
  /** A reread asked for and not yet posted (rereads.ts); expires a day after it was asked. */
  pageReread: entity('PageReread', { key: (r: PendingReread) => keys.pageReread(r.bookTextId, r.pageNumber) }),
  /** An edit too large for one transaction, until committed or undone (book-text-edits.ts). */
  pageEdit: entity('PageEdit', {
    key: (e: OpenPageEdit) => keys.pageEdit(e.editId),
    indexes: (e) => keys.openPageEdit(e.startedAt, e.editId),
  }),
  /** A text object no record may name: the sweeper's list (loose-texts.ts). */
  looseText: entity('LooseText', {
    key: (t: LooseText) => keys.looseText(t.jobId, t.version),
    indexes: (t) => keys.looseTextList(t.at, t.jobId, t.version),
  }),
  /**
   * The claim of a job id: one BookText per job. A queued job's claim also keeps the message it was
   * sent (without its credential), so the sweeper can send it again, and is in the open jobs' list.
   */
  ocrJob: entity('OcrJob', {
    key: (j: OcrJobClaim) => keys.ocrJob(j.jobId),
    indexes: (j) => ({ ...(j.queued && j.createdAt ? keys.openOcrJob(j.createdAt, j.jobId) : {}) }),
  }),
  upload: entity('Upload', {
    key: (u: PendingUpload) => keys.upload(u.uploadId),
    // Put unclaimed; a claim removes it and a release sets it again (uploads.ts).
    indexes: (u) => keys.unclaimedUpload(u.createdAt, u.uploadId),
  }),

  usageLog: entity('UsageLog', {
    key: (l: UsageLog) => keys.jobUsage(l.jobId),
    // The outbox (billing-outbox.ts): only a pending log is in it.
    indexes: (l) => (l.paymentStatus === 'pending' ? keys.pendingInvoice(l.createdAt, l.jobId) : {}),
  }),
  owedUsage: entity('OwedUsage', {
    key: (o: OwedUsage) => keys.owedUsage(o.jobId),
    // The reconciler's list (owed-usage.ts); settling deletes the item.
    indexes: (o) => keys.owedUsageListed(o.since, o.jobId),
  }),
  invoice: entity('Invoice', { key: (i: StoredInvoice) => keys.invoice(i.userId, i.createdAt, i.usageId) }),
  announcement: entity('Announcement', { key: (a: Announcement) => keys.announcement(a.announcementId) }),
  announcementShard: entity('AnnouncementShard', {
    key: (s: AnnouncementShard) => keys.announcementShard(s.announcementId, s.shard),
    indexes: (s) => (s.done ? {} : keys.openAnnouncementShard(s.updatedAt, s.announcementId, s.shard)),
  }),
  pushRecord: entity('PushRecord', { key: (p: PushRecord) => keys.pushRecord(p.userId, p.sentAt, p.notificationId, tokenHash(p.token)) }),
  stripeEvent: entity('StripeEvent', {
    key: (e: { eventId: string; type: string; processedAt: string; ttl: number }) => keys.stripeEvent(e.eventId),
  }),

  audioJob: entity('AudioJob', {
    key: (j: AudioJob) => keys.audioJob(j._id),
    // Open while pending or in progress; finishing removes it (audio-jobs.ts).
    indexes: (j) => ({ ...keys.audioJobList(j.createdAt, j._id), ...(isOpen(j.status) ? keys.openAudioJob(j.createdAt, j._id) : {}) }),
  }),
  /** A chunk already counted (audio-jobs.ts). */
  audioJobChunk: entity('AudioJobChunk', {
    key: (c: { jobId: string; chunk: number; lines: number; ttl: number }) => keys.audioJobChunk(c.jobId, c.chunk),
  }),
};
