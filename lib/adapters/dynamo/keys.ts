/**
 * Every key of the single table is built here (DESIGN.md section 4). Items carry `type` as well.
 *
 * | record            | pk                  | sk                          | indexes                                        |
 * | ----------------- | ------------------- | --------------------------- | ---------------------------------------------- |
 * | User              | USER#<id>           | PROFILE                     |                                                |
 * | Subscription      | USER#<id>           | SUBSCRIPTION                |                                                |
 * | Creator sub.      | USER#<id>           | CREATORSUB#<creatorId>      |                                                |
 * | Usage period      | USER#<id>           | USAGE#<periodStart>         |                                                |
 * | Inbox counters    | USER#<id>           | INBOX                       |                                                |
 * | Notification      | USER#<recipient>    | NOTIFICATION#<id>           | gsi1 INBOX#<recipient> / <seq>; gsi2 UNREAD#.. |
 * | Device token      | USER#<id>           | DEVICE#<sha256(token)>      | gsi1 DEVICE#<sha256(token)> / <userId>         |
 * | Book              | BOOK#<id>           | BOOK                        |                                                |
 * | Line              | BOOK#<id>           | LINE#<lineId>               | line ids of a book increase in book order      |
 */
export type Key = {
  pk: string;
  sk: string;
};

const user = (userId: string) => `USER#${userId}`;

/** Wide enough for any inbox, and sorts as a string in numeric order. */
export const padSeq = (seq: number): string => String(seq).padStart(12, '0');

export const keys = {
  user: (userId: string): Key => ({ pk: user(userId), sk: 'PROFILE' }),
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
  line: (bookId: string, lineId: string): Key => ({ pk: `BOOK#${bookId}`, sk: `LINE#${lineId}` }),
  linePrefix: 'LINE#',
} as const;
