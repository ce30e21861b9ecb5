import { GetCommand, paginateQuery, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { BookText, CatalogueFilter, CatalogueQuery, JobPage } from '../../ocr/book-text.ts';
import { keys } from './keys.ts';
import { batchGet, countAll, type Db } from './table.ts';

/**
 * GET /ocr/books over the catalogue indexes (schema.ts). Each view is one or two sorted sources:
 * anonymous callers read the public partition; editors merge the public and private partitions;
 * members merge the public partition with their own private books (gsi1, the owner's list). A page
 * is the merge of the first `offset + limit` entries of each source, then one BatchGetItem for the
 * records. Unfiltered totals come from counters kept with every create and visibility change, so
 * the common listing costs the same whatever the catalogue's size; filtered totals are counted.
 */

interface Entry {
  bookTextId: string;
  sortKey: string;
}

interface Source {
  first(n: number): Promise<Entry[]>;
  count(): Promise<number>;
}

const sortAttribute = { date: 'byDate', name: 'byName', pages: 'byPages' } as const;
const indexName = { date: 'catalogueByDate', name: 'catalogueByName', pages: 'catalogueByPages' } as const;

const isFiltered = (f: CatalogueFilter) => Boolean(f.status || f.language || f.tags.length || f.categories.length);

/** The filter as a FilterExpression; `extra` adds conditions (the owner source's visibility). */
function filterExpression(filter: CatalogueFilter, extra: Record<string, unknown> = {}) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts: string[] = [];
  const equals = { ...extra, ...(filter.status ? { status: filter.status } : {}), ...(filter.language ? { language: filter.language } : {}) };
  for (const [name, value] of Object.entries(equals)) {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    parts.push(`#${name} = :${name}`);
  }
  for (const name of ['tags', 'categories'] as const) {
    if (!filter[name].length) continue;
    names[`#${name}`] = name;
    const any = filter[name].map((value, i) => {
      values[`:${name}${i}`] = value;
      return `contains(#${name}, :${name}${i})`;
    });
    parts.push(`(${any.join(' OR ')})`);
  }
  return parts.length ? { FilterExpression: parts.join(' AND '), names, values } : { names, values };
}

type KeyQuery = Pick<QueryCommandInput, 'IndexName' | 'KeyConditionExpression' | 'FilterExpression'> & {
  names: Record<string, string>;
  values: Record<string, unknown>;
};

/** A sorted index partition, read from its start in the asked direction. */
function indexSource(db: Db, query: KeyQuery, sortKey: string, descending: boolean): Source {
  const base = {
    IndexName: query.IndexName,
    KeyConditionExpression: query.KeyConditionExpression,
    FilterExpression: query.FilterExpression,
    ExpressionAttributeValues: query.values,
  };
  return {
    async first(n) {
      const entries: Entry[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      // A filter is applied after Limit counts items, so a filtered read looks further ahead, and
      // further on each call: a rare value is found in a few calls, not one per hundred entries.
      let lookAhead = Math.max(n * 4, 100);
      while (entries.length < n) {
        const wanted = n - entries.length;
        const out = await db.client.send(
          new QueryCommand({
            TableName: db.tableName,
            ...base,
            ExpressionAttributeNames: { ...query.names, '#id': 'bookTextId', '#sortKey': sortKey },
            ProjectionExpression: '#id, #sortKey',
            ScanIndexForward: !descending,
            Limit: query.FilterExpression ? lookAhead : wanted,
            ExclusiveStartKey,
          }),
        );
        lookAhead *= 4;
        for (const item of out.Items ?? []) entries.push({ bookTextId: String(item.bookTextId), sortKey: String(item[sortKey]) });
        ExclusiveStartKey = out.LastEvaluatedKey;
        if (!ExclusiveStartKey) break;
      }
      return entries.slice(0, n);
    },
    count: () => countAll(db, { ...base, ExpressionAttributeNames: query.names }),
  };
}

/** One visibility partition of a catalogue index. */
function partition(db: Db, q: CatalogueQuery, visibility: 'public' | 'private'): Source {
  const f = filterExpression(q.filter);
  return indexSource(
    db,
    {
      IndexName: indexName[q.order],
      KeyConditionExpression: '#catalogue = :catalogue',
      FilterExpression: f.FilterExpression,
      names: { ...f.names, '#catalogue': 'catalogue' },
      values: { ...f.values, ':catalogue': keys.catalogue(visibility) },
    },
    sortAttribute[q.order],
    q.descending,
  );
}

/**
 * A member's own private books, from the owner's list (gsi1, newest first by `<createdAt>#<id>`, the
 * same form as `byDate`). For the name and page orders the caller's own private books are read whole
 * and sorted here: that grows with the caller's own books, never with the catalogue.
 */
function ownPrivate(db: Db, q: CatalogueQuery, ownerId: string): Source {
  const f = filterExpression(q.filter, { visibility: 'private' });
  const query: KeyQuery = {
    IndexName: 'gsi1',
    KeyConditionExpression: '#owner = :owner',
    FilterExpression: f.FilterExpression,
    names: { ...f.names, '#owner': 'gsi1pk' },
    values: { ...f.values, ':owner': keys.ownerJobsIndex(ownerId) },
  };
  const byDate = indexSource(db, query, 'gsi1sk', q.descending);
  if (q.order === 'date') return byDate;
  return {
    count: byDate.count,
    async first(n) {
      const all: Entry[] = [];
      const pages = paginateQuery(
        { client: db.client },
        {
          TableName: db.tableName,
          IndexName: query.IndexName,
          KeyConditionExpression: query.KeyConditionExpression,
          FilterExpression: query.FilterExpression,
          ProjectionExpression: '#id, #createdAt, #fileName, #pageCount',
          ExpressionAttributeNames: { ...query.names, '#id': 'bookTextId', '#createdAt': 'createdAt', '#fileName': 'fileName', '#pageCount': 'pageCount' },
          ExpressionAttributeValues: query.values,
        },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? []) {
          const book = item as Pick<BookText, 'bookTextId' | 'createdAt' | 'fileName' | 'pageCount'>;
          all.push({ bookTextId: book.bookTextId, sortKey: keys.catalogueSort(book)[sortAttribute[q.order]] });
        }
      }
      return sortEntries(all, q.descending).slice(0, n);
    },
  };
}

/** In DynamoDB's order: sort keys compare as UTF-8 bytes. */
function sortEntries(entries: Entry[], descending: boolean): Entry[] {
  const sign = descending ? -1 : 1;
  return entries.sort((a, b) => sign * Buffer.compare(Buffer.from(a.sortKey), Buffer.from(b.sortKey)));
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
  const found = new Map((await batchGet<BookText>(db, ids.map((id) => keys.bookText(id)))).map((book) => [book.bookTextId, book]));
  return ids.flatMap((id) => found.get(id) ?? []);
}

export async function catalogue(db: Db, q: CatalogueQuery): Promise<JobPage> {
  const sources =
    q.view.kind === 'public'
      ? [partition(db, q, 'public')]
      : q.view.kind === 'all'
        ? [partition(db, q, 'public'), partition(db, q, 'private')]
        : [partition(db, q, 'public'), ownPrivate(db, q, q.view.ownerId)];
  const [lists, total] = await Promise.all([
    Promise.all(sources.map((s) => s.first(q.offset + q.limit))),
    isFiltered(q.filter) ? Promise.all(sources.map((s) => s.count())).then((n) => n.reduce((a, b) => a + b, 0)) : unfilteredTotal(db, q),
  ]);
  // The sources are disjoint (a book is in one visibility partition), so merging needs no dedupe.
  const page = sortEntries(lists.flat(), q.descending).slice(q.offset, q.offset + q.limit);
  return { total, items: await getBookTexts(db, page.map((e) => e.bookTextId)) };
}
