import type { User } from '../../auth/users.ts';
import { metadataView, type BookText } from '../book-text.ts';
import { identity, privateFields, type FileFields } from '../book-view.ts';
import { hasFullText } from '../text-storage.ts';

/** One book of `GET /ocr/books`: userEmail and metadata only on the caller's own items, or for staff. */
export function listItem(bookText: BookText, file: FileFields | undefined, owner: User | undefined, manager: boolean) {
  return {
    ...identity(bookText, file),
    userId: bookText.userId,
    username: owner?.username ?? null,
    ...privateFields(manager, { userEmail: owner?.email ?? null }),
    status: bookText.status,
    language: bookText.language,
    tags: bookText.tags,
    categories: bookText.categories,
    pageCount: bookText.pageCount,
    processingTime: bookText.processingTime,
    ...privateFields(manager, { metadata: metadataView(bookText) }),
    visibility: bookText.visibility,
    hasFullText: hasFullText(bookText),
    createdAt: bookText.createdAt,
    updatedAt: bookText.updatedAt,
    completedAt: bookText.completedAt,
  };
}
