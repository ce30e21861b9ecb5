import type { StoredObject } from '../objects.ts';

/**
 * The record of which audio files a book has, kept beside the bucket so that the listings
 * (lines-with-audio, `/all`) read one query instead of listing the bucket: a 6,236-line book in six
 * voices and three fields is 112,248 files, 113 ListObjectsV2 calls one after another. Every path
 * that stores or deletes audio goes through `fieldAudio` and the deletes of `deletion.ts`, which
 * keep this record; a file the record missed (a crash between the put and the record) is recorded
 * again when it is next asked for.
 */
export interface AudioFiles {
  /** Records stored files (audio keys; other keys are ignored). Recording one again is harmless. */
  record(files: readonly StoredObject[]): Promise<void>;
  /** Forgets files, by audio key; forgetting one never recorded is harmless. */
  forget(keys: readonly string[]): Promise<void>;
  /** Forgets every file of the book. */
  forgetBook(bookId: string): Promise<void>;
  /** Whether the file is recorded. */
  has(key: string): Promise<boolean>;
  /** The book's recorded files, in one voice or all, in storage-key order (the bucket's listing order). */
  ofBook(bookId: string, voice?: string): Promise<StoredObject[]>;
}
