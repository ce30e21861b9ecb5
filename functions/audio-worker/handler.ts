import middy from '@middy/core';
import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { cannotRetry, failJob, planJob, runChunk, type AudioJobMessage, type JobDeps } from '../../lib/audio/jobs.ts';
import { logger } from '../../lib/log.ts';
import { maxReceives } from '../../lib/queue.ts';
import { audioDeps } from '../_shared/audio-deps.ts';
import { count, metricNames, observed } from '../_shared/observability.ts';

/**
 * `audio-worker` (docs/DESIGN.md section 1): runs whole-book audio jobs from the `audio-jobs` queue, a plan
 * message then one message per chunk of lines. Each step is retried within the run while a retry can
 * help (lib/audio/jobs.ts); a message that still fails is delivered again by the queue (partial batch
 * failures), and after its last try goes to the dead-letter queue with its job left open, which the
 * sweeper plans again once it has stalled (lib/audio/stalled.ts). Only a failure no retry can fix
 * (`cannotRetry`) fails the job, at once (state table 3.2).
 */

const id = v.pipe(v.string(), v.nonEmpty());

/** The messages lib/audio/jobs.ts sends: a plan, or a chunk of lines. */
const audioJobMessage: v.GenericSchema<unknown, AudioJobMessage> = v.variant('kind', [
  v.object({ kind: v.literal('plan'), jobId: id }),
  v.object({
    kind: v.literal('chunk'),
    jobId: id,
    bookId: id,
    voice: v.string(),
    chunk: v.pipe(v.number(), v.integer(), v.minValue(0)),
    lineIds: v.array(id),
  }),
]);

/**
 * The record's message, or undefined when it is not one the worker can act on: logged and dropped, as
 * the OCR worker drops its bad messages (ocr-worker/lambda/messages.ts): delivering it again would not change it.
 */
function messageOf(record: SQSRecord): AudioJobMessage | undefined {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    logger.error('Audio worker: dropped a message that is not JSON', { messageId: record.messageId });
    return undefined;
  }
  const parsed = v.safeParse(audioJobMessage, body);
  if (parsed.success) return parsed.output;
  // Where it is wrong, not what it holds.
  const fields = parsed.issues.map((issue) => v.getDotPath(issue) ?? '(message)');
  logger.error('Audio worker: dropped a message that is not an audio job message', { messageId: record.messageId, fields });
  return undefined;
}

/** What the handler reports about a batch, for metrics. */
export interface WorkerOutcomes {
  /**
   * A message failed: `dropped` (not JSON, or not an audio job message), `retried` (the queue delivers it again), `dead-lettered`
   * (its last try: the job stays open for the sweeper), or `job-failed` (no retry can fix it).
   */
  messageFailed?(how: 'dropped' | 'retried' | 'dead-lettered' | 'job-failed'): void;
}

/** The SQS handler over given deps (the benchmark runs it over stand-ins). */
export function workerHandler(jobDeps: () => JobDeps, outcomes: WorkerOutcomes = {}) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchItemFailure[] = [];
    // One record at a time: parallelism comes from concurrent invocations, bounded to the speech provider's rate.
    for (const record of event.Records) {
      const message = messageOf(record);
      if (!message) {
        outcomes.messageFailed?.('dropped');
        continue;
      }
      try {
        if (message.kind === 'plan') await planJob(jobDeps(), message.jobId);
        else await runChunk(jobDeps(), message);
      } catch (error) {
        const receives = Number(record.attributes?.ApproximateReceiveCount ?? 1);
        logger.error('Audio worker: message failed', { jobId: message.jobId, kind: message.kind, receives, error: error as Error });
        if (cannotRetry(error)) {
          await failJob(jobDeps(), message.jobId, error);
          outcomes.messageFailed?.('job-failed');
        } else {
          // An outage is not the job's fault: the queue tries again, and after its last try the sweeper does.
          batchItemFailures.push({ itemIdentifier: record.messageId });
          outcomes.messageFailed?.(receives >= maxReceives ? 'dead-lettered' : 'retried');
        }
      }
    }
    return { batchItemFailures };
  };
}

/** The Lambda handler: the worker over the function's deps, with logs, metrics and traces. */
export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(observed('audio-worker'))
  .handler(async (event: SQSEvent) => {
    let failed = 0;
    let jobsFailed = 0;
    const run = workerHandler(audioDeps, {
      messageFailed(how) {
        failed++;
        if (how === 'job-failed') jobsFailed++;
      },
    });
    try {
      return await run(event);
    } finally {
      // Every invocation reports its failures, none included: the metric's sample count is the invocations.
      count(metricNames.audioMessagesFailed, failed);
      if (jobsFailed > 0) count(metricNames.audioJobsFailed, jobsFailed);
    }
  });
