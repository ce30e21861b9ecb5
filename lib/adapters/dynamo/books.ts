import { BatchWriteCommand, GetCommand, PutCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { Book, BookStore, Line } from '../../books/book.ts';
import { keys } from './keys.ts';
import { pause, queryAll, record, type Db } from './table.ts';

/** Batches in flight at once: a book of thousands of lines is written in seconds, not minutes. */
const batchesInFlight = 4;

/** BatchWriteItem takes 25 puts; unprocessed ones are retried with backoff until none remain. */
export async function batchPut(db: Db, items: Record<string, unknown>[]): Promise<void> {
  const writeBatch = async (batch: Record<string, unknown>[]) => {
    let pending = batch.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('DynamoDB kept items unprocessed after retries');
      if (attempt > 0) await pause(Math.min(2000, 25 * 2 ** attempt));
      const out: BatchWriteCommandOutput = await db.client.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: pending } }));
      pending = (out.UnprocessedItems?.[db.tableName] ?? []) as typeof pending;
    }
  };
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) => items.slice(i * 25, i * 25 + 25));
  for (let i = 0; i < batches.length; i += batchesInFlight) await Promise.all(batches.slice(i, i + batchesInFlight).map(writeBatch));
}

export function dynamoBookStore(db: Db): BookStore {
  const TableName = db.tableName;
  return {
    async create(book, lines) {
      await batchPut(
        db,
        lines.map((line) => ({ ...keys.line(book.bookId, line.lineId), entity: 'Line', ...line })),
      );
      await db.client.send(
        new PutCommand({
          TableName,
          Item: { ...keys.book(book.bookId), entity: 'Book', ...book },
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

    lines: (bookId) =>
      queryAll<Line>(db, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.book(bookId).pk, ':prefix': keys.linePrefix },
      }),
  };
}
