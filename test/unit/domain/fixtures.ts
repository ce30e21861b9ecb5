import type { Caller } from '../../../lib/auth/caller.ts';
import type { Role, User } from '../../../lib/auth/users.ts';
import type { Subscription } from '../../../lib/billing/subscriptions.ts';
import type { Book } from '../../../lib/books/book.ts';
import { newBookText, type BookText, type FileRecord } from '../../../lib/ocr/book-text.ts';
import type { CatalogueListing } from '../../../lib/ocr/catalogue/listing.ts';
import { newJobId, newObjectId } from '../../../lib/ids.ts';
import type { FakeWorld } from '../../support/fakes/index.ts';

/** Records as the stores hold them, with the fields a test does not care about filled in. */
const at = '2026-03-01T00:00:00.000Z';

export function aUser(role: Role = 'member', fields: Partial<User> = {}): User {
  const userId = newObjectId();
  return {
    userId,
    username: `${role}-${userId.slice(-4)}`,
    email: `${userId}@example.test`,
    role,
    profilePicture: null,
    profilePictureKey: null,
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

export async function storedUser(world: FakeWorld, role: Role = 'member', fields: Partial<User> = {}): Promise<User> {
  const user = aUser(role, fields);
  await world.users.put(user);
  return user;
}

/** An active platform subscription whose period runs through March 2026. */
export function aSubscription(userId: string, tier: string, fields: Partial<Subscription> = {}): Subscription {
  return {
    userId,
    tier,
    status: 'active',
    currentPeriodStart: '2026-03-01T00:00:00.000Z',
    currentPeriodEnd: '2026-04-01T00:00:00.000Z',
    updatedAt: at,
    ...fields,
  };
}

export function aFile(userId: string, fields: Partial<FileRecord> = {}): FileRecord {
  return {
    fileId: newObjectId(),
    userId,
    fileName: 'Riyad as-Salihin.pdf',
    author: 'an-Nawawi',
    fileType: 'application/pdf',
    fileSize: 1024,
    tags: [],
    categories: [],
    visibility: 'private',
    storageKey: 'ocr/upload.pdf',
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

/** A pending BookText with its File, stored as POST /ocr leaves them. */
export async function storedJob(world: FakeWorld, userId: string, fields: Partial<BookText> = {}, file: FileRecord | null = aFile(userId)) {
  const book = newBookText(
    { bookTextId: newObjectId(), jobId: newJobId(), fileId: file?.fileId ?? newObjectId(), userId, fileName: file?.fileName ?? null, status: 'pending', ...fields },
    at,
  );
  if (!(await world.ocr.create(book, file ?? undefined))) throw new Error('job already stored');
  return { book, file };
}

export function aBook(ownerId: string, fields: Partial<Book> = {}): Book {
  return {
    bookId: newObjectId(),
    title: 'Forty Hadith',
    author: 'an-Nawawi',
    ownerId,
    contributors: [],
    visibility: 'public',
    accessModel: 'free',
    requiredSubscriptionTier: null,
    metadata: {},
    lineCount: 0,
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

/** A request's caller: the user signed in, or anonymous without one. */
export const as = (user?: User): Caller => (user ? { kind: 'user', user } : { kind: 'anonymous' });

/** A catalogue listing's query: the first page of 20, no filter, but what the test gives. */
export const listing = (query: Partial<CatalogueListing> = {}): CatalogueListing => ({ tags: [], categories: [], limit: 20, offset: 0, ...query });
