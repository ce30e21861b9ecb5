import type { BookText, FileRecord } from './book-text.ts';

/** What the book answers share: `GET /ocr/books/:bookTextId` and each item of `GET /ocr/books`. */

/** Fields only the owner, editors and admins see; for everyone else the keys are absent. */
export const privateFields = <T extends object>(show: boolean, fields: T): Partial<T> => (show ? fields : {});

export type FileFields = Pick<FileRecord, 'author' | 'fileType' | 'fileSize'>;

/** The fields a book answer opens with; the File's are null for a BookText without one (an orphan's). */
export const identity = (bookText: BookText, file: FileFields | undefined) => ({
  bookTextId: bookText.bookTextId,
  jobId: bookText.jobId,
  fileId: bookText.fileId,
  fileName: bookText.fileName,
  author: file?.author ?? null,
  fileType: file?.fileType ?? null,
  fileSize: file?.fileSize ?? null,
});
