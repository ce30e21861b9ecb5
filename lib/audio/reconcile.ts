import { listingOrder, type Objects } from '../objects.ts';
import type { AudioFiles } from './audio-files.ts';
import { bookPrefix, parseAudioKey } from './audio-key.ts';
import { syncAudioFiles, type Seen, type SyncDeps } from './bucket-sync.ts';

/**
 * Bringing the record of audio files in line with the audio bucket, one book or all (`audio
 * reconcile`): the bucket is listed a page of 1,000 keys at a time, in key order, beside the record of
 * the book those keys belong to (a book's keys are consecutive in that order), and each difference is
 * settled as an event's key is (bucket-sync.ts): a listed file the record misses is recorded, a
 * recorded file the listing passed without meeting is forgotten, each then checked with a HEAD. Files
 * listed and recorded alike cost nothing more than their share of the listing and of the book's Query.
 *
 * Memory holds one page and one book's recorded keys (a book of 6,236 lines in three fields and six
 * voices: 112,248 keys), never the bucket. After each page everything up to its last key is settled:
 * `from` that key resumes an interrupted run where it stopped.
 *
 * Walking the whole bucket visits the books it has files of: a book with recorded files but none left
 * in the bucket is put right by naming it (`bookId`), or by its files' removal events.
 */
export interface ReconcileDeps extends SyncDeps {
  audio: Pick<Objects, 'head' | 'listPage'>;
  audioFiles: Pick<AudioFiles, 'record' | 'forget' | 'ofBook'>;
}

export interface ReconcileOptions {
  /** Only this book's files; every book's when absent. */
  bookId?: string;
  /** Only keys after this one, in the bucket's order: the `at` of an interrupted run's last progress. */
  from?: string;
  /** Called after each page. */
  onProgress?: (progress: ReconcileProgress) => void;
}

export interface ReconcileCounts {
  /** Files recorded that the record did not name. */
  added: number;
  /** Recorded files forgotten because the bucket no longer has them. */
  removed: number;
}

export interface ReconcileProgress extends ReconcileCounts {
  /** Keys listed so far. */
  listed: number;
  /** Every key up to this one is settled: a run started `from` it goes on from here. */
  at: string;
}

/** A run that stopped on an error: `resumeFrom` (absent when no page was settled) is where to go on from. */
export class ReconcileStopped extends Error {
  override name = 'ReconcileStopped';
  constructor(
    message: string,
    readonly resumeFrom: string | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** ListObjectsV2's largest page. */
export const listingPageSize = 1000;

/** A book's recorded keys after `from`, in listing order, and how far the listing has come through them. */
interface OpenBook {
  bookId: string;
  recorded: string[];
  next: number;
}

/** The book a key (or a bare book id) names: the part before its first '/'. */
const bookOf = (key: string): string => key.split('/')[0]!;

export async function reconcileAudioFiles(deps: ReconcileDeps, options: ReconcileOptions = {}): Promise<ReconcileCounts> {
  const { bookId, from } = options;
  const counts: ReconcileCounts = { added: 0, removed: 0 };
  let listed = 0;
  // Everything up to this key is settled.
  let after = from;

  const open = async (id: string): Promise<OpenBook> => {
    const recorded = (await deps.audioFiles.ofBook(id)).map((f) => f.key).filter((key) => from === undefined || listingOrder(key, from) > 0);
    return { bookId: id, recorded: recorded.sort(listingOrder), next: 0 };
  };
  /** The book's recorded keys not yet met, up to `key` (all of them without one): gone from the bucket. */
  const passed = (book: OpenBook, found: Map<string, Seen>, key?: string) => {
    while (book.next < book.recorded.length && (key === undefined || listingOrder(book.recorded[book.next]!, key) < 0)) {
      found.set(book.recorded[book.next++]!, undefined);
    }
  };
  /** Settles what one page found. */
  const settle = async (found: Map<string, Seen>) => {
    const keys = [...found.keys()];
    for (let i = 0; i < keys.length; i += listingPageSize) {
      const report = await syncAudioFiles(deps, new Map(keys.slice(i, i + listingPageSize).map((key) => [key, found.get(key)])));
      counts.added += report.recorded.filter((key) => found.get(key) !== undefined).length;
      counts.removed += report.forgotten.filter((key) => found.get(key) === undefined).length;
      if (report.failed.length > 0) throw new Error(`${report.failed.length} files could not be settled (first: ${report.failed[0]})`);
    }
  };
  const walk = async (): Promise<ReconcileCounts> => {
    // The book a resumed run stopped in has recorded keys after `from` still to be met.
    const startBook = bookId ?? (from?.includes('/') ? bookOf(from) : undefined);
    let book = startBook === undefined ? undefined : await open(startBook);
    for (;;) {
      const page = await deps.audio.listPage(bookId === undefined ? '' : bookPrefix(bookId), after, listingPageSize);
      const found = new Map<string, Seen>();
      for (const object of page.objects) {
        const parts = parseAudioKey(object.key);
        if (!parts) continue;
        if (book?.bookId !== parts.bookId) {
          if (book) passed(book, found);
          book = await open(parts.bookId);
        }
        passed(book, found, object.key);
        if (book.recorded[book.next] === object.key) book.next++;
        else found.set(object.key, object);
      }
      if (!page.more && book) passed(book, found);
      await settle(found);
      listed += page.objects.length;
      after = page.objects.at(-1)?.key ?? after;
      if (after !== undefined) options.onProgress?.({ ...counts, listed, at: after });
      if (!page.more || page.objects.length === 0) return counts;
    }
  };

  try {
    return await walk();
  } catch (error) {
    throw new ReconcileStopped((error as Error).message, after, { cause: error });
  }
}
