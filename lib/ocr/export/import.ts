import { createHash } from 'node:crypto';
import type { User } from '../../auth/users.ts';
import type { SubscriptionStore } from '../../billing/subscriptions.ts';
import { tier, type TierCatalogue } from '../../billing/tiers.ts';
import type { BookStore, Line } from '../../books/book.ts';
import { badRequest, forbidden } from '../../errors.ts';
import { logger } from '../../log.ts';
import { canManage, findBookText, requireSubscription, type GateRule } from '../access.ts';
import type { BookText, BookTextStore } from '../book-text.ts';
import { legacyPages, maxPagesPerRequest } from '../pages/page.ts';
import type { PageStore } from '../pages/store.ts';

/** Importing a digitized book as a line book (docs/SPEC.md 4.1 `POST /ocr/books/:bookTextId/import`). */
export interface ImportDeps {
  bookTexts: BookTextStore;
  pages: PageStore;
  books: BookStore;
  subscriptions: SubscriptionStore;
  tierCatalogue: TierCatalogue;
  now: () => Date;
}

/** Members need an active subscription on the import tier (the USD 50 per month one); editors and admins do not. */
const importTierGate = (catalogue: TierCatalogue): GateRule => ({
  passes: (subscription) => subscription.tier === catalogue.importTier,
  refusal: () => {
    const required = tier(catalogue, catalogue.importTier);
    return forbidden(`Importing needs an active ${required.name} subscription (USD ${required.priceCents / 100} per month)`, {
      error: 'subscription_required',
    });
  },
  unverified: 'subscription_check_failed',
});

/** One import writes at most as many lines as one request may write pages (page.ts): it ends well inside a function's time. */
export const maxImportPages = maxPagesPerRequest;
/** The text one import writes, at most (docs/decisions.md): about 2,500 characters a page at the page cap. */
export const maxImportCharacters = 5_000_000;
/** An import not finished this long after its last start was abandoned: the sweeper removes its lines. */
export const abandonedImportSeconds = 24 * 60 * 60;

export const bookImported = 'Book imported successfully';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * What makes two imports the same one: the BookText, the caller (the book's owner) and exactly what
 * would be written. A retry or a concurrent request has the same key; an import after an edit does not.
 */
const importKeyOf = (parts: unknown[]) => sha256(JSON.stringify(parts));
/** The book id of an import's generation: the same on every attempt. */
const importBookId = (importKey: string) => (generation: number) => sha256(`${importKey}#${generation}`).slice(0, 24);
/** Line ids of an imported book: fixed per book and increasing in book order (at most 65,536 lines). */
const importLineIds = (bookId: string, count: number) => {
  const prefix = sha256(`lines#${bookId}`).slice(0, 20);
  return Array.from({ length: count }, (_, i) => `${prefix}${i.toString(16).padStart(4, '0')}`);
};

/** The book's pages to import, read no further than one past the cap; old books use their embedded pages. */
async function importPages(deps: ImportDeps, bookText: BookText): Promise<{ text: string }[]> {
  const window = await deps.pages.pageWindow(bookText.bookTextId, 0, maxImportPages + 1);
  const pages = window.total > 0 ? window.pages : legacyPages(bookText.bookTextId, bookText.pages);
  if (pages.length > maxImportPages) throw badRequest(`An import takes at most ${maxImportPages} pages; this book has more`);
  if (pages.reduce((n, p) => n + p.text.length, 0) > maxImportCharacters) {
    throw badRequest(`An import takes at most ${maxImportCharacters} characters of text; this book has more`);
  }
  return pages;
}

/**
 * docs/SPEC.md 4.1 import, all or nothing (issue 12): the import is keyed by what it writes, so a retry
 * writes the same book and line ids (overwriting, never doubling), the book and the import's end are
 * one transaction (a concurrent twin finds the book made and answers with it), and an attempt that
 * dies part way is resumed by the next one or, a day on, its lines are removed by `sweepImports`.
 */
export async function importBook(deps: ImportDeps, user: User, bookTextId: string | undefined) {
  const bookText = await findBookText(deps.bookTexts, bookTextId);
  if (!canManage(user, bookText)) throw forbidden('Unauthorized to import this book');
  await requireSubscription(deps.subscriptions, user, importTierGate(deps.tierCatalogue));

  const [pages, file] = await Promise.all([importPages(deps, bookText), deps.bookTexts.getFile(bookText.fileId)]);
  if (!pages.length) throw badRequest('No pages to import');

  const title = bookText.fileName ?? file?.fileName ?? 'Untitled';
  const author = file?.author ?? 'Unknown';
  const importKey = importKeyOf([bookText.bookTextId, user.userId, title, author, pages.map((p) => p.text)]);
  const at = deps.now().toISOString();
  const started = await deps.books.beginImport(importKey, at, importBookId(importKey));
  const done = { success: true, message: bookImported, bookId: started.bookId };
  if (started.state === 'done') return done;

  const bookId = started.bookId;
  const lineIds = importLineIds(bookId, pages.length);
  const lines: Line[] = pages.map((p, i) => ({ bookId, lineId: lineIds[i]!, arabic: p.text, english: '', commentary: '', rootwords: '' }));
  await deps.books.finishImport(
    started,
    {
      bookId,
      title,
      author,
      ownerId: user.userId,
      contributors: [],
      visibility: 'private',
      accessModel: 'free',
      requiredSubscriptionTier: null,
      metadata: { importedFromVision: bookText.bookTextId },
      lineCount: lines.length,
      createdAt: at,
      updatedAt: at,
    },
    lines,
  );
  return done;
}

/** Imports one sweep looks at, at most; the next sweep takes the rest. */
const sweepBatch = 25;

/** Removes the lines of imports abandoned part way (not finished a day after their last start). */
export async function sweepImports(deps: Pick<ImportDeps, 'books'>, now: Date, rounds = 10) {
  const before = new Date(now.getTime() - abandonedImportSeconds * 1000).toISOString();
  let removed = 0;
  for (let round = 0; round < rounds; round++) {
    const stale = await deps.books.staleImports(before, sweepBatch);
    for (const one of stale) if (await deps.books.removeAbandoned(one)) removed++;
    if (stale.length < sweepBatch) break;
  }
  if (removed) logger.info('Removed abandoned imports', { removed });
  return { removed };
}
