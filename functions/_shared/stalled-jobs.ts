import { dynamoStalledAudioJobs } from '../../lib/adapters/dynamo/stalled-audio-jobs.ts';
import { dynamoStalledOcrJobs } from '../../lib/adapters/dynamo/stalled-ocr-jobs.ts';
import { requeueStalledAudioJobs } from '../../lib/audio/stalled.ts';
import type { JobCredentials } from '../../lib/auth/job-credentials.ts';
import { once, onFirstUse } from '../../lib/lazy.ts';
import { requeueStalledOcrJobs } from '../../lib/ocr/jobs/stalled.ts';
import { deps as coreDeps } from './deps.ts';
import { sqsQueueAt } from './queues.ts';
import { dynamoAnnouncements } from '../../lib/adapters/dynamo/announcements.ts';
import { resumeStalledAnnouncements } from '../../lib/notifications/announcements.ts';
import { notifyDeps } from './notify-deps.ts';
import { dynamoBookStore } from '../../lib/adapters/dynamo/books.ts';

/**
 * The sweeper's part for jobs accepted but stalled (issue 29): OCR jobs and audio jobs that have not
 * moved for their interval, and announcements' fan-out steps, are sent to their queue again (lib/ocr/jobs/stalled.ts, lib/audio/stalled.ts).
 */
const deps = once(() => {
  const core = coreDeps();
  return {
    stalledOcrJobs: dynamoStalledOcrJobs(core.db),
    stalledAudioJobs: dynamoStalledAudioJobs(core.db),
    // Loaded by the first stalled OCR job: most sweeps send none, and the KMS client stays out of their start.
    jobCredentials: onFirstUse<JobCredentials>(async () => (await import('./job-credentials.ts')).jobCredentialsOf(core.config)),
    ocrQueue: sqsQueueAt(core.config.ocrQueueUrl),
    audioQueue: sqsQueueAt(core.config.audioQueueUrl),
    // Given-up jobs are told to their owners and starters.
    books: dynamoBookStore(core.db),
    inbox: notifyDeps(),
    announcements: dynamoAnnouncements(core.db),
    announcementQueue: sqsQueueAt(core.config.announcementQueueUrl),
  };
});

export async function requeueStalledJobs(now: Date) {
  const [ocr, audio, announcements] = await Promise.all([
    requeueStalledOcrJobs(deps(), now),
    requeueStalledAudioJobs(deps(), now),
    resumeStalledAnnouncements(deps(), now),
  ]);
  return {
    ocrJobsRequeued: ocr.requeued,
    ocrJobsFailed: ocr.failed,
    audioJobsRequeued: audio.requeued,
    audioJobsFailed: audio.failed,
    announcementStepsResent: announcements.resumed,
  };
}
