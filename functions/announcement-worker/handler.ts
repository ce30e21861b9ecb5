import middy from '@middy/core';
import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as v from 'valibot';
import { dynamoAnnouncements, dynamoAudience } from '../../lib/adapters/dynamo/announcements.ts';
import { once } from '../../lib/lazy.ts';
import { logger } from '../../lib/log.ts';
import { runAnnouncementStep, type AnnouncementDeps, type AnnouncementMessage } from '../../lib/notifications/announcements.ts';
import { deps as coreDeps } from '../_shared/deps.ts';
import { notifyDeps } from '../_shared/notify-deps.ts';
import { observed } from '../_shared/observability.ts';
import { sqsQueueAt } from '../_shared/queues.ts';

/**
 * `announcement-worker`: an announcement's fan-out, one step (a page of one user partition) per
 * message from the `announcements` queue (lib/notifications/announcements.ts). A step that fails is
 * delivered again (partial batch failures); a page run twice notifies no one twice.
 */
const message: v.GenericSchema<unknown, AnnouncementMessage> = v.object({
  kind: v.literal('announcement'),
  announcementId: v.pipe(v.string(), v.nonEmpty()),
  shard: v.pipe(v.number(), v.integer(), v.minValue(0)),
  step: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

const deps = once((): AnnouncementDeps => {
  const core = coreDeps();
  return {
    ...notifyDeps(),
    users: core.users,
    audience: dynamoAudience(core.db),
    announcements: dynamoAnnouncements(core.db),
    announcementQueue: sqsQueueAt(core.config.announcementQueueUrl),
  };
});

/** The SQS handler over given deps (the benchmark runs it over its own). */
export function announcementHandler(announcementDeps: () => AnnouncementDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchItemFailure[] = [];
    for (const record of event.Records) {
      let parsed: v.SafeParseResult<typeof message>;
      try {
        parsed = v.safeParse(message, JSON.parse(record.body));
      } catch {
        logger.error('Announcement worker: dropped a message that is not JSON', { messageId: record.messageId });
        continue;
      }
      if (!parsed.success) {
        logger.error('Announcement worker: dropped a message that is not an announcement step', { messageId: record.messageId });
        continue;
      }
      try {
        await runAnnouncementStep(announcementDeps(), parsed.output);
      } catch (error) {
        logger.error('Announcement worker: a step failed; it will be delivered again', { ...parsed.output, error: error as Error });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}

export const handler = middy<SQSEvent, SQSBatchResponse>().use(observed('announcement-worker')).handler(announcementHandler(deps));
