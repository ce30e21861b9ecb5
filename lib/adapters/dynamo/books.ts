import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type BatchWriteCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import type { Book, BookImport, BookStore, Line } from '../../books/book.ts';
import { policies, retry } from '../../retry.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { failedConditions, ifConditionHolds, oldestBefore, queryAll, record, untilProcessed, type Db } from './table.ts';

/** Batches in flight at once: a book of thousands of lines is written in seconds, not minutes. */
const batchesInFlight = 4;

/** BatchWriteItem takes 25 puts; unprocessed ones are sent again (policies.unprocessedItems). */
export const batchPut = (db: Db, items: Record<string, unknown>[]): Promise<void> => batchWrite(db, items.map((Item) => ({ PutRequest: { Item } })));

/** Deletes by key, 25 to a BatchWriteItem, as batchPut writes. */
export const batchDelete = (db: Db, itemKeys: Record<string, unknown>[]): Promise<void> => batchWrite(db, itemKeys.map((Key) => ({ DeleteRequest: { Key } })));

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

async function batchWrite(db: Db, requests: WriteRequest[]): Promise<void> {
  const writeBatch = (batch: WriteRequest[]) =>
    untilProcessed(batch, async (pending) => {
      const out: BatchWriteCommandOutput = await db.client.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: pending } }));
      return (out.UnprocessedItems?.[db.tableName] ?? []) as WriteRequest[];
    });
  const batches = Array.from({ length: Math.ceil(requests.length / 25) }, (_, i) => requests.slice(i * 25, i * 25 + 25));
  // Every batch of a round settles before an error is thrown: no write is left in flight behind it.
  for (let i = 0; i < batches.length; i += batchesInFlight) {
    const failed = (await Promise.allSettled(batches.slice(i, i + batchesInFlight).map(writeBatch))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

export function dynamoBookStore(db: Db): BookStore {
  const TableName = db.tableName;
  return {
    async create(book, lines) {
      await batchPut(
        db,
        lines.map((line) => entities.line.item(line)),
      );
      await db.client.send(
        new PutCommand({
          TableName,
          Item: entities.book.item(book),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    },

    async get(bookId) {
      const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.book(bookId) }));
      return Item ? record<Book>(Item) : undefined;
    },

    async line(bookId, lineId) {
      const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.line(bookId, lineId) }));
      return Item ? record<Line>(Item) : undefined;
    },

    async beginImport(importKey, at, bookIdOf) {
      const Key = keys.bookImport(importKey);
      // Read, then write only if the record is still as read: a racing writer makes this try again.
      const start = async () => {
        const { Item } = await db.client.send(new GetCommand({ TableName, Key, ConsistentRead: true }));
        const current = Item ? record<BookImport>(Item) : undefined;
        if (current?.state === 'done') return current;
        // A new import, a resumed one (same generation, same ids), or the next generation after a sweep.
        const generation = current?.state === 'abandoned' ? current.generation + 1 : (current?.generation ?? 0);
        const next: BookImport = { importKey, bookId: bookIdOf(generation), generation, state: 'importing', startedAt: at };
        const written = await ifConditionHolds(() =>
          db.client.send(
            new PutCommand({
              TableName,
              Item: entities.bookImport.item(next),
              ...(current
                ? { ConditionExpression: '#state = :state AND generation = :generation', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':state': current.state, ':generation': current.generation } }
                : { ConditionExpression: 'attribute_not_exists(pk)' }),
            }),
          ),
        );
        return written ? next : undefined;
      };
      return retry(start, { ...policies.contention, attempts: 10, until: (started) => started !== undefined, gaveUp: 'The import record kept changing' });
    },

    async finishImport(started, book, lines) {
      await batchPut(db, lines.map((line) => entities.line.item(line)));
      try {
        await db.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName, Item: entities.book.item(book), ConditionExpression: 'attribute_not_exists(pk)' } },
              {
                Update: {
                  TableName,
                  Key: keys.bookImport(started.importKey),
                  UpdateExpression: 'SET #state = :done REMOVE gsi2pk, gsi2sk',
                  ConditionExpression: '#state = :importing AND generation = :generation',
                  ExpressionAttributeNames: { '#state': 'state' },
                  ExpressionAttributeValues: { ':done': 'done', ':importing': 'importing', ':generation': started.generation },
                },
              },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (failedConditions(error)?.includes(0)) return false;
        throw error;
      }
    },

    staleImports: (before, limit) => oldestBefore<BookImport>(db, keys.openImportsIndex, before, limit),

    async removeAbandoned(stale) {
      const Key = keys.bookImport(stale.importKey);
      const names = { '#state': 'state' };
      const abandoned = await ifConditionHolds(() =>
        db.client.send(
          new UpdateCommand({
            TableName,
            Key,
            UpdateExpression: 'SET #state = :abandoned',
            // Not if it was resumed (a newer start) or finished since it was listed.
            ConditionExpression: 'generation = :generation AND ((#state = :importing AND startedAt = :startedAt) OR #state = :abandoned)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':abandoned': 'abandoned', ':importing': 'importing', ':generation': stale.generation, ':startedAt': stale.startedAt },
          }),
        ),
      );
      if (!abandoned) return false;
      const lineKeys = await queryAll<Record<string, unknown>>(db, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.book(stale.bookId).pk, ':prefix': keys.linePrefix },
        ProjectionExpression: 'lineId',
      });
      await batchDelete(db, lineKeys.map((line) => keys.line(stale.bookId, String(line.lineId))));
      await ifConditionHolds(() =>
        db.client.send(
          new DeleteCommand({
            TableName,
            Key,
            ConditionExpression: '#state = :abandoned AND generation = :generation',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':abandoned': 'abandoned', ':generation': stale.generation },
          }),
        ),
      );
      return true;
    },

    lines: (bookId) =>
      queryAll<Line>(db, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.book(bookId).pk, ':prefix': keys.linePrefix },
      }),
  };
}
