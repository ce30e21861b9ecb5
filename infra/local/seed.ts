import { ledgerCustomerId } from '../../lib/adapters/billing/ledger.ts';
import type { User, UserStore } from '../../lib/auth/users.ts';
import { roles, type Role } from '../../lib/auth/users.ts';
import { calendarMonth, subscriptionStatuses, type SubscriptionStatus, type SubscriptionStore } from '../../lib/billing/subscriptions.ts';
import type { TierCatalogue } from '../../lib/billing/tiers.ts';
import { accessModels, type AccessModel, type Book, type BookStore, type Line } from '../../lib/books/book.ts';
import { newObjectId, sequentialObjectIds } from '../../lib/ids.ts';
import { notificationTypes, type NotificationType } from '../../lib/notifications/notification.ts';
import { storeNotification } from '../../lib/notifications/notify.ts';
import type { NotificationStore } from '../../lib/notifications/store.ts';

/** The seed file of docs/local-runtime.md: validated whole before anything is written. */
export interface SeedStores {
  users: UserStore;
  subscriptions: SubscriptionStore;
  books: BookStore;
  notifications: NotificationStore;
}

export interface SeedOutput {
  users: Record<string, { userId: string; token: string }>;
  books: Record<string, { bookId: string; lineIds: string[] }>;
  notifications: Record<string, string>;
}

type Json = Record<string, unknown>;

class SeedError extends Error {}

const fail = (where: string, message: string): never => {
  throw new SeedError(`seed: ${where}: ${message}`);
};

function str(value: unknown, where: string, fallback?: string): string {
  if (value === undefined || value === null) {
    if (fallback !== undefined) return fallback;
    return fail(where, 'is required');
  }
  if (typeof value !== 'string') return fail(where, 'must be a string');
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], where: string, fallback: T): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !allowed.includes(value as T)) return fail(where, `must be one of ${allowed.join(', ')}`);
  return value as T;
}

function list(value: unknown, where: string): Json[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'object' || v === null)) return fail(where, 'must be an array of objects');
  return value as Json[];
}

function uniqueKeys(items: Json[], section: string): string[] {
  const seen = new Set<string>();
  return items.map((item, i) => {
    const key = str(item.key, `${section}[${i}].key`);
    if (seen.has(key)) fail(`${section}[${i}].key`, `duplicate key ${key}`);
    seen.add(key);
    return key;
  });
}

export async function seed(
  stores: SeedStores,
  file: unknown,
  options: { now: Date; tierCatalogue: TierCatalogue; issueToken: (userId: string) => Promise<string> },
): Promise<SeedOutput> {
  if (typeof file !== 'object' || file === null || Array.isArray(file)) fail('file', 'must be a JSON object');
  const doc = file as Json;
  const now = options.now.toISOString();
  const userItems = list(doc.users, 'users');
  const bookItems = list(doc.books, 'books');
  const notificationItems = list(doc.notifications, 'notifications');

  // Ids first, so that every reference can be checked before anything is written.
  const userIds = new Map(uniqueKeys(userItems, 'users').map((key) => [key, newObjectId()]));
  const userRef = (key: unknown, where: string) => userIds.get(str(key, where)) ?? fail(where, `no user with key ${String(key)}`);

  const users: User[] = userItems.map((u, i) => ({
    userId: userIds.get(u.key as string)!,
    username: str(u.username, `users[${i}].username`, String(u.key)),
    email: str(u.email, `users[${i}].email`, `${String(u.key)}@example.com`),
    role: oneOf<Role>(u.role, roles, `users[${i}].role`, 'member'),
    profilePicture: u.profilePicture == null ? null : str(u.profilePicture, `users[${i}].profilePicture`),
    profilePictureKey: u.profilePictureKey == null ? null : str(u.profilePictureKey, `users[${i}].profilePictureKey`),
    createdAt: now,
    updatedAt: now,
  }));

  const period = calendarMonth(options.now);
  const subscriptions = userItems.flatMap((u, i) => {
    if (u.subscription === undefined || u.subscription === null) return [];
    const s = u.subscription as Json;
    const where = `users[${i}].subscription`;
    const tier = str(s.tier, `${where}.tier`);
    if (!options.tierCatalogue.tiers[tier]) fail(`${where}.tier`, `no tier ${tier} in the tier catalogue`);
    const pagesUsed = s.pagesUsed ?? 0;
    if (!Number.isInteger(pagesUsed) || (pagesUsed as number) < 0) fail(`${where}.pagesUsed`, 'must be a whole number');
    return [
      {
        subscription: {
          userId: userIds.get(u.key as string)!,
          tier,
          status: oneOf<SubscriptionStatus>(s.status, subscriptionStatuses, `${where}.status`, 'active'),
          currentPeriodStart: period.start,
          currentPeriodEnd: period.end,
          updatedAt: now,
        },
        pagesUsed: pagesUsed as number,
      },
    ];
  });

  const creatorSubscriptions = userItems.flatMap((u, i) =>
    list(u.creatorSubscriptions, `users[${i}].creatorSubscriptions`).map((c, j) => ({
      userId: userIds.get(u.key as string)!,
      creatorId: userRef(c.creator, `users[${i}].creatorSubscriptions[${j}].creator`),
      tier: str(c.tier, `users[${i}].creatorSubscriptions[${j}].tier`),
      status: 'active' as const,
      updatedAt: now,
    })),
  );

  const bookKeys = uniqueKeys(bookItems, 'books');
  const books = bookItems.map((b, i) => {
    const where = `books[${i}]`;
    const bookId = newObjectId();
    const accessModel = oneOf<AccessModel>(b.accessModel, accessModels, `${where}.accessModel`, 'free');
    const requiredSubscriptionTier =
      b.requiredSubscriptionTier == null ? null : str(b.requiredSubscriptionTier, `${where}.requiredSubscriptionTier`);
    if (accessModel === 'creator_subscription' && !requiredSubscriptionTier) {
      fail(`${where}.requiredSubscriptionTier`, 'is required for a creator_subscription book');
    }
    const lineItems = list(b.lines, `${where}.lines`);
    const lineIds = sequentialObjectIds(lineItems.length);
    const lines: Line[] = lineItems.map((l, j) => ({
      bookId,
      lineId: lineIds[j]!,
      arabic: str(l.arabic, `${where}.lines[${j}].arabic`, ''),
      english: str(l.english, `${where}.lines[${j}].english`, ''),
      commentary: str(l.commentary, `${where}.lines[${j}].commentary`, ''),
      rootwords: str(l.rootwords, `${where}.lines[${j}].rootwords`, ''),
    }));
    const book: Book = {
      bookId,
      title: str(b.title, `${where}.title`),
      author: str(b.author, `${where}.author`, ''),
      ownerId: userRef(b.owner, `${where}.owner`),
      contributors: (Array.isArray(b.contributors) ? b.contributors : []).map((c, j) => userRef(c, `${where}.contributors[${j}]`)),
      visibility: oneOf(b.visibility, ['public', 'private'] as const, `${where}.visibility`, 'public'),
      accessModel,
      requiredSubscriptionTier,
      metadata: typeof b.metadata === 'object' && b.metadata !== null ? (b.metadata as Json) : {},
      lineCount: lines.length,
      createdAt: now,
      updatedAt: now,
    };
    return { book, lines };
  });

  const notificationKeys = uniqueKeys(notificationItems, 'notifications');
  const notifications = notificationItems.map((n, i) => {
    const where = `notifications[${i}]`;
    const createdAt = n.createdAt === undefined ? options.now : new Date(str(n.createdAt, `${where}.createdAt`));
    if (Number.isNaN(createdAt.getTime())) fail(`${where}.createdAt`, 'must be an ISO 8601 timestamp');
    return {
      key: notificationKeys[i]!,
      input: {
        recipientId: userRef(n.recipient, `${where}.recipient`),
        actorId: n.actor == null ? null : userRef(n.actor, `${where}.actor`),
        type: oneOf<NotificationType>(n.type, notificationTypes, `${where}.type`, 'announcement'),
        title: str(n.title, `${where}.title`, ''),
        body: str(n.body, `${where}.body`, ''),
        post: n.post == null ? null : str(n.post, `${where}.post`),
        comment: n.comment == null ? null : str(n.comment, `${where}.comment`),
        isRead: n.isRead === true,
        createdAt,
      },
    };
  });

  // Writes. Inbox order is creation order, so each recipient's notifications go in oldest first.
  // A user seeded with a subscription is a paying customer: on AWS the webhook stores the customer
  // its subscription came with; here a ledger customer stands in, so their overage is invoiced.
  const subscribed = new Set(subscriptions.map((s) => s.subscription.userId));
  for (const user of users) {
    await stores.users.put(subscribed.has(user.userId) ? { ...user, stripeCustomerId: ledgerCustomerId(user.userId) } : user);
  }
  for (const { subscription, pagesUsed } of subscriptions) {
    await stores.subscriptions.put(subscription);
    await stores.subscriptions.setPagesUsed(subscription.userId, subscription.currentPeriodStart, pagesUsed);
  }
  for (const c of creatorSubscriptions) await stores.subscriptions.putCreatorSubscription(c);
  for (const { book, lines } of books) await stores.books.create(book, lines);
  const notificationIds: Record<string, string> = {};
  const byTime = [...notifications].sort((a, b) => a.input.createdAt.getTime() - b.input.createdAt.getTime());
  for (const { key, input } of byTime) {
    const stored = await storeNotification({ notifications: stores.notifications, now: () => options.now }, input);
    notificationIds[key] = stored.notification.notificationId;
  }

  const output: SeedOutput = { users: {}, books: {}, notifications: {} };
  for (const [key, userId] of userIds) output.users[key] = { userId, token: await options.issueToken(userId) };
  books.forEach(({ book, lines }, i) => {
    output.books[bookKeys[i]!] = { bookId: book.bookId, lineIds: lines.map((l) => l.lineId) };
  });
  for (const key of notificationKeys) output.notifications[key] = notificationIds[key]!;
  return output;
}
