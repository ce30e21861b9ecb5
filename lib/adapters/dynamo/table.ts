import { paginateQuery, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/** The table a store works on. Every item also carries `entity`, the record type. */
export interface Db {
  client: DynamoDBDocumentClient;
  tableName: string;
}

const keyAttributes = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'entity', 'ttl']);

/** The record without its key and bookkeeping attributes. */
export function record<T>(item: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !keyAttributes.has(name))) as T;
}

/** Which actions of a canceled transaction failed their condition (by index). */
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

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Before retry `attempt` of a contended transaction: a random wait that doubles per attempt, so racers spread out. */
export const contentionPause = (attempt: number) => pause(Math.random() * 20 * 2 ** Math.min(attempt, 6));

/** Every item a query matches, through the SDK's paginator, as records. */
export async function queryAll<T>(db: Db, input: Omit<QueryCommandInput, 'TableName'>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of paginateQuery({ client: db.client }, { TableName: db.tableName, ...input })) {
    items.push(...(page.Items ?? []).map((item) => record<T>(item)));
  }
  return items;
}
