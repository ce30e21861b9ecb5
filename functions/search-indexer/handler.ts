import middy from '@middy/core';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { dynamoPageStore } from '../../lib/adapters/dynamo/book-text-pages.ts';
import { dynamoBookTextStore } from '../../lib/adapters/dynamo/book-texts.ts';
import { decodeStreamRecords } from '../../lib/adapters/dynamo/stream-changes.ts';
import { once, onFirstUse } from '../../lib/lazy.ts';
import { logger } from '../../lib/log.ts';
import type { SearchEngine } from '../../lib/search/engine.ts';
import { indexChanges, type IndexingDeps, type IndexingReport } from '../../lib/search/indexing.ts';
import { searchEngine } from '../_shared/adapters/search.ts';
import { deps as coreDeps } from '../_shared/deps.ts';
import { count, metricNames, observed } from '../_shared/observability.ts';

/**
 * `search-indexer` (issue 17): keeps the search index in step with the table. On AWS the table's stream
 * triggers it with the BookText and BookTextPage records only (infra/search.ts), up to 100 at a time;
 * locally DynamoDB Local's stream does, through the same handler (infra/local/stream-poller.ts).
 * Records are decoded into changes (lib/adapters/dynamo/stream-changes.ts) and applied by reading the
 * records as they are now (lib/search/indexing.ts).
 */
export const indexerDeps = once(
  (): IndexingDeps => {
    const core = coreDeps();
    return { engine: onFirstUse<SearchEngine>(searchEngine), bookTexts: dynamoBookTextStore(core.db), pages: dynamoPageStore(core.db) };
  },
);

/**
 * An error as the logs may show it: its name, and its message unless that may quote a page (the
 * engines' refusals name the term they refuse).
 */
const loggable = (error: unknown) => {
  const { name, message } = error instanceof Error ? error : { name: typeof error, message: '' };
  return { name, message: error instanceof RangeError ? 'the engine refused the pages' : message.slice(0, 300) };
};

/**
 * One batch over given deps: the Lambda handler's work, which the local poller and tests run too.
 * The batch is applied as one part (its pages in one bulk write); when that fails, each record is
 * applied alone, in order, to find the one that fails:
 * - none alone (the failure was of the moment): the batch is done;
 * - a record after the first: the ones before it are done, and it is reported (partial batch
 *   response): Lambda splits the batch there and retries from it;
 * - the first, in a batch of more: the handler throws, so the trigger halves the batch
 *   (`bisectBatchOnError`) until the failing record is alone, and only it reaches the dead-letter
 *   queue after its retries, not the records that came with it;
 * - the only record: it is reported, retried, then given up on.
 * Applying a change twice is harmless.
 */
export async function indexStreamBatch(deps: IndexingDeps, event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse & { report?: IndexingReport }> {
  const records = event.Records ?? [];
  if (records.length === 0) return { batchItemFailures: [] };
  const changes = decodeStreamRecords(records);
  try {
    const report = await indexChanges(deps, changes);
    logger.debug('Search index updated', { records: records.length, changes: changes.length, ...report });
    return { batchItemFailures: [], report };
  } catch (error) {
    logger.warn('Search indexing of a batch failed; applying its records one at a time', { records: records.length, error: loggable(error) });
  }
  for (const [i, record] of records.entries()) {
    try {
      await indexChanges(deps, decodeStreamRecords([record]));
    } catch (error) {
      const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
      logger.error('Search indexing failed', { records: records.length, failingRecord: i, sequenceNumber, error: loggable(error) });
      if (i === 0 && records.length > 1) throw new Error(`Search indexing failed at the batch's first record (${sequenceNumber}): halve the batch`);
      return { batchItemFailures: [{ itemIdentifier: sequenceNumber }] };
    }
  }
  return { batchItemFailures: [] };
}

export const handler = middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
  .use(observed('search-indexer'))
  .handler(async (event) => {
    const { batchItemFailures, report } = await indexStreamBatch(indexerDeps(), event).catch((error: unknown) => {
      count(metricNames.searchBatchesFailed, 1);
      throw error;
    });
    count(metricNames.searchPagesIndexed, report?.pagesIndexed ?? 0);
    count(metricNames.searchBatchesFailed, batchItemFailures.length ? 1 : 0);
    return { batchItemFailures };
  });
