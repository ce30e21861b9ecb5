import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { FinishPending } from '../job/finish.ts';
import { runPages } from '../job/runner.ts';
import type { TextLayerPolicy } from '../open-source.ts';
import { env, lambdaDeps, type LambdaDeps } from './deps.ts';
import { finishRetrySeconds } from './limits.ts';
import { log } from './log.ts';
import { eachMessage } from './batch.ts';
import { parseTask } from './messages.ts';

/**
 * The pages queue's trigger (batch size 1, partial batch failures): reads a task's pages, puts their
 * images and posts them, and the task that completes the job posts its final result. A failure
 * leaves the task on the queue to be delivered again (the pages posted before it are not read again);
 * after five receives it goes to the dead-letter queue, which alarms.
 */
export function handlePages(deps: LambdaDeps, event: SQSEvent, queueUrl: string): Promise<SQSBatchResponse> {
  return eachMessage(event, 'a page task', parseTask, async (task, record) => {
    const { jobId, language } = task.message;
    const textLayer: TextLayerPolicy =
      task.textLayer === undefined ? { engine: deps.engine, model: deps.modelFor(language) } : { trusted: task.textLayer };
    try {
      const started = Date.now();
      const finished = await runPages(
        { ...deps, api: deps.apiFor(task.message), openSource: (bytes) => deps.openSourceWith(bytes, textLayer) },
        task.message,
        task.pages,
      );
      log.info('Read a task of pages', { jobId, pages: task.pages, seconds: (Date.now() - started) / 1000 });
      if (finished) {
        const { status, pageCount, seconds } = finished;
        log.info('Job finished', { jobId, status, pages: pageCount, seconds, pagesPerSecond: seconds > 0 ? pageCount / seconds : null });
      }
    } catch (error) {
      if (error instanceof FinishPending) {
        // Not a fault: the holder of the claim is posting. Come back once it has (or its lease ran out).
        log.info('Another worker is posting the final result; trying again later', { jobId });
        await deps.sqs
          .send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: finishRetrySeconds }))
          .catch((e: unknown) => log.warn('Could not delay the task', { jobId, error: e as Error }));
      } else {
        log.error('A task of pages failed; it will be delivered again', { jobId, pages: task.pages, error: error as Error });
      }
      throw error;
    }
  });
}

export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => handlePages(lambdaDeps(), event, env('pagesQueueUrl'));
