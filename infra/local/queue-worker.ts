import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { sqsClient } from '../../lib/adapters/aws/sqs-client.ts';
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

/**
 * The local stand-in for Lambda's SQS trigger: long-polls a queue and hands each message to the same
 * handler the trigger runs on AWS (`name`: the audio worker, the OCR worker's job and pages functions),
 * one at a time (batch size 1, as on AWS), deleting it unless the handler reports it failed. A failed
 * message comes back after its visibility timeout, as on AWS.
 */
export function startQueueWorker(
  queueUrl: string,
  handler: SqsHandler,
  name = 'audio-worker',
  /** How long a received message stays hidden (the queue's visibility timeout on AWS); default the queue's own. */
  visibilitySeconds?: number,
): { stop(): Promise<void> } {
  let running = true;
  const sqs = sqsClient();
  const loop = (async () => {
    while (running) {
      try {
        const { Messages = [] } = await sqs.send(
          // The local SQS stand-in answers AttributeNames (not MessageSystemAttributeNames).
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1, AttributeNames: ['All'], VisibilityTimeout: visibilitySeconds }),
        );
        for (const message of Messages) {
          const { batchItemFailures } = await handler({ Records: [toRecord(message, queueUrl)] }, lambdaContext(name, randomUUID()));
          if (batchItemFailures.some((f) => f.itemIdentifier === message.MessageId)) continue;
          await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: '0', ReceiptHandle: message.ReceiptHandle! }] }));
        }
      } catch (error) {
        if (!running) break;
        process.stderr.write(`${name}: ${(error as Error).message}\n`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}
