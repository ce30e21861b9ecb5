import middy from '@middy/core';
import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { dynamoAudioFiles } from '../../lib/adapters/dynamo/audio-files.ts';
import { laterSequencer, notifiedObjects, type NotifiedObject } from '../../lib/adapters/s3/events.ts';
import { syncAudioFiles, type SyncDeps, type SyncReport } from '../../lib/audio/bucket-sync.ts';
import { once } from '../../lib/lazy.ts';
import { logger } from '../../lib/log.ts';
import { bucketObjects } from '../_shared/buckets.ts';
import { deps as coreDeps } from '../_shared/deps.ts';
import { count, metricNames, observed } from '../_shared/observability.ts';

/**
 * `audio-files-sync` (issue 26): keeps the record of audio files in step with the audio bucket. On AWS
 * the bucket's ObjectCreated and ObjectRemoved notifications for audio keys reach it through the
 * `AudioFileEvents` queue (infra/stack.ts); locally the embedded S3's do, through the local queue of
 * the same name (infra/local/embedded). Each key named ends recorded or forgotten as the bucket has
 * it (lib/audio/bucket-sync.ts), whatever the event said.
 */
const deps = once(() => {
  const core = coreDeps();
  return { bucket: core.config.audioBucket, audio: bucketObjects(core.config.audioBucket), audioFiles: dynamoAudioFiles(core.db) };
});

/**
 * One batch of queue messages: the objects of all of them settled together, each from what its latest
 * event says (lib/audio/bucket-sync.ts checks it against the bucket), and each message whose keys were
 * not all settled reported failed (partial batch failures), so the queue delivers it again and, after
 * its last try, moves it to the dead-letter queue. So does a message that is no notification.
 */
export async function syncBatch(sync: SyncDeps, bucket: string, event: SQSEvent): Promise<SQSBatchResponse & { report: SyncReport }> {
  const batchItemFailures: SQSBatchItemFailure[] = [];
  const keysOf = new Map<string, string[]>();
  const latest = new Map<string, NotifiedObject>();
  for (const record of event.Records) {
    try {
      const objects = notifiedObjects(record.body, bucket);
      keysOf.set(record.messageId, objects.map((o) => o.key));
      for (const o of objects) {
        const before = latest.get(o.key);
        if (!before || !laterSequencer(before.sequencer, o.sequencer)) latest.set(o.key, o);
      }
    } catch (error) {
      logger.error('Audio files sync: a message that is no S3 event notification', { messageId: record.messageId, error: error as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  const report = await syncAudioFiles(sync, new Map([...latest].map(([key, o]) => [key, o.stored])));
  const failed = new Set(report.failed);
  for (const [messageId, keys] of keysOf) if (keys.some((key) => failed.has(key))) batchItemFailures.push({ itemIdentifier: messageId });
  if (failed.size > 0) logger.warn('Audio files sync: files not settled, their messages retried', { files: failed.size, first: report.failed[0] });
  return { batchItemFailures, report };
}

export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(observed('audio-files-sync'))
  .handler(async (event) => {
    const { batchItemFailures, report } = await syncBatch(deps(), deps().bucket, event);
    // Every invocation reports, none unsettled included: the metric's sample count is the invocations.
    count(metricNames.audioFilesUnsettled, report.failed.length);
    return { batchItemFailures };
  });
