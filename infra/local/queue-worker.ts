import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { sqsClient } from '../../lib/adapters/aws/sqs-client.ts';
import { platformLimits } from '../../functions/_shared/http/platform-limits.ts';
import { lambdaContext } from './server.ts';

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** The SQS record Lambda would hand the function for a received message. */
export function toRecord(message: Message, queueUrl: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:local:000000000000:${queueUrl.split('/').pop()}`,
    awsRegion: 'local',
  };
}

/** How Lambda's SQS trigger takes a queue: messages per invocation, how long it gathers them, invocations at once. */
export interface SqsTrigger {
  batchSize?: number;
  maxBatchingWindowSeconds?: number;
  maxConcurrency?: number;
}

/** SQS's most per ReceiveMessage and per DeleteMessageBatch. */
const perCall = 10;

/** What a message adds to the event, as Lambda counts its invocation payload. */
const recordBytes = (message: Message, queueUrl: string) => Buffer.byteLength(JSON.stringify(toRecord(message, queueUrl))) + 1;

/**
 * The local stand-in for Lambda's SQS trigger: long-polls a queue and hands its messages to the same
 * handler the trigger runs on AWS (`name`: the audio worker, audio-files-sync, the OCR worker's job
 * and pages functions), as the trigger says (default one message at a time, as the audio worker's
 * trigger): a batch is gathered until it is full, its window has passed since its first message or
 * its event would pass Lambda's 6 MB invocation payload (the messages that would are held for the next).
 * Each message the handler does not report failed is deleted; a failed one, or all of a batch whose
 * handler threw, comes back after its visibility timeout, as on AWS.
 */
export function startQueueWorker(
  queueUrl: string,
  handler: SqsHandler,
  name = 'audio-worker',
  /** How long a received message stays hidden (the queue's visibility timeout on AWS); default the queue's own. */
  visibilitySeconds?: number,
  trigger: SqsTrigger = {},
): { stop(): Promise<void> } {
  let running = true;
  const sqs = sqsClient();
  const batchSize = trigger.batchSize ?? 1;
  const receive = async (max: number, waitSeconds: number) =>
    (
      await sqs.send(
        // The local SQS stand-in answers AttributeNames (not MessageSystemAttributeNames).
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(perCall, max),
          WaitTimeSeconds: waitSeconds,
          AttributeNames: ['All'],
          VisibilityTimeout: visibilitySeconds,
        }),
      )
    ).Messages ?? [];
  /** Received messages that did not fit the batch they were received for, the next batch's first. */
  const held: Message[] = [];
  const gather = async (): Promise<Message[]> => {
    const batch: Message[] = [];
    let bytes = '{"Records":[]}'.length;
    const take = (messages: Message[]) => {
      for (const [i, message] of messages.entries()) {
        const size = recordBytes(message, queueUrl);
        if (batch.length > 0 && bytes + size > platformLimits.lambdaRequestBytes) return held.push(...messages.slice(i));
        batch.push(message);
        bytes += size;
      }
    };
    take(held.splice(0));
    if (batch.length === 0) take(await receive(batchSize, 1));
    const until = Date.now() + (trigger.maxBatchingWindowSeconds ?? 0) * 1000;
    while (running && held.length === 0 && batch.length > 0 && batch.length < batchSize && Date.now() < until) {
      take(await receive(batchSize - batch.length, Math.min(1, Math.floor((until - Date.now()) / 1000))));
    }
    return batch;
  };
  const invoke = async (batch: Message[]) => {
    const { batchItemFailures } = await handler({ Records: batch.map((m) => toRecord(m, queueUrl)) }, lambdaContext(name, randomUUID()));
    const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
    const done = batch.filter((m) => !failed.has(m.MessageId!));
    for (let i = 0; i < done.length; i += perCall) {
      const entries = done.slice(i, i + perCall).map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle! }));
      await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    }
  };
  const receiver = async () => {
    let next: Promise<Message[]> | undefined;
    while (running) {
      try {
        const batch = await (next ?? gather());
        next = undefined;
        if (batch.length === 0) continue;
        // As Lambda's pollers do, the next batch is gathered while the function runs on this one.
        if (batchSize > 1) next = gather().catch(() => []);
        await invoke(batch);
      } catch (error) {
        if (!running) break;
        process.stderr.write(`${name}: ${(error as Error).message}\n`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    await next;
  };
  const receivers = Promise.all(Array.from({ length: trigger.maxConcurrency ?? 1 }, receiver));
  return {
    async stop() {
      running = false;
      await receivers;
    },
  };
}
