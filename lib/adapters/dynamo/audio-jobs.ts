import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AudioJob, AudioJobStore } from '../../audio/audio-job.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { policies, retry } from '../../retry.ts';
import { failedConditions, ifConditionHolds, isContention, queryAll, record, type Db } from './table.ts';

/** Chunk markers outlive any redelivery of their message (SQS keeps messages at most 14 days). */
const markerSeconds = 30 * 24 * 3600;

export function dynamoAudioJobStore(db: Db): AudioJobStore {
  const TableName = db.tableName;
  const get = async (jobId: string) => {
    const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.audioJob(jobId), ConsistentRead: true }));
    return Item ? record<AudioJob>(Item) : undefined;
  };
  const update = (jobId: string, expression: string, condition: string, values: Record<string, unknown>) =>
    ifConditionHolds(() =>
      db.client.send(
        new UpdateCommand({
          TableName,
          Key: keys.audioJob(jobId),
          UpdateExpression: expression,
          ConditionExpression: condition,
          // DynamoDB refuses names an expression does not use.
          ExpressionAttributeNames: Object.fromEntries(
            (['status', 'error'] as const).filter((n) => `${expression} ${condition}`.includes(`#${n}`)).map((n) => [`#${n}`, n]),
          ),
          ExpressionAttributeValues: values,
        }),
      ),
    );

  return {
    async create(job) {
      await db.client.send(
        new PutCommand({
          TableName,
          Item: entities.audioJob.item(job),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    },

    get,

    list: () =>
      queryAll<AudioJob>(db, {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.audioJobListIndex },
        ScanIndexForward: false,
      }),

    async start(jobId, totalLines, totalChunks, at) {
      await update(
        jobId,
        'SET #status = :running, totalLines = :lines, totalChunks = :chunks, doneLines = if_not_exists(doneLines, :zero), updatedAt = :at',
        '#status IN (:pending, :running)',
        { ':running': 'in_progress', ':pending': 'pending', ':lines': totalLines, ':chunks': totalChunks, ':zero': 0, ':at': at },
      );
    },

    async countChunk(jobId, chunk, lines, at) {
      const marker = entities.audioJobChunk.item({ jobId, chunk, lines, ttl: Math.floor(Date.parse(at) / 1000) + markerSeconds });
      // Chunks finishing together write the same job item: a transaction conflict is retried, not lost.
      const counted = await retry(async () => {
        try {
          await db.client.send(
            new TransactWriteCommand({
              TransactItems: [
                { Put: { TableName, Item: marker, ConditionExpression: 'attribute_not_exists(pk)' } },
                {
                  Update: {
                    TableName,
                    Key: keys.audioJob(jobId),
                    UpdateExpression: 'ADD doneLines :lines SET updatedAt = :at',
                    ConditionExpression: 'attribute_exists(pk)',
                    ExpressionAttributeValues: { ':lines': lines, ':at': at },
                  },
                },
              ],
            }),
          );
          return true;
        } catch (error) {
          if (failedConditions(error)?.includes(0)) return false;
          throw error;
        }
      }, { ...policies.contention, retryable: isContention });
      return counted ? get(jobId) : undefined;
    },

    async countedChunks(jobId) {
      const markers = await queryAll<{ chunk: number }>(db, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :chunk)',
        ExpressionAttributeValues: { ':pk': keys.audioJob(jobId).pk, ':chunk': 'CHUNK#' },
        ProjectionExpression: 'chunk',
        ConsistentRead: true,
      });
      return new Set(markers.map((m) => m.chunk));
    },

    async setProgress(jobId, progress, at) {
      await update(jobId, 'SET progress = :p, updatedAt = :at', '#status = :running AND progress < :p', {
        ':p': progress,
        ':at': at,
        ':running': 'in_progress',
      });
    },

    finish: (jobId, outcome, at) =>
      outcome.status === 'completed'
        ? update(jobId, 'SET #status = :done, progress = :full, updatedAt = :at REMOVE gsi2pk, gsi2sk', '#status = :running', {
            ':done': 'completed',
            ':full': 100,
            ':at': at,
            ':running': 'in_progress',
          })
        : update(jobId, 'SET #status = :failed, #error = :error, updatedAt = :at REMOVE gsi2pk, gsi2sk', '#status IN (:pending, :running)', {
            ':failed': 'failed',
            ':error': outcome.error,
            ':at': at,
            ':pending': 'pending',
            ':running': 'in_progress',
          }),
  };
}
