import type { User } from '../../auth/users.ts';
import { metadataView, type BookText } from '../book-text.ts';
import { identity, privateFields, type FileFields } from '../book-view.ts';
import { hasFullText } from '../text-storage.ts';

/** One book of `GET /ocr/books`: userEmail and metadata only on the caller's own items, or for staff. */
export function listItem(book: BookText, file: FileFields | undefined, owner: User | undefined, manager: boolean) {
  return {
    ...identity(book, file),
    userId: book.userId,
    username: owner?.username ?? null,
    ...privateFields(manager, { userEmail: owner?.email ?? null }),
    status: book.status,
    language: book.language,
    tags: book.tags,
    categories: book.categories,
    pageCount: book.pageCount,
    processingTime: book.processingTime,
    ...privateFields(manager, { metadata: metadataView(book) }),
    visibility: book.visibility,
    hasFullText: hasFullText(book),
    createdAt: book.createdAt,
    updatedAt: book.updatedAt,
    completedAt: book.completedAt,
  };
}
