import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type AttributeValue,
  type Shard,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { passesIndexerFilter } from '../../lib/adapters/dynamo/stream-changes.ts';
import { searchIndexerTrigger, sizingOf } from '../functions.ts';
import { lambdaContext } from './server.ts';
import { stoppable } from './stoppable.ts';

/**
 * `npm start`'s stand-in for the search indexer's trigger on the table's stream (infra/search.ts): reads
 * DynamoDB Local's stream of the table and hands its records, shaped as Lambda's `DynamoDBStreamEvent`
 * and filtered on `entity` as the trigger's filter does, to the same `search-indexer` handler, up to
 * 100 records at a time, one shard at a time, a shard after its parent (so a page's changes stay in
 * order, as on AWS).
 *
 * - Position: per shard, the last record handled, kept in a checkpoint file (DATA_DIR) after every
 *   batch, so a restart goes on from there: TRIM_HORIZON the first time, then AFTER_SEQUENCE_NUMBER.
 *   Applying a record twice is harmless (the indexer reads the records as they are now), so a crash
 *   between a batch and its checkpoint costs only a replay.
 * - Shards: DynamoDB Local closes a shard and opens its child from time to time; a shard read to its
 *   end is marked done and its children are read next. A checkpoint past the stream's 24 hours (trimmed)
 *   starts the shard again from its oldest record; a checkpoint of another stream (the table made
 *   again) is dropped.
 * - Failures: the handler's batchItemFailures name where to go on from, as Lambda does: the batch is
 *   tried again from that record, with backoff. After `retryAttempts` failures the batch is narrowed to
 *   one record at a time (the trigger bisects a failing batch), and a record that still fails
 *   `retryAttempts` times alone is given up on with a line on stderr (on AWS it would go to the
 *   dead-letter queue): its book is indexed again by its next write or by scripts/reindex.ts.
 */

export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

export interface StreamReaderOptions {
  tableName: string;
  /** DynamoDB Local's endpoint, which answers the stream's API too. Default: AWS_ENDPOINT_URL_DYNAMODB. */
  endpoint?: string;
  /** Default: the `search-indexer` function's handler. */
  handler?: StreamHandler;
  /** Where the positions are kept across restarts; none: in memory only. */
  checkpointFile?: string;
  /** Records per invocation (default the trigger's, 100). */
  batchSize?: number;
  /** Diagnostics (default stderr). */
  log?: (line: string) => void;
  /** How long a description of the stream's shards is used before asking again (default 0: every pass). */
  describeEveryMs?: number;
}

interface ShardPosition {
  /** Go on after this sequence number; absent (and no `at`): from the shard's oldest record. */
  after?: string;
  /** Go on at this sequence number (a batch that failed from there). */
  at?: string;
  /** Read to its end: the shard is closed and nothing of it is left. */
  done?: boolean;
}

interface Checkpoint {
  streamArn: string;
  shards: Record<string, ShardPosition>;
}

/** What one pass over the stream did. */
export interface DrainReport {
  /** Records read from the stream (of every entity). */
  records: number;
  /** Records handed to the handler (those the trigger's filter passes). */
  delivered: number;
  /** Handler invocations. */
  batches: number;
}

/** A batch the handler reported failed; the shard's position stays at the record named. */
export class StreamBatchFailed extends Error {
  override name = 'StreamBatchFailed';
  constructor(
    readonly shardId: string,
    readonly sequenceNumber: string,
    readonly attempts: number,
  ) {
    super(`the search indexer failed a batch of shard ${shardId} from record ${sequenceNumber} (attempt ${attempts})`);
  }
}

/** Sequence numbers are decimal strings of up to 40 digits: compared as such. */
const compareSeq = (a: string, b: string): number => {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** An attribute value as Lambda passes it: binaries base64-encoded (the SDK gives bytes). */
function lambdaValue(value: AttributeValue): unknown {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((b) => Buffer.from(b).toString('base64')) };
  if (value.M !== undefined) return { M: lambdaImage(value.M) };
  if (value.L !== undefined) return { L: value.L.map(lambdaValue) };
  return value;
}

function lambdaImage(image: Record<string, AttributeValue> | undefined) {
  if (!image) return undefined;
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, lambdaValue(value)])) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];
}

/** A stream record as Lambda's event source mapping hands it to the function. */
export function lambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const stream = record.dynamodb ?? {};
  const created = stream.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: created ? Math.floor(new Date(created).getTime() / 1000) : undefined,
      Keys: lambdaImage(stream.Keys),
      NewImage: lambdaImage(stream.NewImage),
      OldImage: lambdaImage(stream.OldImage),
      SequenceNumber: stream.SequenceNumber,
      SizeBytes: stream.SizeBytes,
      StreamViewType: stream.StreamViewType,
    },
    ...(record.userIdentity ? { userIdentity: record.userIdentity } : {}),
  };
}

const isError = (error: unknown, name: string) => (error as Error | undefined)?.name === name;

/**
 * Reads the table's stream and hands it to the handler; `drain()` processes everything available once.
 * One pass at a time: callers await each drain before the next.
 */
export function streamReader(options: StreamReaderOptions) {
  const config = {
    endpoint: options.endpoint ?? process.env.AWS_ENDPOINT_URL_DYNAMODB,
    region: process.env.AWS_REGION ?? 'us-east-1',
  };
  const dynamodb = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  const batchSize = options.batchSize ?? searchIndexerTrigger.batchSize;
  const log = options.log ?? ((line: string) => process.stderr.write(`search-indexer: ${line}\n`));
  const timeoutMs = sizingOf('search-indexer').timeoutSeconds * 1000;
  let handler = options.handler;
  /** The current drain's own filter, if any. */
  let accept: ((record: DynamoDBRecord) => boolean) | undefined;
  let checkpoint: Checkpoint | undefined;
  /** Live iterators, each at its shard's position. */
  const iterators = new Map<string, string>();
  /** A shard's failing batch: where it failed, how often, and up to where it is read one record at a time. */
  const failing = new Map<string, { at: string; attempts: number; narrowUntil?: string }>();

  const loadCheckpoint = (): Checkpoint | undefined => {
    const file = options.checkpointFile;
    if (!file || !existsSync(file)) return undefined;
    try {
      const read = JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
      if (typeof read?.streamArn === 'string' && read.shards && typeof read.shards === 'object') return read;
    } catch {
      // A damaged checkpoint is dropped: the stream is read again from its oldest records (harmless).
    }
    log(`ignoring the unreadable checkpoint ${file}: reading the stream from its oldest records`);
    return undefined;
  };

  const saveCheckpoint = () => {
    const file = options.checkpointFile;
    if (!file || !checkpoint) return;
    writeFileSync(`${file}.tmp`, `${JSON.stringify(checkpoint)}\n`);
    renameSync(`${file}.tmp`, file);
  };

  async function describeShards(streamArn: string): Promise<Shard[]> {
    const shards: Shard[] = [];
    let ExclusiveStartShardId: string | undefined;
    do {
      const out = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId }));
      shards.push(...(out.StreamDescription?.Shards ?? []));
      ExclusiveStartShardId = out.StreamDescription?.LastEvaluatedShardId;
    } while (ExclusiveStartShardId);
    return shards;
  }

  async function iteratorFor(streamArn: string, shardId: string, position: ShardPosition): Promise<string | undefined> {
    const ask = (ShardIteratorType: ShardIteratorType, SequenceNumber?: string) =>
      streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType, SequenceNumber }));
    try {
      const out = position.at
        ? await ask('AT_SEQUENCE_NUMBER', position.at)
        : position.after
          ? await ask('AFTER_SEQUENCE_NUMBER', position.after)
          : await ask('TRIM_HORIZON');
      return out.ShardIterator;
    } catch (error) {
      if (!isError(error, 'TrimmedDataAccessException')) throw error;
      log(`shard ${shardId}: its checkpoint is older than the stream keeps (24 h); reading from its oldest record`);
      delete position.after;
      delete position.at;
      return (await ask('TRIM_HORIZON')).ShardIterator;
    }
  }

  /** Hands records of one GetRecords answer to the handler in batches; returns how many were delivered. */
  async function deliver(streamArn: string, shardId: string, position: ShardPosition, records: _Record[], report: DrainReport) {
    handler ??= (await import('../../functions/search-indexer/handler.ts')).handler as StreamHandler;
    // As the trigger: records are filtered first, then batched.
    const shaped = records.map((r) => lambdaRecord(r, streamArn));
    const passes = shaped.map((r) => passesIndexerFilter(r) && (accept?.(r) ?? true));
    let i = 0;
    while (i < records.length) {
      const failure = failing.get(shardId);
      const narrow = failure?.narrowUntil !== undefined && compareSeq(records[i]!.dynamodb!.SequenceNumber!, failure.narrowUntil) <= 0;
      const size = narrow ? 1 : batchSize;
      // This step: records i..end (exclusive), up to `size` of them passing the filters and those passed over between.
      const event: DynamoDBStreamEvent = { Records: [] };
      let end = i;
      while (end < records.length && event.Records.length < size) {
        if (passes[end]) event.Records.push(shaped[end]!);
        end++;
      }
      const part = records.slice(i, end);
      if (event.Records.length) {
        const context = lambdaContext('search-indexer', randomUUID(), Date.now() + timeoutMs);
        // A handler that throws fails its whole batch, as on Lambda.
        const answer = await handler(event, context).catch((error: unknown) => {
          log(`the handler threw: ${(error as Error)?.message}`);
          return { batchItemFailures: [{ itemIdentifier: '' }] };
        });
        report.batches++;
        report.delivered += event.Records.length;
        const failed = (answer?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
        if (failed.length) {
          const sequences = event.Records.map((r) => r.dynamodb!.SequenceNumber!);
          // As Lambda: from the lowest record named; a name that is no record of the batch fails it whole.
          const named = failed.filter((id) => sequences.includes(id)).sort(compareSeq)[0];
          const from = named ?? sequences[0]!;
          const attempts = failure?.at === from ? failure.attempts + 1 : 1;
          const last = part.at(-1)!.dynamodb!.SequenceNumber!;
          const narrowUntil = failure?.narrowUntil ?? (attempts >= searchIndexerTrigger.retryAttempts ? last : undefined);
          if (narrow && attempts >= searchIndexerTrigger.retryAttempts) {
            log(`gave up on record ${from} of shard ${shardId} after ${attempts} attempts alone (on AWS: the dead-letter queue); its book is indexed again by its next write or scripts/reindex.ts`);
            failing.set(shardId, { at: from, attempts: 0, narrowUntil });
            position.after = from;
            delete position.at;
            iterators.delete(shardId);
            saveCheckpoint();
            return false;
          }
          failing.set(shardId, { at: from, attempts, narrowUntil });
          position.at = from;
          delete position.after;
          iterators.delete(shardId);
          saveCheckpoint();
          throw new StreamBatchFailed(shardId, from, attempts);
        }
      }
      i += part.length;
      position.after = part.at(-1)!.dynamodb!.SequenceNumber!;
      delete position.at;
      // Past the failing part: batches of the usual size again.
      if (failure && (failure.narrowUntil === undefined || compareSeq(position.after, failure.narrowUntil) >= 0)) failing.delete(shardId);
      saveCheckpoint();
    }
    return true;
  }

  /** Reads one shard from its position to the newest record (or its end); true when the shard is done. */
  async function readShard(streamArn: string, shardId: string, report: DrainReport): Promise<boolean> {
    const position = (checkpoint!.shards[shardId] ??= {});
    const finished = () => {
      iterators.delete(shardId);
      position.done = true;
      delete position.at;
      saveCheckpoint();
      return true;
    };
    for (;;) {
      const iterator = iterators.get(shardId) ?? (await iteratorFor(streamArn, shardId, position));
      if (!iterator) return finished();
      let out;
      try {
        out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      } catch (error) {
        iterators.delete(shardId);
        // An iterator lasts 15 minutes: ask for another at the position. Records trimmed meanwhile: from the oldest left.
        if (isError(error, 'ExpiredIteratorException')) continue;
        if (!isError(error, 'TrimmedDataAccessException')) throw error;
        log(`shard ${shardId}: records past its checkpoint were trimmed (24 h); reading from its oldest record`);
        delete position.after;
        delete position.at;
        continue;
      }
      const records = out.Records ?? [];
      report.records += records.length;
      // A record given up on: read on after it, with a new iterator.
      if (records.length && !(await deliver(streamArn, shardId, position, records, report))) continue;
      if (!out.NextShardIterator) return finished();
      iterators.set(shardId, out.NextShardIterator);
      if (records.length === 0) return false;
    }
  }

  /**
   * One pass over everything the stream holds now. `only` (tests) delivers only the records it accepts:
   * the others are passed over for good, as records the trigger's filter drops.
   */
  /** The stream and its shards as last described, and when. */
  let described: { at: number; streamArn: string; shards: Shard[] } | undefined;

  async function layout(): Promise<{ streamArn: string; shards: Shard[] }> {
    if (described && Date.now() - described.at < (options.describeEveryMs ?? 0)) return described;
    const table = await dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }));
    const streamArn = table.Table?.LatestStreamArn;
    if (!streamArn || !table.Table?.StreamSpecification?.StreamEnabled) throw new Error(`table ${options.tableName} has no stream (lib/adapters/dynamo/ensure-table.ts enables it)`);
    checkpoint ??= loadCheckpoint();
    if (checkpoint?.streamArn !== streamArn) {
      if (checkpoint) log(`the table's stream is new (${streamArn}): reading it from its oldest records`);
      checkpoint = { streamArn, shards: {} };
      iterators.clear();
      failing.clear();
      saveCheckpoint(); // so a restart knows this stream was read, even while it holds nothing
    }
    described = { at: Date.now(), streamArn, shards: await describeShards(streamArn) };
    return described;
  }

  /**
   * One pass over everything the stream holds now. `only` (tests) delivers only the records it accepts:
   * the others are passed over for good, as records the trigger's filter drops.
   */
  async function drain(pass: { only?: (record: DynamoDBRecord) => boolean } = {}): Promise<DrainReport> {
    accept = pass.only;
    const report: DrainReport = { records: 0, delivered: 0, batches: 0 };
    try {
      // A shard read to its end may have children the last description did not list: describe again.
      for (let ended = true; ended; ) {
        ended = false;
        const { streamArn, shards } = await layout();
        const known = new Set(shards.map((s) => s.ShardId!));
        // Shards the stream no longer lists (trimmed after 24 hours) are forgotten.
        for (const id of Object.keys(checkpoint!.shards)) if (!known.has(id)) delete checkpoint!.shards[id];
        const done = (id: string | undefined) => id === undefined || !known.has(id) || checkpoint!.shards[id]?.done === true;
        for (let progressed = true; progressed; ) {
          progressed = false;
          for (const shard of shards) {
            if (done(shard.ShardId) || !done(shard.ParentShardId)) continue;
            if (await readShard(streamArn, shard.ShardId!, report)) progressed = ended = true;
          }
        }
        if (ended) described = undefined;
      }
    } catch (error) {
      described = undefined;
      throw error;
    }
    return report;
  }

  return {
    drain,
    close() {
      dynamodb.destroy();
      streams.destroy();
    },
  };
}

export interface StreamPollerOptions extends StreamReaderOptions {
  /** The wait between two passes once caught up (default 250 ms). */
  intervalMs?: number;
  /** Runs before the first pass, again after a failure until it succeeds (npm start: indexing every book into a new index). */
  before?: () => Promise<void>;
}

/**
 * Polls the stream every `intervalMs` (about 250 ms: a page is searchable well within a second of its
 * write, where on AWS the trigger's batching window alone is 1 s), backing off after a failure (up to
 * 10 s), until stopped.
 */
export function startStreamPoller(options: StreamPollerOptions): { stop(): Promise<void> } {
  // Between two descriptions, a pass is one GetRecords per open shard; a shard read to its end is described at once.
  const reader = streamReader({ describeEveryMs: 5_000, ...options });
  const log = options.log ?? ((line: string) => process.stderr.write(`search-indexer: ${line}\n`));
  const intervalMs = options.intervalMs ?? 250;
  return stoppable(async ({ running, sleep }) => {
    let failures = 0;
    // The first step, until it succeeds: the stream is read only once it has.
    while (running() && options.before) {
      try {
        await options.before();
        break;
      } catch (error) {
        failures++;
        log(`${(error as Error).message}`);
        await sleep(Math.min(1000 * 2 ** (failures - 1), 30_000));
      }
    }
    failures = 0;
    while (running()) {
      try {
        await reader.drain();
        failures = 0;
      } catch (error) {
        if (!running()) break;
        failures++;
        log((error as Error).message);
      }
      if (running()) await sleep(failures ? Math.min(intervalMs * 2 ** (failures - 1), 10_000) : intervalMs);
    }
    reader.close();
  });
}

/** drainStream's readers, by handler (none: the function's) and table. */
const readers = new Map<StreamHandler | undefined, Map<string, ReturnType<typeof streamReader>>>();

export interface DrainOptions extends Partial<Pick<StreamReaderOptions, 'tableName' | 'handler' | 'endpoint'>> {
  /**
   * Only these books' records are handed to the handler; the others are passed over for good (by this
   * handler's reader). The stream carries every test file's writes: indexing only one's own is faster.
   */
  bookTextIds?: Iterable<string>;
}

/**
 * For tests: processes every record the stream holds now, once, through the handler (by default the
 * `search-indexer` function's, so into this process's `searchEngine()`), and returns what it did. The
 * position is kept in memory per handler and table between calls, so each call goes on from the last;
 * the first reads the stream from its oldest records (every test file's writes: `bookTextIds` keeps it
 * to a test's own books). A failed batch throws StreamBatchFailed (the next call tries again from there).
 */
export function drainStream(options: DrainOptions = {}): Promise<DrainReport> {
  const tableName = options.tableName ?? process.env.TABLE_NAME;
  if (!tableName) throw new Error('drainStream: no table (TABLE_NAME)');
  const key = `${options.endpoint ?? ''} ${tableName}`;
  let byTable = readers.get(options.handler);
  if (!byTable) readers.set(options.handler, (byTable = new Map()));
  let reader = byTable.get(key);
  if (!reader) {
    const { handler, endpoint } = options;
    byTable.set(key, (reader = streamReader({ tableName, handler, endpoint, log: () => undefined })));
  }
  const ids = options.bookTextIds && new Set(options.bookTextIds);
  const bookTextIdOf = (r: DynamoDBRecord) => (r.dynamodb?.NewImage ?? r.dynamodb?.OldImage)?.bookTextId?.S;
  return reader.drain(ids ? { only: (r) => ids.has(bookTextIdOf(r) ?? '') } : {});
}
