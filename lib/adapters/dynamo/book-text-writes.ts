import { GetCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { BookText, Visibility } from '../../ocr/book-text.ts';
import { policies, retry } from '../../retry.ts';
import { keys } from './keys.ts';
import { isConflictOnly, record, type Db } from './table.ts';
import type { Update } from './update-expression.ts';

/** What the BookText's writers share (book-texts.ts, ocr-jobs.ts): reads, conditional updates, the counters. */

export /**
 * The catalogue's counters moved by a number of BookTexts per visibility: each BookText counts in the
 * table-wide count of its visibility, a private one also in its owner's (the totals of GET /ocr/books).
 * One update per counter item, as a transaction touches an item once.
 */
function countMoves(TableName: string, userId: string, moves: Partial<Record<Visibility, number>>) {
  const entries = Object.entries(moves).filter(([, delta]) => delta !== 0);
  const update = (Key: Record<string, unknown>, adds: [string, number][]) => ({
    Update: {
      TableName,
      Key,
      UpdateExpression: `ADD ${adds.map((_, i) => `#n${i} :d${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(adds.map(([name], i) => [`#n${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(adds.map(([, delta], i) => [`:d${i}`, delta])),
    },
  });
  return [
    ...(entries.length ? [update(keys.catalogueCounts, entries)] : []),
    ...(moves.private ? [update(keys.ownerCatalogueCounts(userId), [['private', moves.private]])] : []),
  ];
}

export /** Sends a transaction again while it only collides with others in flight (the catalogue counters are shared). */
async function transact(db: Db, input: TransactWriteCommandInput): Promise<void> {
  await retry(() => db.client.send(new TransactWriteCommand(input)), { ...policies.contention, retryable: isConflictOnly });
}

/** Reads and conditional updates of one table's BookTexts. */
export function bookTextRecords(db: Db) {
  const TableName = db.tableName;

  const get = async (bookTextId: string) => {
    const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.bookText(bookTextId), ConsistentRead: true }));
    return Item ? record<BookText>(Item) : undefined;
  };

  /**
   * Updates an existing BookText, raising its revision; the condition keeps an update from creating
   * a stray item.
   */
  const updateInput = (bookTextId: string, u: Update, condition?: string) => {
    u.add(['rev'], 1);
    return {
      TableName,
      Key: keys.bookText(bookTextId),
      UpdateExpression: u.expression,
      ConditionExpression: condition ? `attribute_exists(pk) AND (${condition})` : 'attribute_exists(pk)',
      ExpressionAttributeNames: u.names,
      ExpressionAttributeValues: u.values,
    };
  };
  const update = async (bookTextId: string, u: Update, condition?: string) => {
    await db.client.send(new UpdateCommand(updateInput(bookTextId, u, condition)));
  };

  /**
   * Runs `write` against the record as last read; when its condition fails because another writer
   * changed what it depends on, reads again and retries (a bounded number of times).
   */
  const withCurrent = <T>(bookText: BookText, write: (current: BookText) => Promise<T>, isStale: (error: unknown) => boolean): Promise<T> =>
    retry(
      async (attempt) => {
        const current = attempt === 1 ? bookText : await get(bookText.bookTextId);
        if (!current) throw new Error(`BookText ${bookText.bookTextId} is gone`);
        return write(current);
      },
      { ...policies.contention, attempts: 9, retryable: isStale },
    );

  /** `updateInput`: the same update as an action of a transaction. */
  return { get, update, updateInput, withCurrent };
}
