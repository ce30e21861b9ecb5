import { randomUUID } from 'node:crypto';
import type { User } from '../../auth/users.ts';
import type { SubscriptionStore } from '../../billing/subscriptions.ts';
import { forbidden } from '../../errors.ts';
import type { Objects } from '../../objects.ts';
import { anySubscription, canManage, findBookText, requireSubscription } from '../access.ts';
import type { BookTextStore } from '../book-text.ts';
import { pagesOf } from '../pages/page-list.ts';
import type { PageStore } from '../pages/store.ts';
import { fullText } from '../text-storage.ts';
import { buildDocx, type DocxOptions } from './docx.ts';
import { docxContentType, exportUrlSeconds, maxInlineBytes } from './rules.ts';

/** `GET /ocr/books/:bookTextId/export/docx` (docs/SPEC.md 4.1): who may export, the options, and where the bytes go. */
export interface ExportDeps {
  bookTexts: BookTextStore;
  pages: PageStore;
  uploads: Objects;
  subscriptions: SubscriptionStore;
}


export type ExportResult =
  | { kind: 'inline'; bytes: Uint8Array; contentDisposition: string }
  | { kind: 'stored'; url: string; key: string };

/**
 * The download's name without `.docx`: the file name without its extension (a final `.` and 1 to 10
 * letters or digits), whitespace as single spaces, keeping only letters with their marks (vowel signs,
 * Arabic harakat) in any script, digits, space, `-` and `_`; at most 100 characters; `book` when
 * nothing is left.
 */
export function exportFileName(fileName: string | null | undefined): string {
  const base = (fileName ?? '').replace(/\.[\p{L}\p{N}]{1,10}$/u, '');
  const safe = base
    .replace(/\s+/g, ' ')
    .replace(/[^\p{L}\p{M}\p{N} _-]/gu, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  return Array.from(safe).slice(0, 100).join('').trim() || 'book';
}

/** As the spec words it: the name percent-encoded (UTF-8), so the header stays ASCII whatever the script. */
export const attachment = (name: string): string => `attachment; filename="${encodeURIComponent(name)}.docx"`;

/** `options` as the route's contract reads its query (functions/ocr-export/contract.ts). */
export async function exportDocx(deps: ExportDeps, user: User, bookTextId: string, options: DocxOptions): Promise<ExportResult> {
  await requireSubscription(deps.subscriptions, user, anySubscription('An active subscription is required to export books to Word'));
  const bookText = await findBookText(deps.bookTexts, bookTextId);
  // A public book is readable by anyone, but exporting it is the owner's (and staff's) alone.
  if (!canManage(user, bookText)) throw forbidden('Unauthorized to export this book');

  const [file, pages] = await Promise.all([deps.bookTexts.getFile(bookText.fileId), pagesOf(deps, bookText)]);
  const fileName = file?.fileName ?? bookText.fileName ?? '';
  const bytes = await buildDocx(
    {
      fileName,
      author: file?.author || 'Unknown',
      language: bookText.language,
      pageCount: bookText.pageCount || pages.length,
      createdAt: bookText.createdAt,
      pages,
      fullText: pages.length ? '' : await fullText(deps, bookText),
    },
    options,
  );

  const name = exportFileName(fileName);
  const contentDisposition = attachment(name);
  if (bytes.length <= maxInlineBytes) return { kind: 'inline', bytes, contentDisposition };
  const key = `exports/${bookText.bookTextId}/${randomUUID()}/${name}.docx`;
  // The object carries its own disposition, so a distribution URL (which passes no overrides) names the file too.
  await deps.uploads.put(key, bytes, docxContentType, { contentDisposition, cacheControl: 'private, no-store' });
  const url = await deps.uploads.presignGet(key, exportUrlSeconds, { contentDisposition, contentType: docxContentType });
  return { kind: 'stored', url, key };
}
