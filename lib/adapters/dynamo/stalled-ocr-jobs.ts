import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { OpenOcrJob, StalledOcrJobStore } from '../../ocr/jobs/stalled.ts';
import { setFields } from './book-text-item.ts';
import { bookTextRecords } from './book-text-writes.ts';
import { keys } from './keys.ts';
import { failedConditions, ifConditionHolds, oldestBefore, type Db } from './table.ts';
import { Update } from './update-expression.ts';

/** The open OCR jobs' list (sparse gsi2 on the job claims, keys.openOcrJob), read by key, never by Scan. */
export function dynamoStalledOcrJobs(db: Db): StalledOcrJobStore {
  const TableName = db.tableName;
  const { get, update } = bookTextRecords(db);
  /** The claim's requeue count is still the one the sweep read (absent before the first). */
  const sameCount = (job: OpenOcrJob) =>
    job.requeues === undefined ? { condition: 'attribute_not_exists(requeues)', values: {} } : { condition: 'requeues = :seen', values: { ':seen': job.requeues } };

  const close = async (job: OpenOcrJob) => {
    await ifConditionHolds(() =>
      db.client.send(new UpdateCommand({ TableName, Key: keys.ocrJob(job.jobId), UpdateExpression: 'REMOVE gsi2pk, gsi2sk', ConditionExpression: 'attribute_exists(pk)' })),
    );
  };

  return {
    openBefore: (before, limit) => oldestBefore<OpenOcrJob>(db, keys.openOcrJobsIndex, before, limit),

    bookText: get,

    close,

    async seenMoving(job, movedAt) {
      await ifConditionHolds(() =>
        db.client.send(
          new UpdateCommand({
            TableName,
            Key: keys.ocrJob(job.jobId),
            UpdateExpression: 'SET gsi2sk = :sk',
            ConditionExpression: 'attribute_exists(gsi2pk)', // not back into the list once closed
            ExpressionAttributeValues: { ':sk': keys.openOcrJob(movedAt, job.jobId).gsi2sk },
          }),
        ),
      );
    },

    async takeRequeue(job, seenUpdatedAt, at) {
      const count = sameCount(job);
      try {
        await db.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                // The job has not moved since the sweep read it, and has not ended.
                ConditionCheck: {
                  TableName,
                  Key: keys.bookText(job.bookTextId),
                  ConditionExpression: 'updatedAt = :seen AND #status IN (:pending, :processing)',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: { ':seen': seenUpdatedAt, ':pending': 'pending', ':processing': 'processing' },
                },
              },
              {
                Update: {
                  TableName,
                  Key: keys.ocrJob(job.jobId),
                  UpdateExpression: 'SET requeues = :next, requeuedAt = :at, gsi2sk = :sk',
                  ConditionExpression: `attribute_exists(gsi2pk) AND ${count.condition}`,
                  ExpressionAttributeValues: { ...count.values, ':next': (job.requeues ?? 0) + 1, ':at': at, ':sk': keys.openOcrJob(at, job.jobId).gsi2sk },
                },
              },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (failedConditions(error)?.length) return false;
        throw error;
      }
    },

    async giveUp(job, bookText, error, at) {
      const u = setFields(new Update(), bookText, { status: 'failed', error }).set(['updatedAt'], at);
      const unmoved = `${u.path(['updatedAt'])} = ${u.value(bookText.updatedAt)} AND ${u.path(['status'])} IN (${u.value('pending')}, ${u.value('processing')})`;
      const failed = await ifConditionHolds(() => update(bookText.bookTextId, u, unmoved));
      if (failed) await close(job);
      return failed;
    },
  };
}
