import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { maxWindow } from '../../paging.ts';
import type { BookText, BookTextList, FileRecord } from '../../ocr/book-text.ts';
import { compareSortKeys } from '../../ocr/catalogue/sort-keys.ts';
import type { CatalogueQuery, CatalogueStore } from '../../ocr/catalogue/store.ts';
import { keys } from './keys.ts';
import { batchGet, type Db } from './table.ts';

/**
 * The first pages of the unfiltered GET /ocr/books over the catalogue indexes (schema.ts); filtered
 * and deeper listings come from the search index (lib/ocr/catalogue/listing.ts). Each view is one or
 * two sorted sources: anonymous callers read the public partition; editors merge the public and
 * private partitions; members merge the public partition with their own private books (gsi1, the
 * owner's list). A page is the merge of the first `offset + limit` entries of each source, then one
 * BatchGetItem for the records. Totals come from counters kept with every create and visibility
 * change, so these listings cost the same whatever the catalogue's size, and a new book is listed at once.
 */

interface Entry {
  bookTextId: string;
  sortKey: string;
}

interface Source {
  /**
   * Up to `n` matching entries in order, examining at most `budget` index entries (a filter is
   * applied after DynamoDB reads an entry, so a rare value would otherwise read the whole partition).
   */
  first(n: number, budget: number): Promise<Entry[]>;
}

const sortAttribute = { date: 'byDate', name: 'byName', pages: 'byPages' } as const;
const indexName = { date: 'catalogueByDate', name: 'catalogueByName', pages: 'catalogueByPages' } as const;

type KeyQuery = Pick<QueryCommandInput, 'IndexName' | 'KeyConditionExpression' | 'FilterExpression'> & {
  names: Record<string, string>;
  values: Record<string, unknown>;
};

/**
 * Reads a sorted index partition from its start in the asked direction, `project` naming the
 * attributes each entry needs: up to `n` matches, examining at most `budget` entries.
 */
async function readEntries(
  db: Db,
  query: KeyQuery,
  read: { descending: boolean; n: number; budget: number; project: Record<string, string>; entry: (item: Record<string, unknown>) => Entry },
): Promise<Entry[]> {
  const entries: Entry[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  let examined = 0;
  // Limit counts entries examined, not matched: a filtered read (the owner's list, filtered on
  // visibility) looks further ahead on each call, never past the budget.
  let lookAhead = Math.max(read.n * 4, 100);
  while (entries.length < read.n && examined < read.budget) {
    const wanted = query.FilterExpression ? lookAhead : read.n - entries.length;
    const out = await db.client.send(
      new QueryCommand({
        TableName: db.tableName,
        IndexName: query.IndexName,
        KeyConditionExpression: query.KeyConditionExpression,
        FilterExpression: query.FilterExpression,
        ExpressionAttributeNames: { ...query.names, ...read.project },
        ExpressionAttributeValues: query.values,
        ProjectionExpression: Object.keys(read.project).join(', '),
        ScanIndexForward: !read.descending,
        Limit: Math.min(wanted, read.budget - examined),
        ExclusiveStartKey,
      }),
    );
    lookAhead *= 4;
    examined += out.ScannedCount ?? 0;
    for (const item of out.Items ?? []) entries.push(read.entry(item));
    ExclusiveStartKey = out.LastEvaluatedKey;
    if (!ExclusiveStartKey) break;
  }
  return entries.slice(0, read.n);
}

/** A sorted index partition, read from its start in the asked direction. */
function indexSource(db: Db, query: KeyQuery, sortKey: string, descending: boolean): Source {
  return {
    first: (n, budget) =>
      readEntries(db, query, {
        descending,
        n,
        budget,
        project: { '#id': 'bookTextId', '#sortKey': sortKey },
        entry: (item) => ({ bookTextId: String(item.bookTextId), sortKey: String(item[sortKey]) }),
      }),
  };
}

/** One visibility partition of a catalogue index. */
function partition(db: Db, q: CatalogueQuery, visibility: 'public' | 'private'): Source {
  return indexSource(
    db,
    {
      IndexName: indexName[q.order],
      KeyConditionExpression: '#catalogue = :catalogue',
      names: { '#catalogue': 'catalogue' },
      values: { ':catalogue': keys.catalogue(visibility) },
    },
    sortAttribute[q.order],
    q.descending,
  );
}

/**
 * A member's own private books, from the owner's list (gsi1, newest first by `<createdAt>#<id>`, the
 * same form as `byDate`). For the name and page orders the caller's newest own private books, up to
 * the window, are read and sorted here: that grows with the caller's own books, never with the catalogue.
 */
function ownPrivate(db: Db, q: CatalogueQuery, ownerId: string): Source {
  const query: KeyQuery = {
    IndexName: 'gsi1',
    KeyConditionExpression: '#owner = :owner',
    FilterExpression: '#visibility = :private',
    names: { '#owner': 'gsi1pk', '#visibility': 'visibility' },
    values: { ':owner': keys.ownerJobsIndex(ownerId), ':private': 'private' },
  };
  if (q.order === 'date') return indexSource(db, query, 'gsi1sk', q.descending);
  return {
    async first(n, budget) {
      const all = await readEntries(db, query, {
        descending: true,
        n: budget,
        budget,
        project: { '#id': 'bookTextId', '#createdAt': 'createdAt', '#fileName': 'fileName', '#pageCount': 'pageCount' },
        entry: (item) => {
          const bookText = item as Pick<BookText, 'bookTextId' | 'createdAt' | 'fileName' | 'pageCount'>;
          return { bookTextId: bookText.bookTextId, sortKey: keys.catalogueSort(bookText)[sortAttribute[q.order]] };
        },
      });
      return sortEntries(all, q.descending).slice(0, n);
    },
  };
}

/** In DynamoDB's order: sort keys compare as UTF-8 bytes. */
function sortEntries(entries: Entry[], descending: boolean): Entry[] {
  const sign = descending ? -1 : 1;
  return entries.sort((a, b) => sign * compareSortKeys(a.sortKey, b.sortKey));
}

interface Counts {
  public?: number;
  private?: number;
}

async function counts(db: Db, key: { pk: string; sk: string }): Promise<Counts> {
  const { Item } = await db.client.send(new GetCommand({ TableName: db.tableName, Key: key }));
  return (Item ?? {}) as Counts;
}

async function unfilteredTotal(db: Db, q: CatalogueQuery): Promise<number> {
  const all = await counts(db, keys.catalogueCounts);
  if (q.view.kind === 'public') return all.public ?? 0;
  if (q.view.kind === 'all') return (all.public ?? 0) + (all.private ?? 0);
  const own = await counts(db, keys.ownerCatalogueCounts(q.view.ownerId));
  return (all.public ?? 0) + (own.private ?? 0);
}

/** Records by id, in the order asked. */
async function getBookTexts(db: Db, ids: string[]): Promise<BookText[]> {
  const found = new Map((await batchGet<BookText>(db, ids.map((id) => keys.bookText(id)))).map((bookText) => [bookText.bookTextId, bookText]));
  return ids.flatMap((id) => found.get(id) ?? []);
}

/**
 * One window of the unfiltered catalogue (lib/ocr/catalogue/listing.ts asks only for the first
 * pages: the search index serves the rest). Each source is read for `offset + limit` entries, never
 * past `window` (paging.ts maxWindow); the total comes from the counters.
 */
export async function catalogue(db: Db, q: CatalogueQuery, window = maxWindow): Promise<BookTextList> {
  const sources =
    q.view.kind === 'public'
      ? [partition(db, q, 'public')]
      : q.view.kind === 'all'
        ? [partition(db, q, 'public'), partition(db, q, 'private')]
        : [partition(db, q, 'public'), ownPrivate(db, q, q.view.ownerId)];
  const wanted = Math.min(q.offset + q.limit, window);
  const [lists, total] = await Promise.all([Promise.all(sources.map((s) => s.first(wanted, window))), unfilteredTotal(db, q)]);
  // The sources are disjoint (a book is in one visibility partition), so merging needs no dedupe.
  const merged = sortEntries(lists.flat(), q.descending);
  const page = merged.slice(q.offset, q.offset + q.limit);
  return { total, items: await getBookTexts(db, page.map((e) => e.bookTextId)) };
}

/** The book listing (lib/ocr/catalogue/store.ts). */
export function dynamoCatalogueStore(db: Db): CatalogueStore {
  return {
    list: (query) => catalogue(db, query),

    async getFiles(fileIds) {
      const files = await batchGet<FileRecord>(db, [...new Set(fileIds)].map((id) => keys.file(id)));
      return new Map(files.map((file) => [file.fileId, file]));
    },
  };
}
