import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AudioJob } from '../../audio/audio-job.ts';
import type { StalledAudioJobStore } from '../../audio/stalled.ts';
import { keys } from './keys.ts';
import { ifConditionHolds, oldestBefore, type Db } from './table.ts';

/** The open audio jobs' list (sparse gsi2 on the jobs, keys.openAudioJob), read by key, never by Scan. */
export function dynamoStalledAudioJobs(db: Db): StalledAudioJobStore {
  const TableName = db.tableName;
  const write = (job: AudioJob, UpdateExpression: string, ConditionExpression: string, values: Record<string, unknown>) => {
    // DynamoDB refuses names or values an expression does not use, and empty maps.
    const names = Object.fromEntries((['status', 'error'] as const).filter((n) => `${UpdateExpression} ${ConditionExpression}`.includes(`#${n}`)).map((n) => [`#${n}`, n]));
    return ifConditionHolds(() =>
      db.client.send(
        new UpdateCommand({
          TableName,
          Key: keys.audioJob(job._id),
          UpdateExpression,
          ConditionExpression,
          ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
          ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
        }),
      ),
    );
  };
  /** Still open, not moved since the sweep read it, and no other sweep took it since. */
  const unmoved = (job: AudioJob) => ({
    condition: `updatedAt = :seen AND #status IN (:pending, :running) AND ${job.requeues === undefined ? 'attribute_not_exists(requeues)' : 'requeues = :requeues'}`,
    values: { ':seen': job.updatedAt, ':pending': 'pending', ':running': 'in_progress', ...(job.requeues === undefined ? {} : { ':requeues': job.requeues }) },
  });

  return {
    openBefore: (before, limit) => oldestBefore<AudioJob>(db, keys.openAudioJobsIndex, before, limit),

    async close(job) {
      await write(job, 'REMOVE gsi2pk, gsi2sk', 'attribute_exists(pk)', {});
    },

    async seenMoving(job, movedAt) {
      await write(job, 'SET gsi2sk = :sk', 'attribute_exists(gsi2pk)', { ':sk': keys.openAudioJob(movedAt, job._id).gsi2sk });
    },

    takeRequeue(job, at) {
      const { condition, values } = unmoved(job);
      return write(job, 'SET requeues = :next, requeuedAt = :at, gsi2sk = :sk', `attribute_exists(gsi2pk) AND ${condition}`, {
        ...values,
        ':next': (job.requeues ?? 0) + 1,
        ':at': at,
        ':sk': keys.openAudioJob(at, job._id).gsi2sk,
      });
    },

    giveUp(job, error, at) {
      const { condition, values } = unmoved(job);
      return write(job, 'SET #status = :failed, #error = :error, updatedAt = :at REMOVE gsi2pk, gsi2sk', condition, {
        ...values,
        ':failed': 'failed',
        ':error': error,
        ':at': at,
      });
    },
  };
}
