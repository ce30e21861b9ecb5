import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
  type _Record,
  type GetShardIteratorCommandInput,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lambdaRecord, StreamBatchFailed, streamReader, type StreamHandler } from '../../infra/local/stream-poller.ts';

/**
 * The local stand-in of the stream trigger (infra/local/stream-poller.ts) over a stream in memory:
 * shards in parent order, positions and the checkpoint, iterators that expire, trimmed records.
 */
const dynamodb = mockClient(DynamoDBClient);
const streams = mockClient(DynamoDBStreamsClient);

interface FakeShard {
  id: string;
  parent?: string;
  closed: boolean;
  records: _Record[];
}

let seq = 0;
const pageRecord = (bookTextId: string, pageNumber: number, entity = 'BookTextPage'): _Record => ({
  eventID: `e${++seq}`,
  eventName: 'INSERT',
  dynamodb: {
    SequenceNumber: String(seq).padStart(21, '0'),
    NewImage: { entity: { S: entity }, bookTextId: { S: bookTextId }, pageNumber: { N: String(pageNumber) } },
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  },
});

function fakeStream(streamArn: string, shards: FakeShard[]) {
  const calls: GetShardIteratorCommandInput[] = [];
  const expired = new Set<string>();
  dynamodb.on(DescribeTableCommand).callsFake(() => ({ Table: { LatestStreamArn: streamArn, StreamSpecification: { StreamEnabled: true } } }));
  // Described in pages of one shard, as a long stream is.
  streams.on(DescribeStreamCommand).callsFake((input: { ExclusiveStartShardId?: string }) => {
    const from = input.ExclusiveStartShardId ? shards.findIndex((s) => s.id === input.ExclusiveStartShardId) + 1 : 0;
    const shard = shards[from];
    const listed: Shard[] = shard ? [{ ShardId: shard.id, ParentShardId: shard.parent, SequenceNumberRange: {} }] : [];
    return { StreamDescription: { StreamArn: streamArn, Shards: listed, LastEvaluatedShardId: from + 1 < shards.length ? shard!.id : undefined } };
  });
  streams.on(GetShardIteratorCommand).callsFake((input: GetShardIteratorCommandInput) => {
    calls.push(input);
    const shard = shards.find((s) => s.id === input.ShardId)!;
    const at = (n: string | undefined) => shard.records.findIndex((r) => r.dynamodb!.SequenceNumber === n);
    if (input.SequenceNumber === 'trimmed') throw new TrimmedDataAccessException({ message: 'trimmed', $metadata: {} });
    const index =
      input.ShardIteratorType === 'TRIM_HORIZON' ? 0 : input.ShardIteratorType === 'AT_SEQUENCE_NUMBER' ? at(input.SequenceNumber) : at(input.SequenceNumber) + 1;
    return { ShardIterator: `${shard.id}|${index}|${Math.random()}` };
  });
  streams.on(GetRecordsCommand).callsFake((input: { ShardIterator: string; Limit?: number }) => {
    if (expired.delete(input.ShardIterator.split('|')[0]!)) throw new ExpiredIteratorException({ message: 'expired', $metadata: {} });
    const [id, from] = input.ShardIterator.split('|') as [string, string];
    const shard = shards.find((s) => s.id === id)!;
    const records = shard.records.slice(Number(from), Number(from) + (input.Limit ?? 1000));
    const next = Number(from) + records.length;
    return { Records: records, NextShardIterator: shard.closed && next >= shard.records.length ? undefined : `${id}|${next}|${Math.random()}` };
  });
  return { calls, expire: (shardId: string) => expired.add(shardId) };
}

function recorder() {
  const batches: string[][] = [];
  const handler: StreamHandler = async (event: DynamoDBStreamEvent) => {
    batches.push(event.Records.map((r) => `${r.dynamodb!.NewImage!.bookTextId!.S}#${r.dynamodb!.NewImage!.pageNumber!.N}`));
    return { batchItemFailures: [] };
  };
  return { batches, handler, all: () => batches.flat() };
}

let dir: string;
beforeEach(() => {
  dynamodb.reset();
  streams.reset();
  dir = mkdtempSync(join(tmpdir(), 'stream-poller-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the stream reader', () => {
  it('reads a parent shard to its end before its children, filters on entity, and hands batches of 100', async () => {
    const parent: FakeShard = { id: 'parent', closed: true, records: Array.from({ length: 150 }, (_, n) => pageRecord('b1', n)) };
    parent.records.splice(10, 0, pageRecord('u1', 0, 'User'));
    const child: FakeShard = { id: 'child', parent: 'parent', closed: false, records: [pageRecord('b1', 150), pageRecord('b2', 0)] };
    // The child is listed first: order comes from the parent link, not the listing.
    fakeStream('arn:stream/1', [child, parent]);
    const { handler, batches, all } = recorder();
    const checkpointFile = join(dir, 'cp.json');
    const reader = streamReader({ tableName: 't', handler, checkpointFile, log: () => undefined });
    const report = await reader.drain();
    expect(report).toEqual({ records: 153, delivered: 152, batches: 3 });
    expect(batches.map((b) => b.length)).toEqual([100, 50, 2]);
    expect(all()).toEqual([...Array.from({ length: 151 }, (_, n) => `b1#${n}`), 'b2#0']);
    const checkpoint = JSON.parse(readFileSync(checkpointFile, 'utf8'));
    expect(checkpoint).toEqual({ streamArn: 'arn:stream/1', shards: { parent: { after: parent.records.at(-1)!.dynamodb!.SequenceNumber, done: true }, child: { after: child.records.at(-1)!.dynamodb!.SequenceNumber } } });
    // Nothing new: nothing handed.
    expect(await reader.drain()).toEqual({ records: 0, delivered: 0, batches: 0 });
  });

  it('goes on after its checkpoint when started again: nothing of a done shard, the open one after its last record', async () => {
    const parent: FakeShard = { id: 'parent', closed: true, records: [pageRecord('b1', 0)] };
    const child: FakeShard = { id: 'child', parent: 'parent', closed: false, records: [pageRecord('b1', 1)] };
    const { calls } = fakeStream('arn:stream/1', [parent, child]);
    const checkpointFile = join(dir, 'cp.json');
    await streamReader({ tableName: 't', handler: recorder().handler, checkpointFile, log: () => undefined }).drain();
    child.records.push(pageRecord('b1', 2));
    calls.length = 0;
    const { handler, all } = recorder();
    await streamReader({ tableName: 't', handler, checkpointFile, log: () => undefined }).drain();
    expect(all()).toEqual(['b1#2']);
    expect(calls).toEqual([expect.objectContaining({ ShardId: 'child', ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: child.records[0]!.dynamodb!.SequenceNumber })]);
  });

  it('asks for a new iterator when one expired, and reads from the oldest record when its checkpoint was trimmed', async () => {
    const shard: FakeShard = { id: 's', closed: false, records: [pageRecord('b1', 0)] };
    const fake = fakeStream('arn:stream/1', [shard]);
    const { handler, all } = recorder();
    const lines: string[] = [];
    const checkpointFile = join(dir, 'cp.json');
    const reader = streamReader({ tableName: 't', handler, checkpointFile, log: (line) => lines.push(line) });
    await reader.drain();
    shard.records.push(pageRecord('b1', 1));
    fake.expire('s');
    await reader.drain();
    expect(all()).toEqual(['b1#0', 'b1#1']);

    // A checkpoint the stream no longer holds (past 24 hours).
    const { writeFileSync } = await import('node:fs');
    writeFileSync(checkpointFile, JSON.stringify({ streamArn: 'arn:stream/1', shards: { s: { after: 'trimmed' } } }));
    const again = recorder();
    await streamReader({ tableName: 't', handler: again.handler, checkpointFile, log: (line) => lines.push(line) }).drain();
    expect(again.all()).toEqual(['b1#0', 'b1#1']);
    expect(lines.some((l) => l.includes('oldest record'))).toBe(true);
  });

  it('drops a checkpoint of another stream (the table made again) and reads the new one from its start', async () => {
    const checkpointFile = join(dir, 'cp.json');
    fakeStream('arn:stream/1', [{ id: 's', closed: false, records: [pageRecord('b1', 0)] }]);
    await streamReader({ tableName: 't', handler: recorder().handler, checkpointFile, log: () => undefined }).drain();
    dynamodb.reset();
    streams.reset();
    fakeStream('arn:stream/2', [{ id: 's2', closed: false, records: [pageRecord('b9', 0)] }]);
    const { handler, all } = recorder();
    const lines: string[] = [];
    await streamReader({ tableName: 't', handler, checkpointFile, log: (line) => lines.push(line) }).drain();
    expect(all()).toEqual(['b9#0']);
    expect(JSON.parse(readFileSync(checkpointFile, 'utf8')).streamArn).toBe('arn:stream/2');
    expect(lines).toEqual([expect.stringContaining('stream is new')]);
  });

  it('takes a handler that throws as a failure of its whole batch, and retries from its first record', async () => {
    const shard: FakeShard = { id: 's', closed: false, records: [pageRecord('b1', 0), pageRecord('b1', 1)] };
    fakeStream('arn:stream/1', [shard]);
    let fail = true;
    const seen: number[] = [];
    const handler: StreamHandler = async (event) => {
      seen.push(event.Records.length);
      if (fail) throw new Error('boom');
      return { batchItemFailures: [] };
    };
    const reader = streamReader({ tableName: 't', handler, log: () => undefined });
    const failed = await reader.drain().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(StreamBatchFailed);
    expect((failed as StreamBatchFailed).sequenceNumber).toBe(shard.records[0]!.dynamodb!.SequenceNumber);
    fail = false;
    expect(await reader.drain()).toMatchObject({ delivered: 2, batches: 1 });
    expect(seen).toEqual([2, 2]);
  });

  it('shapes records as Lambda hands them: creation time in epoch seconds, binaries in base64', () => {
    const record = lambdaRecord(
      {
        eventID: 'e',
        eventName: 'MODIFY',
        eventVersion: '1.1',
        awsRegion: 'ddblocal',
        dynamodb: {
          ApproximateCreationDateTime: new Date('2026-03-01T00:00:01.500Z'),
          Keys: { pk: { S: 'BOOKTEXT#b' } },
          NewImage: { data: { B: new Uint8Array([1, 2, 3]) }, list: { L: [{ BS: [new Uint8Array([255])] }] }, n: { N: '1' } },
          SequenceNumber: '7',
          SizeBytes: 10,
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
      },
      'arn:stream/1',
    );
    expect(record).toEqual({
      eventID: 'e',
      eventName: 'MODIFY',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'ddblocal',
      eventSourceARN: 'arn:stream/1',
      dynamodb: {
        ApproximateCreationDateTime: 1772323201,
        Keys: { pk: { S: 'BOOKTEXT#b' } },
        NewImage: { data: { B: 'AQID' }, list: { L: [{ BS: ['/w=='] }] }, n: { N: '1' } },
        OldImage: undefined,
        SequenceNumber: '7',
        SizeBytes: 10,
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    });
  });
});
