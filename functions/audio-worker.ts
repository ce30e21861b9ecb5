import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { failJob, planJob, runChunk, type AudioJobMessage, type JobDeps } from '../lib/audio/jobs.ts';
import { logger } from '../lib/log.ts';
import { maxReceives } from '../lib/queue.ts';
import { audioDeps } from './audio-deps.ts';

/**
 * `audio-worker` (DESIGN.md section 1): runs whole-book audio jobs from the `audio-jobs` queue, a plan
 * message then one message per chunk of lines. A message that fails is retried by the queue (partial
 * batch failures); on its last try the job is marked failed with the error (state table 3.2).
 */
/** The SQS handler over given deps (the benchmark runs it over stand-ins). */
export function workerHandler(jobDeps: () => JobDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchItemFailure[] = [];
    // One record at a time: parallelism comes from concurrent invocations, bounded to the speech provider's rate.
    for (const record of event.Records) {
      let message: AudioJobMessage;
      try {
        message = JSON.parse(record.body) as AudioJobMessage;
      } catch {
        logger.error('Audio worker: dropped a message that is not JSON', { messageId: record.messageId });
        continue;
      }
      try {
        if (message.kind === 'plan') await planJob(jobDeps(), message.jobId);
        else await runChunk(jobDeps(), message);
      } catch (error) {
        const receives = Number(record.attributes?.ApproximateReceiveCount ?? 1);
        logger.error('Audio worker: message failed', { jobId: message.jobId, kind: message.kind, receives, error: error as Error });
        if (receives >= maxReceives) await failJob(jobDeps(), message.jobId, error);
        else batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}

export const handler = workerHandler(audioDeps);
