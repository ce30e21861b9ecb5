import type { Caller } from '../auth/caller.ts';
import { isStaff, type User } from '../auth/users.ts';
import { isActive, type Subscription, type SubscriptionStore } from '../billing/subscriptions.ts';
import { forbidden, internal, notFound, type DomainError } from '../errors.ts';
import { checkId } from '../ids.ts';
import { logger } from '../log.ts';
import type { BookText, BookTextStore } from './book-text.ts';

/** Who may do what to a digitized book: the rules every part of lib/ocr shares. */

/** The job's creator, editors and admins. */
export const canManage = (user: User, bookText: Pick<BookText, 'userId'>): boolean => isStaff(user) || bookText.userId === user.userId;

/** The owner, editors and admins: they read private books and see userEmail, storageKey and metadata. */
export const managedBy = (caller: Caller, bookText: Pick<BookText, 'userId'>): boolean => caller.kind === 'user' && canManage(caller.user, bookText);

/** Who may read a BookText (docs/SPEC.md 4.1 `GET /ocr/books/:bookTextId`, and what the catalogue and search show): anyone a public one, its managers a private one. */
export const readableBy = (caller: Caller, bookText: Pick<BookText, 'userId' | 'visibility'>): boolean =>
  bookText.visibility === 'public' || managedBy(caller, bookText);

/** The BookText a book path names: a malformed id is a 500 (docs/SPEC.md section 7), a missing one a 404. */
export async function findBookText(bookTexts: Pick<BookTextStore, 'get'>, bookTextId: string | undefined): Promise<BookText> {
  const bookText = await bookTexts.get(checkId(bookTextId, 'bookText'));
  if (!bookText) throw notFound('Book not found');
  return bookText;
}

/** The 403 of a private book read by someone who does not manage it. */
export const notReadableText = 'Unauthorized to view this book';

/** The BookText a book path names, for reading (`GET /ocr/books/:bookTextId` and its search): as `findBookText`, and a 403 when `readableBy` refuses the caller. */
export async function findReadableBookText(bookTexts: Pick<BookTextStore, 'get'>, caller: Caller, bookTextId: string | undefined): Promise<BookText> {
  const bookText = await findBookText(bookTexts, bookTextId);
  if (!readableBy(caller, bookText)) throw forbidden(notReadableText);
  return bookText;
}

/** The subscription gate's outcome: the subscription it read, or nothing for editors and admins. */
export type Gate = { subscription: Subscription } | undefined;

/** A subscription gate (docs/SPEC.md section 5, item 5): which active subscription passes, and its answers. */
export interface GateRule {
  passes: (subscription: Subscription) => boolean;
  /** The 403 for a member whose subscription does not pass (or who has none). */
  refusal: () => DomainError;
  /** The 500's message when the subscription cannot be read. */
  unverified: string;
}

/** Any active subscription (upload, docx export); `message` names what it is needed for. */
export const anySubscription = (message: string): GateRule => ({
  passes: () => true,
  refusal: () => forbidden(message, { error: 'SUBSCRIPTION_REQUIRED', subscriptionRequired: true }),
  unverified: 'Subscription could not be verified',
});

const uploadGate = anySubscription('An active subscription is required to upload files for OCR');

/**
 * The one subscription gate: members need an active subscription the rule passes; editors and admins
 * pass without one. Runs before the upload is read (and before the export's book lookup). The
 * default rule is the upload's.
 */
export async function requireSubscription(subscriptions: SubscriptionStore, user: User, rule: GateRule = uploadGate): Promise<Gate> {
  if (isStaff(user)) return undefined;
  let subscription: Subscription | undefined;
  try {
    subscription = await subscriptions.get(user.userId);
  } catch (error) {
    logger.error('Subscription check failed', { userId: user.userId, error: error as Error });
    throw internal(rule.unverified);
  }
  if (subscription && isActive(subscription) && rule.passes(subscription)) return { subscription };
  throw rule.refusal();
}
