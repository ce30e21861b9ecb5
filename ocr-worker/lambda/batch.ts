import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { log } from './log.ts';
import { BadMessage } from './messages.ts';

/**
 * One SQS batch (partial batch failures): each record's body is read with `read`; one that is not
 * `what` (a BadMessage) is logged and dropped, since delivering it again would not change it. A
 * record whose `handle` throws is reported failed, so SQS delivers it again (and, after its last
 * receive, to the dead-letter queue); `handle` logs why.
 */
export async function eachMessage<T>(
  event: SQSEvent,
  what: string,
  read: (body: string) => T,
  handle: (message: T, record: SQSRecord) => Promise<void>,
): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let message: T;
    try {
      message = read(record.body);
    } catch (error) {
      if (!(error instanceof BadMessage)) throw error;
      log.error(`Dropped a message that is not ${what}`, { messageId: record.messageId, reason: error.message });
      continue;
    }
    try {
      await handle(message, record);
    } catch {
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
