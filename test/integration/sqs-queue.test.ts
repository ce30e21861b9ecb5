import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClient } from '../../lib/adapters/aws/sqs-client.ts';
import { sqsQueue } from '../../lib/adapters/sqs/queue.ts';

describe('SQS queue adapter on the embedded SQS', () => {
  let QueueUrl: string;

  // A queue of its own: other test files may consume the job queues in parallel.
  beforeAll(async () => {
    const QueueName = `queue-adapter-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    QueueUrl = (await sqsClient().send(new CreateQueueCommand({ QueueName }))).QueueUrl!;
  });

  afterAll(async () => {
    if (QueueUrl) await sqsClient().send(new DeleteQueueCommand({ QueueUrl }));
  });

  it('sends a JSON body and returns the message id', async () => {
    const job = { jobId: 'j-1', fileName: 'كتاب.pdf', metadata: { pages: 3 }, customPrompt: null };
    const { messageId } = await sqsQueue(sqsClient(), QueueUrl).send(job);
    expect(messageId).toMatch(/\S/);

    // AttributeNames: the stand-in ignores the newer MessageSystemAttributeNames.
    const received = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, AttributeNames: ['All'] }),
    );
    expect(received.Messages).toHaveLength(1);
    const [message] = received.Messages!;
    expect(message!.MessageId).toBe(messageId);
    expect(JSON.parse(message!.Body!)).toEqual(job);
    expect(message!.Attributes?.ApproximateReceiveCount).toBe('1');
  });
});
