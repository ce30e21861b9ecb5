import type { Caller } from '../auth/caller.ts';
import type { UserStore } from '../auth/users.ts';
import type { SubscriptionStore } from '../billing/subscriptions.ts';
import { isActive } from '../billing/subscriptions.ts';
import type { Book, BookStore, Line } from '../books/book.ts';
import { DomainError, notFound } from '../errors.ts';
import { checkId } from '../ids.ts';

/** Reading a book's audio (docs/SPEC.md 4.2, "book read access"). */
export interface AccessDeps {
  books: BookStore;
  users: UserStore;
  subscriptions: SubscriptionStore;
}

export const bookNotFound = 'Book not found';
export const lineNotFound = 'Line not found';

export async function findBook(deps: Pick<AccessDeps, 'books'>, bookId: string | undefined): Promise<Book> {
  const book = await deps.books.get(checkId(bookId, 'book'));
  if (!book) throw notFound(bookNotFound);
  return book;
}

export async function findLine(deps: Pick<AccessDeps, 'books'>, book: Book, lineId: string | undefined): Promise<Line> {
  const line = await deps.books.line(book.bookId, checkId(lineId, 'line'));
  if (!line) throw notFound(lineNotFound);
  return line;
}

/** The owner, a contributor or an admin: those the spec lets read a private book and skip its paywall. */
export function canManageBook(caller: Caller, book: Book): boolean {
  if (caller.kind !== 'user') return false;
  const { userId, role } = caller.user;
  return role === 'admin' || book.ownerId === userId || book.contributors.includes(userId);
}

export const subscribersOnly = 'This book is available to subscribers only';

/**
 * Throws 404 for a private book the caller may not read, and 402 with the spec's body for a
 * subscriber-only book the caller has no active creator subscription at the required tier for.
 */
export async function requireReadAccess(deps: AccessDeps, caller: Caller, book: Book): Promise<void> {
  if (canManageBook(caller, book)) return;
  if (book.visibility === 'private') throw notFound(bookNotFound);
  if (book.accessModel !== 'creator_subscription') return;

  const subscription = caller.kind === 'user' ? await deps.subscriptions.getCreatorSubscription(caller.user.userId, book.ownerId) : undefined;
  if (subscription && isActive(subscription) && (!book.requiredSubscriptionTier || subscription.tier === book.requiredSubscriptionTier)) return;

  const creator = await deps.users.get(book.ownerId);
  // docs/SPEC.md 4.2: the 402 body is these fields with the message, not the audio group's `{error}`.
  throw new DomainError('payment_required', subscribersOnly, {
    body: 'fields',
    fields: {
      requiresSubscription: true,
      contentType: 'book',
      contentId: book.bookId,
      requiredSubscriptionTier: book.requiredSubscriptionTier,
      creator: creator ? { _id: creator.userId, username: creator.username, profilePicture: creator.profilePicture } : { _id: book.ownerId },
    },
  });
}
