import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import sqlite3 from 'node-sqlite3-wasm';
import { isRunning, thisProcess, type ProcessRecord } from '../../processes.ts';
import type { IndexedBook, IndexedBookFields, IndexedPage, PageHit, PageQuery, SearchEngine } from '../../search/engine.ts';
import { isFiled, variantKeys } from '../../search/ocr-variants.ts';
import {
  checkIndexedPages,
  checkPageQuery,
  forgivingTerms,
  listingBook,
  listingQuery,
  matchableTerms,
  maxSimilarTerms,
  phraseFirstTerms,
  revisionOf,
  similarKeys,
  type ListingQuery,
} from '../../search/rules.ts';
import { forgivingSearch, type SearchedBook } from './forgiving-search.ts';
import { idleMerge, idleMergeSettings } from './idle-merge.ts';
import { termPagesCache, type WrittenPage } from './term-pages.ts';

/**
 * The search engine on SQLite FTS5 (issue 17), for the laptop: node-sqlite3-wasm is SQLite built to
 * WebAssembly with FTS5 compiled in, so `npm ci` installs it whole (no toolchain, no download).
 * Measured with bench/search.ts (`npm run bench -- search`: 2,000 and 20,000 pages of real Arabic and
 * English words; the figures below were first measured on made-up words).
 *
 * Tables:
 * - `exact` and `stemmed`: one FTS5 table per field, one row per page, its terms joined by spaces.
 *   Against one table of two columns with a column filter: 13% smaller (postings of one field
 *   only, no column markers) and 5 to 25% faster to search (bm25 reads one field's positions).
 *   Contentless (`content=''`) with `contentless_delete=1`: only the index is stored, not a copy
 *   of the text (hits are ids; nothing reads the text back), and rows can still be replaced and
 *   deleted (SQLite 3.43+). Column sizes are kept (the default): bm25's length normalization needs
 *   them, and a contentless table without them ranks as if every page had the same length.
 *   Tokenizer `unicode61 remove_diacritics 0 categories 'L* M* N*'`: the analysis already
 *   normalized the terms, so the tokenizer must keep each term whole (letters, marks and numbers
 *   are token characters, Arabic harakat included) and remove nothing; `isIndexTerm` admits only
 *   terms it keeps unchanged (lib/search/rules.ts).
 * - The rowid of a page is its book's `seq` times 2^20 plus its page number: a page is its
 *   (bookTextId, pageNumber) with no other table or index, `INSERT OR REPLACE` replaces it, and a
 *   book's pages are one rowid range, which FTS5 seeks to (a search within a book reads only that
 *   range of each term's postings; removing a book deletes that range).
 * - `books`: one row per indexed book, its fields (owner, visibility, status, language), joined to
 *   each matching page by primary key, and `setBookFields` is that row's update. Kept on each page
 *   instead (UNINDEXED columns, `contentless_unindexed=1`), every matching row's fields are read
 *   from FTS5's content table: at 20,000 pages a common term's filtered count took 12.3 ms against
 *   2.6 ms, its ranked page 20 ms against 10 ms. A whole-index search ranked without the join was
 *   no faster than with it.
 *
 * - `vocabulary` and `vocabulary_keys` (issue 32): every filed term put (ocr-variants.ts `isFiled`)
 *   under an id (TEXT: the database's UTF-8 compared by memcmp, so `ORDER BY term` is UTF-8 byte
 *   order), and the keys it is filed under, each as a 32-bit hash (`keyHash`) in a bucket of its high
 *   bits (`bucketEntry`: about 5 bytes a key, where a row per key and id took 14 and the key's text 6
 *   to 40; the vocabulary is most of the index's growth). A hash two keys share adds a term no key of
 *   the lookup files, which similarTerms leaves out by the term's own keys. putPages files a term the
 *   first time it sees it (this process remembers the terms it filed, and looks for a term under its
 *   first key before filing it); similarTerms reads the keys' buckets, then their terms (two lookups).
 *   Terms are never taken out: a removed page's term widens a query to nothing.
 *
 * A forgiving search (engine.ts `forgiving`) is answered from the pages of its terms kept in memory
 * (term-pages.ts, forgiving-search.ts): each page's words held and BM25 score in one pass over the
 * alternatives' postings, then the matches filtered by their books' fields (one lookup of the books
 * met), grouped, and the window's groups sorted; FTS5 gives only the phrase and near-phrase hits (one
 * statement each, on `exact`). Measured at 20,000 pages, the same queries in SQL took 12 to 35 ms at
 * the p95: bm25 counts each term's pages over the whole index in every statement that ranks, and
 * counting the pages that hold all but one word walks each pair of dense posting lists. The scores
 * are the in-memory engine's to the last bit (the same parts, summed in the same order, N and the
 * average length of the pages indexed now), so a forgiving search has no ranking drift (below).
 *
 * Every other search is two statements: a count (no ranking) and the ranked page of hits (the phrase hits of
 * `phraseFirst` first, then bm25, then the tie-break). One statement counting with a window function over the ranked rows was slower.
 * Ranking is the cost of a broad search: bm25 runs on every matching visible page, about 1 µs each
 * (a term on all of 20,000 pages: about 15 ms).
 *
 * Ranking drifts from plain BM25 once pages are replaced or removed: a contentless-delete table
 * keeps counting deleted rows in bm25's page count and average length (SQLite 3.53; the other
 * delete path subtracts them, but needs the deleted text). Hits and totals stay exact, and so does
 * the number of pages holding a term; only the order of close scores can differ from the fake's.
 *
 * The catalogue listing (putBook, listBooks: GET /ocr/books filtered, with exact totals) is kept
 * apart from the pages, in posting lists (bench/catalogue.ts measures it):
 * - `listing_postings`: one list per term (every book; each status, language, tag and category) and
 *   order (date, name, pages), a book in each list of its terms, keyed by the order's sort key
 *   (BLOB: UTF-8 bytes compared by memcmp, DynamoDB's order; every string is bound as a BLOB, so no
 *   collation, text encoding or NUL applies). Each posting also carries the book's visibility,
 *   owner, status and language, so one list read in order both filters and pages, without a lookup
 *   per book (about 1 µs each at 100,000 books, against 0.1 to 0.3 µs per posting read in order).
 *   A listing query reads one *driving* list: the filter group (status, language, the tags, the
 *   categories; none: every book) cheapest to read, by the counts below; the other tags or
 *   categories are checked by an EXISTS seek of the book's key in their lists. A group of 2 to 32
 *   values is a UNION of its lists, which SQLite merges in order (no sort), dropping a book found
 *   twice; more values, an IN list sorted by key.
 * - `listing_counts`: how many books each list holds per visibility, status and language, kept in
 *   the same transaction as the postings: the exact total of a listing filtered by at most one tag
 *   or category costs a few rows (a member's own private books are counted apart, from `listing`,
 *   each checked by a seek), and the sizes choose the driving list. Other totals (several tags or
 *   categories, or both kinds) are counted by reading the driving list's postings.
 * - `listing`: each book's entry (JSON, to take its postings away when it changes or goes), and its
 *   owner, visibility, status, language and pages key for the members' counts.
 * At 100,000 books (a file, as the local runtime keeps it; 250 MB, 2.5 KB a book; 3 ms a putBook),
 * every view, order and paging of no filter, a status, a language, both, one tag or one category
 * answers in 0.1 to 3 ms; several tags or categories of thousands of books each, or tags and
 * categories together, 3 to 20 ms, the cost of counting exactly.
 *
 * Segments: each transaction's pages are a new segment of `exact` and `stemmed`; once writes pause,
 * the engine merges them (idle-merge.ts), so a search reads each term in a few segments.
 *
 * node-sqlite3-wasm is synchronous: each call runs to its end inside one turn of the event loop,
 * so no transaction is ever open across an `await`. A large `putPages` is written in batches with
 * the event loop let through between them.
 */
export interface SqliteSearchEngine extends SearchEngine {
  /** Closes the database (its statements first). */
  close(): void;
  /** Resolves once writes have paused and the index's segments are merged (idle-merge.ts). */
  merged(): Promise<void>;
  /** How many segments each field's index holds now (FTS5's structure record): what merging lowers. */
  segmentCounts(): { exact: number; stemmed: number };
}

/** Page numbers take the low 20 bits of a rowid (maxPageNumber, 99,999, fits); the book's seq the rest. */
const pageBits = 20;
const pageSpan = 2 ** pageBits;
/** The highest book seq whose rowids stay exact JavaScript numbers (2^53). */
const maxSeq = 2 ** (53 - pageBits) - 1;
/** Pages written per transaction; between two, other calls may run. */
const batchSize = 500;
/**
 * A segment of the index is rewritten without its deleted rows once this share of them is deleted.
 * FTS5's default, 10, rewrote segments whenever one book of a small index was removed or indexed
 * again (a 200-page book in a 2,000-page index: 112 ms to remove, 1.7 ms at 50; replaced 223 ms,
 * 32 ms at 50); at 50 a segment holds at most as many deleted rows as live ones, and each rewrite
 * reclaims at least half of it.
 */
const deleteMergePercent = 50;
/**
 * The layout this code reads and writes (PRAGMA user_version). 2: the catalogue listing. 3: the same
 * tables, with the listing kept by the indexer and the backfill (an index of layout 2 may hold pages
 * and no listing entries, so it is built again: infra/local/search-index.ts). 4: revisions (a book's
 * `rev`, each page's in `page_revs`, the listing entry's in its JSON). 5: the vocabulary of similar terms. 6: its keys as hashes. 7: the keys in buckets.
 * 8: `auto_vacuum = INCREMENTAL` (set only as a file is created), so pages merging frees leave the file (idle-merge.ts).
 * 9: each page's terms' digest in `page_revs`, so a page put again as it is held is left alone (`writeBatch`).
 */
const schemaVersion = 9;

/**
 * Whether the file at `path` is a search index this code can open as it is: absent, empty, or of
 * this layout. Read through its own short connection, before the engine opens the file (which keeps
 * it locked while open).
 */
export function isCurrentSearchIndex(path: string): boolean {
  if (!existsSync(path)) return true;
  const db = new sqlite3.Database(path, { readOnly: true });
  try {
    const version = db.get('PRAGMA user_version')?.user_version;
    return version === 0 || version === schemaVersion;
  } catch (error) {
    if (!/locked/i.test(String(error))) throw error;
    throw new Error(lockedIndexMessage(path), { cause: error });
  } finally {
    db.close();
  }
}
/**
 * Who holds the index's lock (`<file>.lock`, a directory this build makes and that outlives a killed
 * process): `<file>.owner`, written by the connection that took the lock and removed when it closes,
 * so that a lock left by a process no longer running can be told from a live one's (issue 29).
 */
export const searchIndexOwnerFile = (path: string): string => `${path}.owner`;

/** The process recorded as holding the index's lock, if any. */
export function searchIndexHolder(path: string): ProcessRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(searchIndexOwnerFile(path), 'utf8')) as ProcessRecord;
    return Number.isInteger(record.pid) ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Why the index cannot be opened when its lock is there: who holds it, and what to do. */
export function lockedIndexMessage(path: string): string {
  const holder = searchIndexHolder(path);
  if (holder && isRunning(holder)) return `The search index ${path} is open in process ${holder.pid}, which is running: stop it, or use another DATA_DIR.`;
  if (holder) return `The search index ${path} was left locked by process ${holder.pid}, which is no longer running (killed): delete ${path}.lock (npm start does so itself).`;
  return `The search index ${path} is open in another connection. If no other process has it open, one that was killed left ${path}.lock behind: delete that directory.`;
}

/** The page cache, in KiB (PRAGMA cache_size). */
const cacheKiB = 65_536;
/** Prepared statements kept; past it the least recently used is finalized (listing queries come in many shapes). */
const maxStatements = 200;

const tokenizer = `tokenize = "unicode61 remove_diacritics 0 categories 'L* M* N*'"`;
const schema = `
  PRAGMA auto_vacuum = INCREMENTAL;
  CREATE TABLE IF NOT EXISTS books (
    seq INTEGER PRIMARY KEY,
    bookTextId TEXT NOT NULL UNIQUE,
    userId TEXT NOT NULL,
    visibility TEXT NOT NULL,
    status TEXT NOT NULL,
    language TEXT NOT NULL,
    rev INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS page_revs (rowid INTEGER PRIMARY KEY, rev INTEGER NOT NULL, digest BLOB NOT NULL);
  CREATE VIRTUAL TABLE IF NOT EXISTS exact USING fts5(terms, content = '', contentless_delete = 1, ${tokenizer});
  CREATE VIRTUAL TABLE IF NOT EXISTS stemmed USING fts5(terms, content = '', contentless_delete = 1, ${tokenizer});
  CREATE TABLE IF NOT EXISTS listing (
    seq INTEGER PRIMARY KEY,
    bookTextId TEXT NOT NULL UNIQUE,
    entry TEXT NOT NULL,
    userId BLOB NOT NULL,
    public INTEGER NOT NULL,
    status BLOB NOT NULL,
    language BLOB NOT NULL,
    pagesKey BLOB NOT NULL
  );
  CREATE INDEX IF NOT EXISTS listing_owner ON listing (userId, public, status, language, pagesKey);
  CREATE TABLE IF NOT EXISTS listing_postings (
    kind INTEGER NOT NULL,
    value BLOB NOT NULL,
    ord INTEGER NOT NULL,
    key BLOB NOT NULL,
    public INTEGER NOT NULL,
    userId BLOB NOT NULL,
    status BLOB NOT NULL,
    language BLOB NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (kind, value, ord, key)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS listing_counts (
    kind INTEGER NOT NULL,
    value BLOB NOT NULL,
    public INTEGER NOT NULL,
    status BLOB NOT NULL,
    language BLOB NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (kind, value, public, status, language)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS vocabulary (id INTEGER PRIMARY KEY, term TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS vocabulary_keys (bucket INTEGER PRIMARY KEY, entries BLOB NOT NULL);
  INSERT INTO exact (exact, rank) VALUES ('deletemerge', ${deleteMergePercent});
  INSERT INTO stemmed (stemmed, rank) VALUES ('deletemerge', ${deleteMergePercent});
  INSERT INTO exact (exact, rank) VALUES ('usermerge', ${idleMergeSettings.usermerge});
  INSERT INTO stemmed (stemmed, rank) VALUES ('usermerge', ${idleMergeSettings.usermerge});
  PRAGMA user_version = ${schemaVersion};
`;

/** A string as an FTS5 string: double-quoted, `"` doubled. The terms are index terms already; this makes sure. */
const quoted = (term: string): string => `"${term.replaceAll('"', '""')}"`;

/**
 * The MATCH expression, or null when no page can match. Every term is a quoted string, so no text
 * of the client's is FTS5 syntax. A term that is not an index term is in no page: `phrase` and
 * `all` then match nothing, `any` goes on without it.
 */
export function matchExpression(query: Pick<PageQuery, 'mode' | 'terms'>): string | null {
  const terms = matchableTerms(query);
  if (!terms) return null;
  return query.mode === 'phrase' ? quoted(terms.join(' ')) : terms.map(quoted).join(query.mode === 'all' ? ' AND ' : ' OR ');
}

/** A vocabulary key as stored: FNV-1a over its UTF-8, 32 bits. */
export function keyHash(key: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/**
 * Vocabulary keys are kept in buckets by their hash's high bits, one row per bucket whose entries are
 * a blob of each key's low bits (3 bytes, big-endian) and its term's id (LEB128): about 5 bytes an
 * entry, against 14 as a row of (key, id) of a WITHOUT ROWID table (2,000 pages: 211,420 keys, 3.0 MB).
 * 2^14 buckets: at 20,000 pages about 40 entries each.
 */
const lowBits = 18;
/** A key hash's bucket (its high bits) and its entry's low bits. */
const bucketOf = (hash: number): number => hash >>> lowBits;
const lowOf = (hash: number): number => hash & ((1 << lowBits) - 1);

/** A bucket's entry: its key hash's low bits, and the term's id. */
function bucketEntry(hash: number, id: number): Uint8Array {
  const low = lowOf(hash);
  const bytes = [low >> 16, (low >> 8) & 0xff, low & 0xff];
  let rest = id;
  for (; rest >= 0x80; rest = Math.floor(rest / 0x80)) bytes.push((rest % 0x80) | 0x80);
  bytes.push(rest);
  return Uint8Array.from(bytes);
}

/** The ids of the terms filed under these key hashes, read from their buckets. */
function idsIn(buckets: ReadonlyMap<number, Uint8Array>, hashes: readonly number[]): number[] {
  const ids: number[] = [];
  const lows = new Map<number, Set<number>>();
  for (const hash of hashes) {
    const bucket = bucketOf(hash);
    if (!lows.has(bucket)) lows.set(bucket, new Set());
    lows.get(bucket)!.add(lowOf(hash));
  }
  for (const [bucket, wanted] of lows) {
    const entries = buckets.get(bucket);
    if (!entries) continue;
    for (let at = 0; at < entries.length; ) {
      const low = (entries[at]! << 16) | (entries[at + 1]! << 8) | entries[at + 2]!;
      at += 3;
      let id = 0;
      for (let scale = 1; ; scale *= 0x80) {
        const byte = entries[at++]!;
        id += (byte & 0x7f) * scale;
        if (byte < 0x80) break;
      }
      if (wanted.has(low)) ids.push(id);
    }
  }
  return ids;
}

type Value = string | number | Uint8Array;

/** The first of a blob's SQLite varints (big-endian, 7 bits a byte, the high bit set on all but the last; a 9th byte whole): a page's size in FTS5's `_docsize`. */
function firstVarint(bytes: Uint8Array): number {
  let value = 0;
  for (let i = 0; i < 9 && i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (i === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return value;
}

/** The kinds of posting lists: every book, and one list per status, language, tag and category. */
const kinds = { every: 0, status: 1, language: 2, tag: 3, category: 4 } as const;
/** The orders, each list kept once per order (`ord`). */
const ords = { byDate: 0, byName: 1, byPages: 2 } as const;
/** Counts read the pages order: its keys are the shortest. */
const countOrd = ords.byPages;
/**
 * A group of 2 to this many values is a UNION of ordered lists (merged, no sort), and another
 * group's EXISTS an IN list of bound values; more, one IN list of a JSON array, sorted.
 */
const maxMergedLists = 32;
/**
 * Reading a posting of another group (EXISTS, a b-tree seek) against reading the next one of the
 * driving list: about 1 µs against 0.2 µs at 100,000 books (bench/catalogue.ts).
 */
const seekCost = 5;

const utf8 = (value: string): Uint8Array => Buffer.from(value);
const hexList = (values: readonly Uint8Array[]): string => JSON.stringify(values.map((v) => Buffer.from(v).toString('hex')));

/** A book's postings: one per term (every, its status, language, tags, categories) and order. */
function termsOf(book: IndexedBook): [number, Uint8Array][] {
  return [
    [kinds.every, new Uint8Array()],
    [kinds.status, utf8(book.status)],
    [kinds.language, utf8(book.language)],
    ...book.tags.map((tag): [number, Uint8Array] => [kinds.tag, utf8(tag)]),
    ...book.categories.map((category): [number, Uint8Array] => [kinds.category, utf8(category)]),
  ];
}

/** A filter of a listing query: one kind, any of these values. */
interface Group {
  kind: number;
  values: Uint8Array[];
}

export function sqliteSearchEngine(path: string): SqliteSearchEngine {
  const db = new sqlite3.Database(path);
  // The lock is taken at the first read and kept until close: this build's file lock is a
  // directory (`<file>.lock`) made and removed around every statement otherwise, which was most of
  // a small search's time (2,000 pages: p50 0.55 ms, 0.1 ms kept). It also keeps any other
  // connection out while this one is open.
  db.exec('PRAGMA locking_mode = EXCLUSIVE');
  let version: unknown;
  try {
    version = db.get('PRAGMA user_version')?.user_version;
  } catch (error) {
    db.close();
    if (!/locked/i.test(String(error))) throw error;
    throw new Error(lockedIndexMessage(path), { cause: error });
  }
  const holder = path === ':memory:' ? undefined : thisProcess();
  if (holder) writeFileSync(searchIndexOwnerFile(path), `${JSON.stringify(holder)}\n`);
  if (version !== 0 && version !== schemaVersion) {
    db.close();
    throw new Error(`${path} holds a search index of layout ${String(version)}, not ${schemaVersion}: delete it and index again`);
  }
  // Derived data, rebuilt by indexing again: a commit need not survive a power cut (synchronous
  // NORMAL: a one-row update 0.7 ms instead of 3 ms), and the journal is kept, not re-created
  // (TRUNCATE). WAL needs shared memory, which this build's file system does not offer.
  db.exec('PRAGMA journal_mode = TRUNCATE; PRAGMA synchronous = NORMAL');
  // Up to 64 MB of pages kept in memory (the default, 2 MB, is less than one large listing's lists):
  // at 100,000 listed books a filter on a quarter of them ran 20 to 30% faster.
  db.exec(`PRAGMA cache_size = -${cacheKiB}`);
  db.exec(schema);
  // The lock directory outlives a process that exits without closing; closed here on every exit
  // but a kill (SIGKILL) or a crash of the machine.
  const closeOnExit = () => close();

  const statements = new Map<string, sqlite3.Statement>();
  /**
   * One prepared statement per SQL text (a handful per search shape, each assembled from fixed parts;
   * listing queries have more shapes, so the least recently used beyond maxStatements is finalized).
   */
  const statement = (sql: string): sqlite3.Statement => {
    let found = statements.get(sql);
    if (found) {
      statements.delete(sql);
    } else {
      found = db.prepare(sql);
      if (statements.size >= maxStatements) {
        const [oldest, unused] = statements.entries().next().value!;
        statements.delete(oldest);
        unused.finalize();
      }
    }
    statements.set(sql, found);
    return found;
  };

  /**
   * The one row a statement answers, or undefined. Run to its end (`all`): the library resets a
   * statement only before its next use, and one left on a row (`get`) keeps its read open, so a
   * COMMIT would fail and an `INSERT ... RETURNING` would not be finished.
   */
  const row = (sql: string, values: Value[]): Record<string, unknown> | undefined => statement(sql).all(values)[0];

  const transaction = (write: () => void): void => {
    db.exec('BEGIN');
    try {
      write();
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  };

  const seqOf = (bookTextId: string): number | undefined => {
    const found = row('SELECT seq FROM books WHERE bookTextId = ?', [bookTextId]);
    return found ? Number(found.seq) : undefined;
  };

  /** Adds a book's row, or sets its fields unless the row's are of a higher revision; its seq. */
  const upsertBook = (bookTextId: string, fields: IndexedBookFields): number => {
    const upserted = row(
      `INSERT INTO books (bookTextId, userId, visibility, status, language, rev) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (bookTextId) DO UPDATE SET
         userId = excluded.userId, visibility = excluded.visibility, status = excluded.status, language = excluded.language, rev = excluded.rev
       WHERE excluded.rev >= books.rev
       RETURNING seq`,
      [bookTextId, fields.userId, fields.visibility, fields.status, fields.language, fields.rev ?? 0],
    );
    // An older revision updates nothing, and so returns no row.
    const seq = upserted ? Number(upserted.seq) : seqOf(bookTextId)!;
    if (seq > maxSeq) throw new RangeError(`The search index holds too many books (book seq ${seq})`);
    return seq;
  };

  /** Terms this engine has filed (or found filed): each is looked for once per process. */
  const filed = new Set<string>();
  /**
   * Files the terms of these pages not filed yet: each in `vocabulary` under a new id, and an entry of
   * each of its keys in the key's bucket. A term first seen by this process is looked for under its
   * first key (a term is filed whole, in one transaction): so no term is filed twice, without an index
   * on the terms. The batch's buckets are read once and written once.
   */
  const file = (pages: readonly IndexedPage[]): void => {
    const fresh = new Map<string, number[]>();
    for (const page of pages) {
      for (const term of page.exact) {
        if (filed.has(term) || fresh.has(term) || !isFiled(term)) continue;
        fresh.set(term, [...new Set(variantKeys(term).map(keyHash))]);
      }
    }
    if (fresh.size === 0) return;
    const buckets = readBuckets([...fresh.values()].flat());
    const found = termsById([...fresh.values()].flatMap((hashes) => idsIn(buckets, [hashes[0]!])));
    const addTerm = statement('INSERT INTO vocabulary (term) VALUES (?) RETURNING id');
    const changed = new Set<number>();
    for (const [term, hashes] of fresh) {
      filed.add(term);
      if (found.has(term)) continue;
      const id = Number(addTerm.all([term])[0]!.id);
      for (const hash of hashes) {
        const bucket = bucketOf(hash);
        buckets.set(bucket, Buffer.concat([buckets.get(bucket) ?? new Uint8Array(), bucketEntry(hash, id)]));
        changed.add(bucket);
      }
    }
    const putBucket = statement('INSERT OR REPLACE INTO vocabulary_keys (bucket, entries) VALUES (?, ?)');
    for (const bucket of changed) putBucket.run([bucket, buckets.get(bucket)!]);
  };

  /** The buckets of these key hashes, as stored (a bucket with no entries is not in the map). */
  const readBuckets = (hashes: readonly number[]): Map<number, Uint8Array> => {
    const wanted = [...new Set(hashes.map(bucketOf))];
    const rows = statement('SELECT bucket, entries FROM vocabulary_keys WHERE bucket IN (SELECT value FROM json_each(?))').all([JSON.stringify(wanted)]);
    return new Map(rows.map((found) => [Number(found.bucket), found.entries as Uint8Array]));
  };

  /** The terms of these ids, each by its id's term. */
  const termsById = (ids: readonly number[]): Set<string> =>
    new Set(
      ids.length === 0
        ? []
        : statement('SELECT term FROM vocabulary WHERE id IN (SELECT value FROM json_each(?))')
            .all([JSON.stringify([...new Set(ids)])])
            .map((found) => String(found.term)),
    );

  const writeBatch = (pages: readonly IndexedPage[]): WrittenPage[] => {
    file(pages);
    // The book's fields from its page of the highest revision here (the last of equal ones).
    const books = new Map<string, IndexedPage>();
    for (const page of pages) {
      const other = books.get(page.bookTextId);
      if (!other || (page.rev ?? 0) >= (other.rev ?? 0)) books.set(page.bookTextId, page);
    }
    const seqs = new Map<string, number>();
    for (const [bookTextId, page] of books) seqs.set(bookTextId, upsertBook(bookTextId, page));
    const putExact = statement('INSERT OR REPLACE INTO exact (rowid, terms) VALUES (?, ?)');
    const putStemmed = statement('INSERT OR REPLACE INTO stemmed (rowid, terms) VALUES (?, ?)');
    const heldRev = statement('SELECT rev, digest FROM page_revs WHERE rowid = ?');
    const putRev = statement('INSERT OR REPLACE INTO page_revs (rowid, rev, digest) VALUES (?, ?, ?)');
    const written: WrittenPage[] = [];
    for (const page of pages) {
      const seq = seqs.get(page.bookTextId)!;
      const rowid = seq * pageSpan + page.pageNumber;
      const held = heldRev.all([rowid])[0];
      const rev = page.pageRev ?? 0;
      if (held && Number(held.rev) > rev) continue;
      const exact = page.exact.join(' ');
      const stemmed = page.stemmed.join(' ');
      // The table's stream puts again every page a write just put (lib/search/read-after-write.ts): the same
      // revision and terms. Writing it again would cost FTS5 a delete and an insert of every term, as much as the first put.
      const digest = createHash('sha256').update(exact).update('\0').update(stemmed).digest();
      if (held && Number(held.rev) === rev && Buffer.from(held.digest as Uint8Array).equals(digest)) continue;
      putExact.run([rowid, exact]);
      putStemmed.run([rowid, stemmed]);
      putRev.run([rowid, rev, digest]);
      written.push({ seq, pageNumber: page.pageNumber, terms: page.stemmed, replaced: held !== undefined });
    }
    return written;
  };

  /**
   * The FROM and WHERE of a search, with their parameters. Assembled from fixed parts only (values
   * are bound), so there are few distinct statements to prepare. `counted` leaves `books` out when
   * no book field filters (every page has its book): staff's counts 15 to 30% faster.
   */
  const searchWhere = (query: PageQuery, match: string, seq: number | undefined) => {
    const table = query.field === 'exact' ? 'exact' : 'stemmed';
    const filters: string[] = [`${table} MATCH ?`];
    const values: Value[] = [match];
    if (seq !== undefined) {
      filters.push(`${table}.rowid BETWEEN ? AND ?`);
      values.push(seq * pageSpan, seq * pageSpan + pageSpan - 1);
    }
    if (query.language !== undefined) {
      filters.push('b.language = ?');
      values.push(query.language);
    }
    if (query.view.kind === 'public') {
      filters.push("b.visibility = 'public'");
    } else if (query.view.kind === 'publicAndOwn') {
      filters.push("(b.visibility = 'public' OR b.userId = ?)");
      values.push(query.view.ownerId);
    }
    const joined = `FROM ${table} JOIN books b ON b.seq = ${table}.rowid >> ${pageBits} WHERE ${filters.join(' AND ')}`;
    const bookFiltered = query.language !== undefined || query.view.kind !== 'all';
    return { table, values, joined, counted: bookFiltered ? joined : `FROM ${table} WHERE ${filters.join(' AND ')}` };
  };

  /** The rowids of the pages of `exact` matching an expression (within the book's range, if any). */
  const exactPages = (match: string, seq: number | undefined): Set<number> => {
    const range = seq === undefined ? [] : [seq * pageSpan, seq * pageSpan + pageSpan - 1];
    return new Set(
      statement(`SELECT rowid AS id FROM exact WHERE exact MATCH ?${range.length > 0 ? ' AND rowid BETWEEN ? AND ?' : ''}`)
        .all([match, ...range])
        .map((found) => Number(found.id)),
    );
  };

  /** The books of these seqs (a seq of no book left out). */
  const booksOf = (seqs: readonly number[]): Map<number, SearchedBook> =>
    new Map(
      statement('SELECT seq, bookTextId, userId, visibility, language FROM books WHERE seq IN (SELECT value FROM json_each(?))')
        .all([JSON.stringify(seqs)])
        .map((found) => [
          Number(found.seq),
          { bookTextId: String(found.bookTextId), userId: String(found.userId), visibility: String(found.visibility), language: String(found.language) },
        ]),
    );

  /**
   * The default search's terms in memory (term-pages.ts): read from FTS5's vocabulary of instances
   * (`stemmed_instances`, in the connection's temporary schema) and the pages' sizes FTS5 keeps.
   */
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.stemmed_instances USING fts5vocab(main, 'stemmed', 'instance')");
  const termPages = termPagesCache(
    {
      *postings(term) {
        for (const found of statement('SELECT doc, count(*) AS n FROM temp.stemmed_instances WHERE term = ? GROUP BY doc ORDER BY doc').all([term])) {
          yield [Number(found.doc), Number(found.n)];
        }
      },
      *lengths() {
        for (const found of statement('SELECT id, sz FROM stemmed_docsize').all([])) yield [Number(found.id), firstVarint(found.sz as Uint8Array)];
      },
    },
    pageSpan,
  );

  /** The ORDER BY term ranking the pages of `exact` that hold `phrase` first, and its parameters. */
  const phraseFirstOrder = (table: string, phrase: string[], seq: number | undefined): { sql: string; values: Value[] } => {
    const range = seq === undefined ? [] : [seq * pageSpan, seq * pageSpan + pageSpan - 1];
    return {
      sql: `${table}.rowid IN (SELECT rowid FROM exact WHERE exact MATCH ?${range.length > 0 ? ' AND exact.rowid BETWEEN ? AND ?' : ''}) DESC, `,
      values: [matchExpression({ mode: 'phrase', terms: phrase })!, ...range],
    };
  };

  // -------------------------------------------------------------------------------------------
  // The catalogue listing
  // -------------------------------------------------------------------------------------------

  /** Adds (+1) or takes away (-1) a book's postings, and its counts in listing_counts. */
  const post = (seq: number, book: IndexedBook, sign: 1 | -1): void => {
    const isPublic = book.visibility === 'public' ? 1 : 0;
    const owner = utf8(book.userId);
    const status = utf8(book.status);
    const language = utf8(book.language);
    const keys = [utf8(book.byDate), utf8(book.byName), utf8(book.byPages)];
    const put = statement('INSERT INTO listing_postings (kind, value, ord, key, public, userId, status, language, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const take = statement('DELETE FROM listing_postings WHERE kind = ? AND value = ? AND ord = ? AND key = ?');
    const count = statement(
      'INSERT INTO listing_counts (kind, value, public, status, language, n) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n',
    );
    const drop = statement('DELETE FROM listing_counts WHERE n = 0 AND kind = ? AND value = ? AND public = ? AND status = ? AND language = ?');
    for (const [kind, value] of termsOf(book)) {
      for (const [ord, key] of keys.entries()) {
        if (sign > 0) put.run([kind, value, ord, key, isPublic, owner, status, language, seq]);
        else take.run([kind, value, ord, key]);
      }
      count.run([kind, value, isPublic, status, language, sign]);
      if (sign < 0) drop.run([kind, value, isPublic, status, language]);
    }
  };

  const listed = (bookTextId: string): { seq: number; book: IndexedBook; entry: string } | undefined => {
    const found = row('SELECT seq, entry FROM listing WHERE bookTextId = ?', [bookTextId]);
    return found && { seq: Number(found.seq), entry: String(found.entry), book: JSON.parse(String(found.entry)) as IndexedBook };
  };

  /** Replaces a book's entry (`old`, if listed) with `entry`: its postings, counts and row. */
  const relist = (old: ReturnType<typeof listed>, entry: IndexedBook): void => {
    const json = JSON.stringify(entry);
    if (old?.entry === json) return;
    if (old) post(old.seq, old.book, -1);
    const seq = Number(
      row(
        `INSERT INTO listing (bookTextId, entry, userId, public, status, language, pagesKey) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (bookTextId) DO UPDATE SET
           entry = excluded.entry, userId = excluded.userId, public = excluded.public, status = excluded.status,
           language = excluded.language, pagesKey = excluded.pagesKey
         RETURNING seq`,
        [entry.bookTextId, json, utf8(entry.userId), entry.visibility === 'public' ? 1 : 0, utf8(entry.status), utf8(entry.language), utf8(entry.byPages)],
      )!.seq,
    );
    post(seq, entry, 1);
  };

  const unlist = (bookTextId: string): void => {
    const old = listed(bookTextId);
    if (!old) return;
    post(old.seq, old.book, -1);
    statement('DELETE FROM listing WHERE seq = ?').run([old.seq]);
  };

  /** How many postings a group's lists hold together (listing_counts: no list is read). */
  const groupSize = (group: Group): number =>
    Number(row('SELECT coalesce(sum(n), 0) AS n FROM listing_counts WHERE kind = ? AND value IN (SELECT unhex(value) FROM json_each(?))', [group.kind, hexList(group.values)])!.n);

  /** `IN (?, ?, ...)` of a group's values up to maxMergedLists, else `IN (<a JSON array's values>)`: the SQL and its parameters. */
  const anyOf = (values: readonly Uint8Array[]): { sql: string; values: Value[] } =>
    values.length <= maxMergedLists
      ? { sql: `IN (${values.map(() => '?').join(', ')})`, values: [...values] }
      : { sql: 'IN (SELECT unhex(value) FROM json_each(?))', values: [hexList(values)] };

  /**
   * The conditions a posting of the driving list must meet besides its list, on alias `p`: the
   * view, the status and language (columns of every posting), and for each other group of tags or
   * categories an EXISTS seek of the same book's posting in one of its lists (same order, same key).
   */
  const conditions = (q: ListingQuery, groups: readonly Group[], driver: Group): { sql: string; values: Value[] } => {
    const parts: string[] = [];
    const values: Value[] = [];
    if (q.view.kind === 'public') parts.push('p.public = 1');
    else if (q.view.kind === 'publicAndOwn') {
      parts.push('(p.public = 1 OR p.userId = ?)');
      values.push(utf8(q.view.ownerId));
    }
    if (q.status !== undefined && driver.kind !== kinds.status) {
      parts.push('p.status = ?');
      values.push(utf8(q.status));
    }
    if (q.language !== undefined && driver.kind !== kinds.language) {
      parts.push('p.language = ?');
      values.push(utf8(q.language));
    }
    for (const group of groups) {
      if (group === driver || group.kind < kinds.tag) continue;
      const alias = `q${group.kind}`;
      const value = anyOf(group.values);
      parts.push(`EXISTS (SELECT 1 FROM listing_postings ${alias} WHERE ${alias}.kind = ${group.kind} AND ${alias}.value ${value.sql} AND ${alias}.ord = p.ord AND ${alias}.key = p.key)`);
      values.push(...value.values);
    }
    return { sql: parts.map((part) => ` AND ${part}`).join(''), values };
  };

  /**
   * The driving list's postings that meet the conditions, in one order: `SELECT <columns> FROM ...`
   * for one list (already in key order), a UNION of up to maxMergedLists lists (SQLite merges
   * ordered arms, and drops a book found in two), or one IN list grouped by key (sorted).
   */
  const driven = (driver: Group, ord: number, where: { sql: string; values: Value[] }, columns: string) => {
    const from = (value: string) => `SELECT ${columns} FROM listing_postings p WHERE p.kind = ${driver.kind} AND ${value} AND p.ord = ${ord}${where.sql}`;
    if (driver.values.length === 1) return { sql: from('p.value = ?'), values: [driver.values[0]!, ...where.values], grouped: false };
    if (driver.values.length <= maxMergedLists) {
      return { sql: driver.values.map(() => from('p.value = ?')).join(' UNION '), values: driver.values.flatMap((v) => [v, ...where.values]), grouped: false };
    }
    return { sql: `${from('p.value IN (SELECT unhex(value) FROM json_each(?))')} GROUP BY p.key`, values: [hexList(driver.values), ...where.values], grouped: true };
  };

  /**
   * The exact size of a listing filtered by at most one list of tags or categories (`term`; none:
   * the list of every book), from listing_counts, which counts each list's books per visibility,
   * status and language; a member's own private books are counted apart, from their listing rows
   * (a member has few), each checked by a seek in the list.
   */
  const countedTotal = (q: ListingQuery, term: { kind: number; value: Uint8Array }): number => {
    const filters: string[] = [];
    const values: Value[] = [];
    if (q.status !== undefined) {
      filters.push(' AND status = ?');
      values.push(utf8(q.status));
    }
    if (q.language !== undefined) {
      filters.push(' AND language = ?');
      values.push(utf8(q.language));
    }
    const where = filters.join('');
    const publicOnly = q.view.kind === 'all' ? '' : ' AND public = 1';
    let total = Number(row(`SELECT coalesce(sum(n), 0) AS n FROM listing_counts WHERE kind = ? AND value = ?${publicOnly}${where}`, [term.kind, term.value, ...values])!.n);
    if (q.view.kind === 'publicAndOwn') {
      const inList =
        term.kind === kinds.every ? '' : ` AND EXISTS (SELECT 1 FROM listing_postings q WHERE q.kind = ${term.kind} AND q.value = ? AND q.ord = ${countOrd} AND q.key = l.pagesKey)`;
      total += Number(
        row(`SELECT count(*) AS n FROM listing l WHERE userId = ? AND public = 0${where}${inList}`, [utf8(q.view.ownerId), ...values, ...(inList ? [term.value] : [])])!.n,
      );
    }
    return total;
  };

  const listBooks = (q: ListingQuery): { total: number; bookTextIds: string[] } => {
    const none = { total: 0, bookTextIds: [] };
    const groups: Group[] = [];
    if (q.status !== undefined) groups.push({ kind: kinds.status, values: [utf8(q.status)] });
    if (q.language !== undefined) groups.push({ kind: kinds.language, values: [utf8(q.language)] });
    if (q.tags.length > 0) groups.push({ kind: kinds.tag, values: q.tags.map(utf8) });
    if (q.categories.length > 0) groups.push({ kind: kinds.category, values: q.categories.map(utf8) });
    // The driving list: the group whose lists cost least to read, each posting read counted once and
    // each seek into another group's lists seekCost times; none: the list of every book.
    let driver: Group = { kind: kinds.every, values: [new Uint8Array()] };
    let cheapest = Infinity;
    for (const group of groups) {
      const size = groupSize(group);
      if (size === 0) return none;
      const seeks = groups.filter((other) => other !== group && other.kind >= kinds.tag).reduce((n, other) => n + other.values.length, 0);
      const cost = size * (1 + seekCost * seeks) * (group.values.length > 1 ? 2 : 1);
      if (cost < cheapest) [driver, cheapest] = [group, cost];
    }
    const where = conditions(q, groups, driver);
    // Counted from listing_counts when the lists of tags and categories are at most one; else by
    // reading the driving list's postings (in the order whose keys are shortest).
    const lists = groups.filter((group) => group.kind >= kinds.tag);
    let total: number;
    if (lists.length === 0) total = countedTotal(q, { kind: kinds.every, value: new Uint8Array() });
    else if (lists.length === 1 && lists[0]!.values.length === 1) total = countedTotal(q, { kind: lists[0]!.kind, value: lists[0]!.values[0]! });
    else {
      const counted = driven(driver, countOrd, where, 'p.key AS key');
      total = Number(row(`SELECT count(*) AS n FROM (${counted.sql})`, counted.values)!.n);
    }
    if (q.offset >= total) return { total, bookTextIds: [] };
    const direction = q.descending ? 'DESC' : 'ASC';
    const window = driven(driver, ords[q.sortKey], where, 'p.key AS key, p.seq AS seq');
    const seqs = statement(`${window.sql} ORDER BY ${window.grouped ? 'p.key' : 'key'} ${direction} LIMIT ? OFFSET ?`)
      .all([...window.values, q.limit, q.offset])
      .map((found) => Number(found.seq));
    const ids = new Map(
      statement('SELECT seq, bookTextId FROM listing WHERE seq IN (SELECT value FROM json_each(?))')
        .all([JSON.stringify(seqs)])
        .map((found) => [Number(found.seq), String(found.bookTextId)]),
    );
    return { total, bookTextIds: seqs.map((seq) => ids.get(seq)!) };
  };

  const merging = idleMerge({
    exec: (sql) => db.exec(sql),
    totalChanges: () => Number(row('SELECT total_changes() AS n', [])!.n),
    tables: ['exact', 'stemmed'],
  });
  // An index opened after a burst of writes that was not merged (a process stopped) is merged too.
  merging.wrote();

  /**
   * A field's segment count: the second varint of its structure record (`<table>_data`, id 10: a
   * 4-byte cookie, a 4-byte marker in FTS5's second structure format, then the levels and segments).
   */
  const segmentCount = (table: 'exact' | 'stemmed'): number => {
    const block = row(`SELECT block FROM ${table}_data WHERE id = 10`, [])?.block;
    if (!(block instanceof Uint8Array)) return 0;
    let at = 4;
    if (block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1) at += 4;
    while ((block[at]! & 0x80) !== 0) at++;
    return firstVarint(block.subarray(at + 1));
  };

  function close(): void {
    merging.stop();
    process.off('exit', closeOnExit);
    if (!db.isOpen) return;
    for (const found of statements.values()) found.finalize();
    statements.clear();
    db.close();
    if (holder && searchIndexHolder(path)?.pid === holder.pid) rmSync(searchIndexOwnerFile(path), { force: true });
  }
  if (path !== ':memory:') process.on('exit', closeOnExit);

  return {
    async putPages(pages) {
      checkIndexedPages(pages);
      for (let start = 0; start < pages.length; start += batchSize) {
        if (start > 0) await new Promise((resolve) => setImmediate(resolve));
        try {
          let written: WrittenPage[] = [];
          transaction(() => {
            written = writeBatch(pages.slice(start, start + batchSize));
          });
          // Committed: the terms kept in memory follow.
          termPages.written(written);
          merging.wrote();
        } catch (error) {
          // The terms this batch filed were rolled back with it: look for every term again.
          filed.clear();
          throw error;
        }
      }
    },

    async setBookFields(bookTextId, fields) {
      if (fields.visibility !== 'public' && fields.visibility !== 'private') throw new RangeError(`${bookTextId}: unknown visibility`);
      const rev = revisionOf(fields.rev, bookTextId);
      statement('UPDATE books SET userId = ?, visibility = ?, status = ?, language = ?, rev = ? WHERE bookTextId = ? AND rev <= ?').run([
        fields.userId,
        fields.visibility,
        fields.status,
        fields.language,
        rev,
        bookTextId,
        rev,
      ]);
    },

    async hideBook(bookTextId) {
      transaction(() => {
        statement("UPDATE books SET visibility = 'private' WHERE bookTextId = ?").run([bookTextId]);
        const old = listed(bookTextId);
        if (old?.book.visibility === 'public') relist(old, { ...old.book, visibility: 'private' });
      });
    },

    async removeBook(bookTextId) {
      let removed: number | undefined;
      transaction(() => {
        unlist(bookTextId);
        const seq = seqOf(bookTextId);
        if (seq === undefined) return;
        statement('DELETE FROM exact WHERE rowid BETWEEN ? AND ?').run([seq * pageSpan, seq * pageSpan + pageSpan - 1]);
        statement('DELETE FROM stemmed WHERE rowid BETWEEN ? AND ?').run([seq * pageSpan, seq * pageSpan + pageSpan - 1]);
        statement('DELETE FROM page_revs WHERE rowid BETWEEN ? AND ?').run([seq * pageSpan, seq * pageSpan + pageSpan - 1]);
        statement('DELETE FROM books WHERE seq = ?').run([seq]);
        removed = seq;
      });
      if (removed !== undefined) termPages.removedBook(removed);
      merging.wrote();
    },

    async similarTerms(keys) {
      const wanted = similarKeys(keys);
      if (wanted.length === 0) return [];
      const asked = new Set(wanted);
      // Twice the answer's bound, then the terms a shared hash brought in are left out.
      const hashes = [...new Set(wanted.map(keyHash))];
      const ids = [...new Set(idsIn(readBuckets(hashes), hashes))];
      if (ids.length === 0) return [];
      return statement('SELECT term FROM vocabulary WHERE id IN (SELECT value FROM json_each(?)) ORDER BY term LIMIT ?')
        .all([JSON.stringify(ids), 2 * maxSimilarTerms])
        .map((found) => String(found.term))
        .filter((term) => variantKeys(term).some((key) => asked.has(key)))
        .slice(0, maxSimilarTerms);
    },

    async search(query) {
      checkPageQuery(query);
      const phrase = phraseFirstTerms(query);
      const forgiving = forgivingTerms(query);
      const none = { total: 0, hits: [] };
      let seq: number | undefined;
      if (query.bookTextId !== undefined) {
        seq = seqOf(query.bookTextId);
        if (seq === undefined) return none;
      }
      if (forgiving) {
        const { words, minimumWords, nearPhrases } = forgiving;
        if (words.filter((alternatives) => alternatives.length > 0).length < minimumWords) return none;
        const phraseHits = phrase ? exactPages(matchExpression({ mode: 'phrase', terms: phrase })!, seq) : null;
        const nearHits = nearPhrases.length > 0 ? exactPages(nearPhrases.map((p) => quoted(p.join(' '))).join(' OR '), seq) : new Set<number>();
        const { view, language, offset, limit } = query;
        return forgivingSearch(termPages, booksOf, { words, minimumWords, typed: query.terms, phraseHits, nearHits, seq, view, language, offset, limit }, pageSpan);
      }
      const match = matchExpression(query);
      if (match === null) return none;
      const where = searchWhere(query, match, seq);
      // Counted without ranking (cheaper than one ranked query counting with a window: measured).
      const total = Number(row(`SELECT count(*) AS n ${where.counted}`, where.values)!.n);
      if (query.offset >= total) return { total, hits: [] };
      // Phrase hits first: the pages of `exact` holding the phrase (in the book's rowid range, if
      // any), one uncorrelated subquery SQLite runs once; then bm25(), lower for better pages; ties
      // by bookTextId (BINARY: ids are ASCII), then page number.
      const first = phrase ? phraseFirstOrder(where.table, phrase, seq) : { sql: '', values: [] };
      const rows = statement(
        `SELECT b.bookTextId AS bookTextId, ${where.table}.rowid & ${pageSpan - 1} AS pageNumber ${where.joined}
         ORDER BY ${first.sql}bm25(${where.table}), b.bookTextId, pageNumber LIMIT ? OFFSET ?`,
      ).all([...where.values, ...first.values, query.limit, query.offset]);
      const hits: PageHit[] = rows.map((row) => ({ bookTextId: String(row.bookTextId), pageNumber: Number(row.pageNumber) }));
      return { total, hits };
    },

    async putBook(book) {
      const entry = listingBook(book);
      transaction(() => {
        const old = listed(entry.bookTextId);
        // The entry held is of a higher revision: this one is older news.
        if (old && (old.book.rev ?? 0) > (entry.rev ?? 0)) return;
        relist(old, entry);
      });
    },

    async listBooks(query) {
      const q = listingQuery(query);
      return q ? listBooks(q) : { total: 0, bookTextIds: [] };
    },

    close,
    merged: () => merging.merged(),
    segmentCounts: () => ({ exact: segmentCount('exact'), stemmed: segmentCount('stemmed') }),
  };
}
