import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { OcrJobMessage } from '../contract.ts';
import { FinishPending } from '../job/finish.ts';
import { planJob } from '../job/runner.ts';
import { rereadPage } from '../job/reread.ts';
import { PdfPageSource } from '../pdf/page-source.ts';
import { env, lambdaDeps, type LambdaDeps } from './deps.ts';
import { tasksPerSend } from './limits.ts';
import { log } from './log.ts';
import { eachMessage } from './batch.ts';
import { parseJobMessage, type PageTask } from './messages.ts';

/**
 * The OCR queue's trigger (batch size 1, partial batch failures): a job message becomes page tasks on
 * the worker's pages queue, so that no function reads a whole book (a 300-page scan is 38 tasks of 8
 * pages, read side by side). The job message is deleted (this record succeeds) only once every task
 * is sent; sending again after a failure is harmless, since a task skips the pages the ledger counts
 * done. A message that is not a job is logged and dropped.
 */
export function handleJobs(deps: LambdaDeps, event: SQSEvent, pagesQueueUrl: string): Promise<SQSBatchResponse> {
  return eachMessage(event, 'an OCR job', parseJobMessage, async (message) => {
    if (message.reread) return rereadOnePage(deps, message);
    try {
      const plan = await planJob({ ...deps, api: deps.apiFor(message) }, message);
      const textLayer = plan.tasks.length > 0 ? await textLayerDecision(deps, message) : undefined;
      const tasks = plan.tasks.map((pages): PageTask => ({ message, pages, ...(textLayer !== undefined && { textLayer }) }));
      await sendTasks(deps, pagesQueueUrl, tasks);
      log.info('Planned an OCR job', { jobId: message.jobId, pageCount: plan.pageCount, tasks: tasks.length, textLayer });
    } catch (error) {
      if (error instanceof FinishPending) log.info('Another worker is finishing the job; trying again later', { jobId: message.jobId });
      else log.error('Could not plan an OCR job; it will be delivered again', { jobId: message.jobId, error: error as Error });
      throw error;
    }
  });
}

/**
 * One page of a completed job read again (job/reread.ts), here rather than as a task: it is one page,
 * well within this function's time. Never its text layer: the reader asked for a new reading.
 */
async function rereadOnePage(deps: LambdaDeps, message: OcrJobMessage): Promise<void> {
  const { jobId, reread } = message;
  try {
    await rereadPage({ ...deps, api: deps.apiFor(message), openSource: (bytes) => deps.openSourceWith(bytes, { trusted: false }) }, message);
    log.info('Read a page again', { jobId, pageNumber: reread!.pageNumber, layout: reread!.layout });
  } catch (error) {
    log.error('Could not read a page again; it will be delivered again', { jobId, pageNumber: reread!.pageNumber, error: error as Error });
    throw error;
  }
}

/**
 * A PDF's text-layer decision, made once for the job (one sample page checked against OCR) rather
 * than once per task; undefined for an image, whose pages are always read by OCR.
 */
async function textLayerDecision(deps: LambdaDeps, message: OcrJobMessage): Promise<boolean | undefined> {
  const bytes = await deps.files.open(message.storage.bucket, message.storage.key);
  const source = await deps.openSourceWith(bytes, { engine: deps.engine, model: deps.modelFor(message.language) });
  try {
    return source instanceof PdfPageSource ? ((await source.textLayerVerdict())?.trusted ?? false) : undefined;
  } finally {
    await source.close();
  }
}

/** Every task on the pages queue, ten per call; a task SQS did not take fails the job message (it is sent again). */
async function sendTasks(deps: LambdaDeps, queueUrl: string, tasks: readonly PageTask[]): Promise<void> {
  for (let i = 0; i < tasks.length; i += tasksPerSend) {
    const batch = tasks.slice(i, i + tasksPerSend);
    const out = await deps.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((task, n) => ({ Id: String(i + n), MessageBody: JSON.stringify(task) })),
      }),
    );
    if (out.Failed?.length) {
      throw new Error(`The pages queue refused ${out.Failed.length} of ${batch.length} tasks (${out.Failed[0]!.Code})`);
    }
  }
}

export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => handleJobs(lambdaDeps(), event, env('pagesQueueUrl'));
