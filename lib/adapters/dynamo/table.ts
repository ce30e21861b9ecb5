import { BatchGetCommand, paginateQuery, QueryCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { policies, retry } from '../../retry.ts';
import { keyAttributeNames, tableSchema } from './schema.ts';

/** The table a store works on. Every item also carries `entity`, the record type. */
export interface Db {
  client: DynamoDBDocumentClient;
  tableName: string;
}

const keyAttributes = new Set([...keyAttributeNames(), 'entity', tableSchema.timeToLiveAttribute]);

/** The record without its key and bookkeeping attributes. */
export function record<T>(item: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !keyAttributes.has(name))) as T;
}

/** Which actions of a canceled transaction failed their condition (by index). */
/**
 * DynamoDB refuses a partition key over 2048 bytes or a sort key over 1024 (a ValidationException):
 * no item can have such a key, so a lookup by a client's oversized id finds nothing.
 */
export const keyFits = (key: { pk: string; sk: string }): boolean => Buffer.byteLength(key.pk) <= 2048 && Buffer.byteLength(key.sk) <= 1024;

export function failedConditions(error: unknown): number[] | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  return (error.CancellationReasons ?? []).flatMap((reason, i) => (reason.Code === 'ConditionalCheckFailed' ? [i] : []));
}

/** Runs a conditional write: true when it was made, false when its condition did not hold. */
export async function ifConditionHolds(send: () => Promise<unknown>): Promise<boolean> {
  try {
    await send();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** True for a canceled transaction whose cancellation is a write conflict or a failed condition. */
export const isContention = (error: unknown): boolean =>
  error instanceof TransactionCanceledException &&
  (error.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'TransactionConflict');

/** True for a canceled transaction that only collided with another one in flight: safe to send again. */
export const isConflictOnly = (error: unknown): boolean =>
  error instanceof TransactionCanceledException &&
  (error.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict') &&
  !(error.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed');

/** A fixed wait (polling a table's state); retries of a call wait by lib/retry.ts. */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The oldest `limit` records of a sparse gsi2 list (partition `list`, sort key `<timestamp>#<id>`)
 * stamped before `before`: the sweepers' work lists, read by key, never by Scan.
 */
export async function oldestBefore<T>(db: Db, list: string, before: string, limit: number): Promise<T[]> {
  const out = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :before',
      ExpressionAttributeValues: { ':pk': list, ':before': before },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((item) => record<T>(item));
}

/**
 * The first `limit` records of a sparse index's partition `list`, oldest first (its sort key is a
 * timestamp): the workers' lists (pending invoices, owed usage), one bounded page read by key.
 */
export async function oldestIn<T>(db: Db, indexName: string, list: string, limit: number): Promise<T[]> {
  const index = tableSchema.indexes.find((i) => i.name === indexName)!;
  const { Items = [] } = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      IndexName: indexName,
      KeyConditionExpression: '#ipk = :pk',
      ExpressionAttributeNames: { '#ipk': index.partitionKey },
      ExpressionAttributeValues: { ':pk': list },
      Limit: limit,
    }),
  );
  return Items.map((item) => record<T>(item));
}

/** Every item a query matches, through the SDK's paginator, as records. */
export async function queryAll<T>(db: Db, input: Omit<QueryCommandInput, 'TableName'>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of paginateQuery({ client: db.client }, { TableName: db.tableName, ...input })) {
    items.push(...(page.Items ?? []).map((item) => record<T>(item)));
  }
  return items;
}

/** The items of these keys (missing ones are left out), as records; one round trip per 100 keys. */
export async function batchGet<T>(db: Db, itemKeys: readonly Record<string, unknown>[], ConsistentRead = false): Promise<T[]> {
  const found: T[] = [];
  for (let i = 0; i < itemKeys.length; i += 100) {
    await untilProcessed(itemKeys.slice(i, i + 100), async (pending) => {
      const out: BatchGetCommandOutput = await db.client.send(new BatchGetCommand({ RequestItems: { [db.tableName]: { Keys: pending, ...(ConsistentRead && { ConsistentRead }) } } }));
      found.push(...(out.Responses?.[db.tableName] ?? []).map((item) => record<T>(item)));
      return out.UnprocessedKeys?.[db.tableName]?.Keys ?? [];
    });
  }
  return found;
}

/**
 * Sends a batch, then what DynamoDB left unprocessed, until nothing is left (policies.unprocessedItems);
 * items still left after the last attempt fail the call, never pass as a partial answer.
 */
export async function untilProcessed<I>(items: I[], send: (pending: I[]) => Promise<I[]>): Promise<void> {
  let pending = items;
  await retry(async () => (pending = await send(pending)), {
    ...policies.unprocessedItems,
    until: (left) => left.length === 0,
    gaveUp: `DynamoDB kept items unprocessed after ${policies.unprocessedItems.attempts} attempts`,
  });
}

/**
 * How many items a query matches, one call per 1 MB read; with `max`, reading at most `max` items
 * (the answer is then at most `max`), so a count costs a bounded read whatever the list's size.
 */
export async function countAll(db: Db, input: Omit<QueryCommandInput, 'TableName' | 'Select'>, max = Infinity): Promise<number> {
  let total = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await db.client.send(
      new QueryCommand({ TableName: db.tableName, ...input, Select: 'COUNT', ExclusiveStartKey, ...(max < Infinity ? { Limit: max - total } : {}) }),
    );
    total += out.Count ?? 0;
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey && total < max);
  return total;
}
