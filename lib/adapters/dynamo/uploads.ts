import { DeleteCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { PendingUpload, UploadStore } from '../../ocr/jobs/presigned-upload.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { policies, retry } from '../../retry.ts';
import { failedConditions, ifConditionHolds, isConflictOnly, oldestBefore, record, type Db } from './table.ts';

/** A claimed upload's record is kept a day (a second claim is then told which job has it), then expires (table TTL). */
const keepClaimedSeconds = 24 * 60 * 60;

/**
 * Pending presigned uploads. While unclaimed an upload is counted in its user's `open` counter (the
 * cap, moved in the same transaction as the record) and listed in the sparse unclaimed index (gsi2,
 * oldest first) for the sweeper; it has no TTL then, since only the sweeper may end it (an expiry
 * would leave the object and the count behind).
 */
export function dynamoUploadStore(db: Db): UploadStore {
  const TableName = db.tableName;
  const counter = (userId: string, by: 1 | -1, cap?: number) => ({
    Update: {
      TableName,
      Key: keys.openUploads(userId),
      UpdateExpression: 'ADD #open :by',
      ...(cap === undefined ? {} : { ConditionExpression: 'attribute_not_exists(#open) OR #open < :cap' }),
      ExpressionAttributeNames: { '#open': 'open' },
      ExpressionAttributeValues: { ':by': by, ...(cap === undefined ? {} : { ':cap': cap }) },
    },
  });
  /** A transaction: false when a condition failed; one that only collided with another in flight is sent again. */
  const transact = (items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>) =>
    retry(
      async () => {
        try {
          await db.client.send(new TransactWriteCommand({ TransactItems: items }));
          return true;
        } catch (error) {
          if (failedConditions(error)?.length) return false;
          throw error;
        }
      },
      { ...policies.contention, attempts: 11, retryable: isConflictOnly },
    );
  return {
    put: (upload, maxOpen) =>
      transact([
        counter(upload.userId, 1, maxOpen),
        {
          Put: {
            TableName,
            Item: entities.upload.item(upload),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ]),

    async get(uploadId) {
      const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.upload(uploadId), ConsistentRead: true }));
      return Item && !Item.retired ? record<PendingUpload>(Item) : undefined;
    },

    claim: (upload, jobId, at) =>
      transact([
        {
          Update: {
            TableName,
            Key: keys.upload(upload.uploadId),
            UpdateExpression: 'SET jobId = :job, #ttl = :ttl REMOVE gsi2pk, gsi2sk',
            ConditionExpression: 'attribute_exists(pk) AND jobId = :none AND attribute_not_exists(retired)',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':job': jobId, ':none': null, ':ttl': Math.floor(at.getTime() / 1000) + keepClaimedSeconds },
          },
        },
        counter(upload.userId, -1),
      ]),

    async release(upload, jobId) {
      const index = entities.upload.indexes(upload);
      await transact([
        {
          Update: {
            TableName,
            Key: keys.upload(upload.uploadId),
            UpdateExpression: 'SET jobId = :none, gsi2pk = :gsi2pk, gsi2sk = :gsi2sk REMOVE #ttl',
            ConditionExpression: 'jobId = :job',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':job': jobId, ':none': null, ':gsi2pk': index.gsi2pk, ':gsi2sk': index.gsi2sk },
          },
        },
        counter(upload.userId, 1),
      ]);
    },

    unclaimedBefore: (before, limit) => oldestBefore<PendingUpload>(db, keys.unclaimedUploadsIndex, before, limit),

    async retire(upload) {
      const retired = await transact([
        {
          Update: {
            TableName,
            Key: keys.upload(upload.uploadId),
            UpdateExpression: 'SET retired = :yes',
            ConditionExpression: 'attribute_exists(pk) AND jobId = :none AND attribute_not_exists(retired)',
            ExpressionAttributeValues: { ':yes': true, ':none': null },
          },
        },
        counter(upload.userId, -1),
      ]);
      if (retired) return true;
      // Retired by an earlier sweep that stopped before removing it: finish the removal.
      const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.upload(upload.uploadId), ConsistentRead: true }));
      return Boolean(Item?.retired);
    },

    async remove(uploadId) {
      await ifConditionHolds(() =>
        db.client.send(new DeleteCommand({ TableName, Key: keys.upload(uploadId), ConditionExpression: 'retired = :yes', ExpressionAttributeValues: { ':yes': true } })),
      );
    },
  };
}
