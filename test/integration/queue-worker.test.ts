import { CreateQueueCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { platformLimits } from '../../functions/_shared/http/platform-limits.ts';
import { startQueueWorker } from '../../infra/local/queue-worker.ts';
import { sqsClient } from '../../lib/adapters/aws/sqs-client.ts';

/** The local stand-in for Lambda's SQS trigger (infra/local/queue-worker.ts) on a queue of its own in the embedded SQS. */
const unique = () => `worker-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
let stop: (() => Promise<void>) | undefined;
afterEach(() => stop?.());

async function queueWith(bodies: string[]): Promise<string> {
  const { QueueUrl } = await sqsClient().send(new CreateQueueCommand({ QueueName: unique() }));
  for (let i = 0; i < bodies.length; i += 10) {
    const Entries = bodies.slice(i, i + 10).map((MessageBody, j) => ({ Id: String(j), MessageBody }));
    await sqsClient().send(new SendMessageBatchCommand({ QueueUrl, Entries }));
  }
  return QueueUrl!;
}

const until = async (done: () => boolean) => {
  for (let i = 0; i < 300 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
};

describe('the local SQS trigger', () => {
  it('gathers a batch past one receive’s 10 messages, and hands a message reported failed (or all of a batch that threw) again', async () => {
    const bodies = Array.from({ length: 25 }, (_, i) => `m${i}`);
    const queueUrl = await queueWith(bodies);
    const batches: string[][] = [];
    let threw = false;
    const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      const got = event.Records.map((r) => r.body);
      batches.push(got);
      if (!threw) {
        threw = true;
        throw new Error('a moment’s failure');
      }
      // m3 fails once more; the rest are done.
      const failing = batches.flat().filter((b) => b === 'm3').length < 3 ? event.Records.filter((r) => r.body === 'm3') : [];
      return { batchItemFailures: failing.map((r) => ({ itemIdentifier: r.messageId })) };
    };
    // Hidden 3 s once received: longer than the batching window, as on AWS, so a batch never holds a message twice.
    stop = startQueueWorker(queueUrl, handler, 'test', 3, { batchSize: 100, maxBatchingWindowSeconds: 1 }).stop;
    await until(() => batches.flat().filter((b) => b === 'm3').length === 3);
    await new Promise((resolve) => setTimeout(resolve, 4000)); // long enough for anything not deleted to come back
    expect(batches[0]).toHaveLength(25);
    // The batch that threw came back whole; then m3 alone, reported failed once more, then done.
    expect(batches.slice(1).map((b) => b.length)).toEqual([25, 1]);
    expect([...batches[1]!].sort()).toEqual([...bodies].sort());
    expect(batches[2]).toEqual(['m3']);
  }, 30_000);

  it('holds a batch within Lambda’s 6 MB invocation payload, the messages past it handed in the next batch', async () => {
    // 70 messages of 100 KB: 7 MB, more than one invocation takes.
    const bodies = Array.from({ length: 70 }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(100_000)}`);
    const queueUrl = await queueWith(bodies);
    const batches: SQSEvent[] = [];
    const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      batches.push(event);
      return { batchItemFailures: [] };
    };
    stop = startQueueWorker(queueUrl, handler, 'test', 30, { batchSize: 100, maxBatchingWindowSeconds: 1 }).stop;
    await until(() => batches.flatMap((b) => b.Records).length === 70);
    expect(batches.length).toBeGreaterThan(1);
    for (const event of batches) expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThanOrEqual(platformLimits.lambdaRequestBytes);
    expect(batches.flatMap((b) => b.Records.map((r) => r.body)).sort()).toEqual(bodies);
  }, 30_000);
});
