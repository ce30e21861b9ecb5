import { onFirstUse } from '../../lib/lazy.ts';
import type { Queue } from '../../lib/queue.ts';

/** An SQS queue (the OCR or the audio jobs'), with the SDK loaded by the first message sent: most requests send none. */
export const sqsQueueAt = (queueUrl: string): Queue =>
  onFirstUse<Queue>(async () => {
    const [{ sqsQueue }, { sqsClient }] = await Promise.all([import('../../lib/adapters/sqs/queue.ts'), import('../../lib/adapters/aws/sqs-client.ts')]);
    return sqsQueue(sqsClient(), queueUrl);
  });
