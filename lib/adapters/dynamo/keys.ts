import { createHash } from 'node:crypto';
import { catalogueSortKeys } from '../../ocr/catalogue/sort-keys.ts';

/**
 * Every key of the single table is built here; the physical schema (key attributes, GSIs) is in
 * schema.ts. The list of records, their keys and indexes is the table of docs/data-model.md
 * ("Records"), kept in one place rather than copied here. Each record's item (keys, index
 * attributes, `entity`) is declared once in entities.ts.
 */
export type Key = {
  pk: string;
  sk: string;
};

const user = (userId: string) => `USER#${userId}`;

const audioFilesPrefix = 'AUDIO#';
const ocrJobPrefix = 'OCRJOB#';
const audioFilesPartition = (bookId: string, voice: string) => `${audioFilesPrefix}${bookId}#${voice}`;

/** Wide enough for any inbox, and sorts as a string in numeric order. */
export const padSeq = (seq: number): string => String(seq).padStart(12, '0');

/**
 * Every user is listed in one of 16 partitions of gsi1 (by a hash of the id), so no one partition takes
 * every signup's index write, and an announcement's fan-out walks the 16 in parallel.
 */
export const userListShards = 16;
const userShard = (userId: string) => createHash('sha256').update(userId).digest()[0]! % userListShards;

export const keys = {
  user: (userId: string): Key => ({ pk: user(userId), sk: 'PROFILE' }),
  /** gsi1: every user, in one of `userListShards` partitions, by id (an announcement's audience). */
  userListed: (userId: string) => ({ gsi1pk: `USERS#${userShard(userId)}`, gsi1sk: userId }),
  userListIndex: (shard: number) => `USERS#${shard}`,
  subscription: (userId: string): Key => ({ pk: user(userId), sk: 'SUBSCRIPTION' }),
  creatorSubscription: (userId: string, creatorId: string): Key => ({ pk: user(userId), sk: `CREATORSUB#${creatorId}` }),
  usagePeriod: (userId: string, periodStart: string): Key => ({ pk: user(userId), sk: `USAGE#${periodStart}` }),

  inbox: (userId: string): Key => ({ pk: user(userId), sk: 'INBOX' }),
  notification: (recipientId: string, notificationId: string): Key => ({
    pk: user(recipientId),
    sk: `NOTIFICATION#${notificationId}`,
  }),
  /** gsi1: the inbox in creation order, so any page is one range query on sequence numbers. */
  notificationBySeq: (recipientId: string, seq: number) => ({ gsi1pk: `INBOX#${recipientId}`, gsi1sk: padSeq(seq) }),
  inboxIndex: (recipientId: string) => `INBOX#${recipientId}`,
  /** gsi2, sparse: present only while unread, so read-all touches only unread notifications. */
  unread: (recipientId: string, notificationId: string) => ({ gsi2pk: `UNREAD#${recipientId}`, gsi2sk: notificationId }),
  unreadIndex: (recipientId: string) => `UNREAD#${recipientId}`,

  deviceToken: (userId: string, tokenHash: string): Key => ({ pk: user(userId), sk: `DEVICE#${tokenHash}` }),
  deviceTokenPrefix: 'DEVICE#',
  /** gsi1: every account that registered one device token, so a token follows its newest account. */
  deviceHolder: (tokenHash: string, userId: string) => ({ gsi1pk: `DEVICE#${tokenHash}`, gsi1sk: userId }),
  deviceHolderIndex: (tokenHash: string) => `DEVICE#${tokenHash}`,

  book: (bookId: string): Key => ({ pk: `BOOK#${bookId}`, sk: 'BOOK' }),
  bookImport: (importKey: string): Key => ({ pk: `IMPORT#${importKey}`, sk: 'IMPORT' }),
  /** gsi2, sparse: present until the import is done, oldest first, so the sweeper finds abandoned ones by key. */
  openImport: (startedAt: string, importKey: string) => ({ gsi2pk: 'OPENIMPORTS', gsi2sk: `${startedAt}#${importKey}` }),
  openImportsIndex: 'OPENIMPORTS',
  line: (bookId: string, lineId: string): Key => ({ pk: `BOOK#${bookId}`, sk: `LINE#${lineId}` }),
  linePrefix: 'LINE#',
  /** A share of a book's audio files in one voice (`shard`: 00 to ff); one voice's files are one partition. */
  audioFiles: (bookId: string, voice: string, shard: string): Key => ({ pk: audioFilesPartition(bookId, voice), sk: shard }),
  audioFilesPartition,
  /** What every audio-files partition key starts with (the event handler's grant is scoped to it, infra/permissions.ts). */
  audioFilesPrefix,

  file: (fileId: string): Key => ({ pk: `FILE#${fileId}`, sk: 'FILE' }),
  bookText: (bookTextId: string): Key => ({ pk: `BOOKTEXT#${bookTextId}`, sk: 'BOOKTEXT' }),
  bookTextPage: (bookTextId: string, pageNumber: number): Key => ({
    pk: `BOOKTEXT#${bookTextId}`,
    sk: `PAGE#${String(pageNumber).padStart(10, '0')}`,
  }),
  bookTextPartition: (bookTextId: string) => `BOOKTEXT#${bookTextId}`,
  /** The pending reread of a page, beside the page in its BookText's partition (lib/ocr/pages/reread.ts). */
  pageReread: (bookTextId: string, pageNumber: number): Key => ({
    pk: `BOOKTEXT#${bookTextId}`,
    sk: `REREAD#${String(pageNumber).padStart(10, '0')}`,
  }),
  /** An edit of more pages than one transaction takes, while it is saved (book-text-edits.ts). */
  pageEdit: (editId: string): Key => ({ pk: `PAGEEDIT#${editId}`, sk: 'PAGEEDIT' }),
  /** gsi2, sparse: present until the edit is committed or undone, oldest first: the sweeper's list of stopped edits. */
  openPageEdit: (startedAt: string, editId: string) => ({ gsi2pk: 'OPENPAGEEDITS', gsi2sk: `${startedAt}#${editId}` }),
  openPageEditsIndex: 'OPENPAGEEDITS',
  /** A text object that may be named by no record (lib/ocr/loose-texts.ts). */
  looseText: (jobId: string, version: string): Key => ({ pk: `LOOSETEXT#${jobId}#${version}`, sk: 'LOOSETEXT' }),
  /** gsi2: every loose text, oldest first, so the sweeper finds them by key. */
  looseTextList: (at: string, jobId: string, version: string) => ({ gsi2pk: 'LOOSETEXTS', gsi2sk: `${at}#${jobId}#${version}` }),
  looseTextsIndex: 'LOOSETEXTS',
  pagePrefix: 'PAGE#',
  /** gsi1: an owner's BookTexts (their OCR jobs), newest first by createdAt. */
  ownerJobs: (userId: string, createdAt: string, bookTextId: string) => ({
    gsi1pk: `OWNER#${userId}`,
    gsi1sk: `${createdAt}#${bookTextId}`,
  }),
  ownerJobsIndex: (userId: string) => `OWNER#${userId}`,
  /** gsi2: the same list per status, rewritten with every status change. */
  ownerJobsByStatus: (userId: string, status: string, createdAt: string, bookTextId: string) => ({
    gsi2pk: `OWNER#${userId}#${status}`,
    gsi2sk: `${createdAt}#${bookTextId}`,
  }),
  ownerJobsByStatusIndex: (userId: string, status: string) => `OWNER#${userId}#${status}`,
  /**
   * The catalogue indexes of GET /ocr/books: a BookText is in the partition of its visibility, and
   * sorted there by each of the catalogue's sort keys (lib/ocr/catalogue/sort-keys.ts).
   */
  catalogue: (visibility: string) => `CATALOGUE#${visibility}`,
  catalogueSort: catalogueSortKeys,
  catalogueCounts: { pk: 'CATALOGUE', sk: 'COUNTS' } as Key,
  ownerCatalogueCounts: (userId: string): Key => ({ pk: user(userId), sk: 'CATALOGUE' }),
  ocrJob: (jobId: string): Key => ({ pk: `${ocrJobPrefix}${jobId}`, sk: 'OCRJOB' }),
  /**
   * gsi2, sparse, on the job's claim: present from the upload until the sweeper finds the job ended,
   * sorted by when it last saw the job move, so it finds stalled jobs by key (lib/ocr/jobs/stalled.ts).
   */
  openOcrJob: (since: string, jobId: string) => ({ gsi2pk: 'OPENOCRJOBS', gsi2sk: `${since}#${jobId}` }),
  openOcrJobsIndex: 'OPENOCRJOBS',
  upload: (uploadId: string): Key => ({ pk: `UPLOAD#${uploadId}`, sk: 'UPLOAD' }),
  /** gsi2, sparse: present only while the upload is unclaimed, oldest first, so the sweeper finds old ones by key. */
  unclaimedUpload: (createdAt: string, uploadId: string) => ({ gsi2pk: 'UNCLAIMEDUPLOADS', gsi2sk: `${createdAt}#${uploadId}` }),
  unclaimedUploadsIndex: 'UNCLAIMEDUPLOADS',
  openUploads: (userId: string): Key => ({ pk: user(userId), sk: 'UPLOADS' }),

  /** A job's page usage: one key per job, so a repeated completion finds the usage already recorded. */
  jobUsage: (jobId: string): Key => ({ pk: `${ocrJobPrefix}${jobId}`, sk: 'USAGE' }),
  /** gsi1, sparse: present only while the usage awaits its invoice (the outbox), oldest first. */
  pendingInvoice: (createdAt: string, jobId: string) => ({ gsi1pk: 'INVOICING#PENDING', gsi1sk: `${createdAt}#${jobId}` }),
  pendingInvoiceIndex: 'INVOICING#PENDING',
  /** A completion whose usage is not yet recorded (lib/billing/owed-usage.ts): one per job. */
  owedUsage: (jobId: string): Key => ({ pk: `${ocrJobPrefix}${jobId}`, sk: 'OWED' }),
  /** gsi1, sparse: every owed usage, oldest first (the billing worker's list); gone once settled. */
  owedUsageListed: (since: string, jobId: string) => ({ gsi1pk: 'USAGE#OWED', gsi1sk: `${since}#${jobId}` }),
  owedUsageIndex: 'USAGE#OWED',
  /** What the partition key of every item of a job starts with (its claim, usage log, owed marker). */
  ocrJobPrefix,
  invoice: (userId: string, createdAt: string, usageId: string): Key => ({ pk: user(userId), sk: `INVOICE#${createdAt}#${usageId}` }),
  invoicePrefix: 'INVOICE#',
  /** An announcement (lib/notifications/announcements.ts), and its fan-out's progress in each user partition. */
  announcement: (announcementId: string): Key => ({ pk: `ANNOUNCEMENT#${announcementId}`, sk: 'ANNOUNCEMENT' }),
  announcementShard: (announcementId: string, shard: number): Key => ({ pk: `ANNOUNCEMENT#${announcementId}`, sk: `SHARD#${String(shard).padStart(2, '0')}` }),
  /** gsi2, sparse: a shard's fan-out until it is done, by when it last moved (the sweeper's list of stalled ones). */
  openAnnouncementShard: (since: string, announcementId: string, shard: number) => ({ gsi2pk: 'OPENANNOUNCEMENTS', gsi2sk: `${since}#${announcementId}#${shard}` }),
  openAnnouncementsIndex: 'OPENANNOUNCEMENTS',
  /** The local push ledger's record of one push (adapters/push/ledger.ts), in the recipient's partition, oldest first. */
  pushRecord: (userId: string, sentAt: string, notificationId: string, tokenHash: string): Key => ({
    pk: user(userId),
    sk: `PUSH#${sentAt}#${notificationId}#${tokenHash}`,
  }),
  pushRecordPrefix: 'PUSH#',
  userPartition: user,
  stripeEvent: (eventId: string): Key => ({ pk: `STRIPEEVENT#${eventId}`, sk: 'EVENT' }),

  audioJob: (jobId: string): Key => ({ pk: `AUDIOJOB#${jobId}`, sk: 'AUDIOJOB' }),
  /** gsi1: every audio job, newest first (the spec's list has no paging). */
  audioJobList: (createdAt: string, jobId: string) => ({ gsi1pk: 'AUDIOJOBS', gsi1sk: `${createdAt}#${jobId}` }),
  audioJobListIndex: 'AUDIOJOBS',
  /** gsi2, sparse: present while the job is pending or in progress, sorted as openOcrJob is (lib/audio/stalled.ts). */
  openAudioJob: (since: string, jobId: string) => ({ gsi2pk: 'OPENAUDIOJOBS', gsi2sk: `${since}#${jobId}` }),
  openAudioJobsIndex: 'OPENAUDIOJOBS',
  audioJobChunk: (jobId: string, chunk: number): Key => ({ pk: `AUDIOJOB#${jobId}`, sk: `CHUNK#${chunk}` }),
} as const;
