import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type UpdateCommandInput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { policies, retry } from '../../lib/retry.ts';
import type { JobEntry, JobLedger, PageEntry } from '../job/ledger.ts';

/**
 * The JobLedger in a DynamoDB table of the worker's own (never the service's table): partition key
 * `jobId`, sort key `item` (`job`, or `page#00001` per page done). Items expire (TTL `expiresAt`) a
 * month after the job started, long after any redelivery.
 */
export const ledgerKeys = { partitionKey: 'jobId', sortKey: 'item', ttl: 'expiresAt' } as const;
const ttlSeconds = 30 * 24 * 3600;
const jobItem = 'job';
const pageItem = (n: number) => `page#${String(n).padStart(5, '0')}`;
/** Two workers counting pages of one job at the same instant conflict; a few quick tries settle it. */
const pageContention = { ...policies.contention, attempts: 8 };
const isConflict = (error: unknown) =>
  error instanceof TransactionCanceledException && Boolean(error.CancellationReasons?.some((r) => r.Code === 'TransactionConflict'));

interface JobRow extends JobEntry {
  item: string;
  expiresAt: number;
}
interface PageRow extends PageEntry {
  jobId: string;
  item: string;
  expiresAt: number;
}

const entryOf = ({ item: _item, expiresAt: _expiresAt, ...entry }: JobRow): JobEntry => entry;
const pageOf = ({ jobId: _jobId, item: _item, expiresAt: _expiresAt, ...entry }: PageRow): PageEntry => entry;
const conditionFailed = (error: unknown) => (error as Error).name === 'ConditionalCheckFailedException';

export function dynamoLedger(client: DynamoDBDocumentClient, tableName: string): JobLedger {
  const getJob = async (jobId: string) =>
    (await client.send(new GetCommand({ TableName: tableName, Key: { jobId, item: jobItem }, ConsistentRead: true }))).Item as JobRow | undefined;

  /** An update of the job's item under its condition: whether the condition held. */
  const updateJobIf = async (jobId: string, update: Omit<UpdateCommandInput, 'TableName' | 'Key'>): Promise<boolean> => {
    try {
      await client.send(new UpdateCommand({ TableName: tableName, Key: { jobId, item: jobItem }, ...update }));
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  };

  return {
    async start(jobId, plan, at) {
      const row: JobRow = { jobId, item: jobItem, ...plan, startedAt: at, pagesDone: 0, finished: false, expiresAt: Math.floor(at / 1000) + ttlSeconds };
      try {
        await client.send(new PutCommand({ TableName: tableName, Item: row, ConditionExpression: 'attribute_not_exists(jobId)' }));
        return entryOf(row);
      } catch (error) {
        if (!conditionFailed(error)) throw error;
        return entryOf((await getJob(jobId))!);
      }
    },

    async job(jobId) {
      const row = await getJob(jobId);
      return row && entryOf(row);
    },

    async donePages(jobId, pageNumbers) {
      const done = new Set<number>();
      for (let i = 0; i < pageNumbers.length; i += 100) {
        let keys: Record<string, unknown>[] = pageNumbers.slice(i, i + 100).map((n) => ({ jobId, item: pageItem(n) }));
        // Keys left unprocessed are read again; still left after the last attempt, the call fails.
        const read = async () => {
          const out: BatchGetCommandOutput = await client.send(
            new BatchGetCommand({
              RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'pageNumber' } },
            }),
          );
          for (const row of out.Responses?.[tableName] ?? []) done.add(row.pageNumber as number);
          return (keys = out.UnprocessedKeys?.[tableName]?.Keys ?? []);
        };
        await retry(read, {
          ...policies.unprocessedItems,
          until: (left) => left.length === 0,
          gaveUp: `DynamoDB kept ledger keys unprocessed after ${policies.unprocessedItems.attempts} attempts`,
        });
      }
      return done;
    },

    async pages(jobId) {
      const pages: PageEntry[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const out = await client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'jobId = :jobId AND begins_with(#item, :page)',
            ExpressionAttributeNames: { '#item': 'item' },
            ExpressionAttributeValues: { ':jobId': jobId, ':page': 'page#' },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        pages.push(...((out.Items ?? []) as PageRow[]).map(pageOf));
        start = out.LastEvaluatedKey;
      } while (start);
      return pages; // sorted by the zero-padded sort key: page order
    },

    async markPageDone(jobId, page) {
      const job = await getJob(jobId);
      if (!job) throw new Error(`job ${jobId} is not in the ledger`);
      const row: PageRow = { ...page, jobId, item: pageItem(page.pageNumber), expiresAt: job.expiresAt };
      const counted = await retry(async () => {
        try {
          await client.send(
            new TransactWriteCommand({
              TransactItems: [
                { Put: { TableName: tableName, Item: row, ConditionExpression: 'attribute_not_exists(jobId)' } },
                {
                  Update: {
                    TableName: tableName,
                    Key: { jobId, item: jobItem },
                    UpdateExpression: 'ADD pagesDone :one, pagesOverLimit :over',
                    ConditionExpression: 'attribute_exists(jobId)',
                    ExpressionAttributeValues: { ':one': 1, ':over': page.overLimit ? 1 : 0 },
                  },
                },
              ],
            }),
          );
          return true;
        } catch (error) {
          // The page was counted before (a redelivery): nothing more to count.
          if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
          throw error;
        }
      }, { ...pageContention, retryable: isConflict });
      const after = (await getJob(jobId))!;
      return { counted, pagesDone: after.pagesDone, pagesOverLimit: after.pagesOverLimit ?? 0 };
    },

    async fail(jobId, failure) {
      await updateJobIf(jobId, {
        UpdateExpression: 'SET failure = :failure',
        ConditionExpression: 'attribute_exists(jobId) AND finished = :false AND attribute_not_exists(failure)',
        ExpressionAttributeValues: { ':failure': failure, ':false': false },
      });
    },

    claimFinish: (jobId, owner, now, leaseMs) =>
      updateJobIf(jobId, {
        UpdateExpression: 'SET #claim = :claim',
        ConditionExpression:
          'attribute_exists(jobId) AND finished = :false AND (attribute_not_exists(#claim) OR #claim.#owner = :owner OR #claim.claimedAt < :stale)',
        ExpressionAttributeNames: { '#claim': 'claim', '#owner': 'owner' },
        ExpressionAttributeValues: { ':claim': { owner, claimedAt: now }, ':false': false, ':owner': owner, ':stale': now - leaseMs },
      }),

    async markFinished(jobId) {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { jobId, item: jobItem },
          UpdateExpression: 'SET finished = :true',
          ConditionExpression: 'attribute_exists(jobId)',
          ExpressionAttributeValues: { ':true': true },
        }),
      );
    },
  };
}
