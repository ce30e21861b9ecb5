import { isStaff, type User } from '../auth/users.ts';
import { isActive, type Subscription, type SubscriptionStore } from '../billing/subscriptions.ts';
import { tier, type TierCatalogue } from '../billing/tiers.ts';
import type { BookStore, Line } from '../books/book.ts';
import { badRequest, forbidden, internal } from '../errors.ts';
import { newObjectId, sequentialObjectIds } from '../ids.ts';
import { logger } from '../log.ts';
import type { OcrStore } from './book-text.ts';
import { findBookText } from './books.ts';
import { canManage, pagesOf } from './jobs.ts';

/** Importing a digitized book as a line book (SPEC.md 4.1 `POST /ocr/books/:bookTextId/import`). */
export interface ImportDeps {
  ocr: OcrStore;
  books: BookStore;
  subscriptions: SubscriptionStore;
  catalogue: TierCatalogue;
  now: () => Date;
}

/** Members need an active subscription on the import tier (the USD 50 per month one); editors and admins do not. */
async function requireImportTier(deps: ImportDeps, user: User): Promise<void> {
  if (isStaff(user)) return;
  let subscription: Subscription | undefined;
  try {
    subscription = await deps.subscriptions.get(user.userId);
  } catch (error) {
    logger.error('Subscription check failed', { userId: user.userId, error: error as Error });
    throw internal('subscription_check_failed');
  }
  if (isActive(subscription) && subscription!.tier === deps.catalogue.importTier) return;
  const required = tier(deps.catalogue, deps.catalogue.importTier);
  throw forbidden(`Importing needs an active ${required.name} subscription (USD ${required.priceCents / 100} per month)`, {
    error: 'subscription_required',
  });
}

export async function importBook(deps: ImportDeps, user: User, bookTextId: string | undefined) {
  const book = await findBookText(deps.ocr, bookTextId);
  if (!canManage(user, book)) throw forbidden('Unauthorized to import this book');
  await requireImportTier(deps, user);

  const [pages, file] = await Promise.all([pagesOf(deps, book), deps.ocr.getFile(book.fileId)]);
  if (!pages.length) throw badRequest('No pages to import');

  const at = deps.now().toISOString();
  const bookId = newObjectId();
  const lineIds = sequentialObjectIds(pages.length);
  const lines: Line[] = pages.map((p, i) => ({ bookId, lineId: lineIds[i]!, arabic: p.text, english: '', commentary: '', rootwords: '' }));
  // The lines first, the book last: a book is never seen half imported.
  await deps.books.create(
    {
      bookId,
      title: book.fileName ?? file?.fileName ?? 'Untitled',
      author: file?.author ?? 'Unknown',
      ownerId: user.userId,
      contributors: [],
      visibility: 'private',
      accessModel: 'free',
      requiredSubscriptionTier: null,
      metadata: { importedFromVision: book.bookTextId },
      lineCount: lines.length,
      createdAt: at,
      updatedAt: at,
    },
    lines,
  );
  return { success: true, message: 'Book imported successfully', bookId };
}
