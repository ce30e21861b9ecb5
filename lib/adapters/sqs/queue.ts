import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Queue } from '../../queue.ts';

/** One SQS queue (local-aws-sqs locally, reached through AWS_ENDPOINT_URL_SQS). */
export function sqsQueue(client: SQSClient, queueUrl: string): Queue {
  return {
    async send(body) {
      const out = await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
      return { messageId: out.MessageId! };
    },
  };
}
