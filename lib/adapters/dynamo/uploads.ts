import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PendingUpload, UploadStore } from '../../ocr/presigned-upload.ts';
import { keys } from './keys.ts';
import { ifConditionHolds, record, type Db } from './table.ts';

/** Pending presigned uploads expire (table TTL) a day after their URL does. */
const keepSeconds = 24 * 60 * 60;

export function dynamoUploadStore(db: Db): UploadStore {
  const TableName = db.tableName;
  return {
    async put(upload) {
      const ttl = Math.floor(new Date(upload.expiresAt).getTime() / 1000) + keepSeconds;
      await db.client.send(new PutCommand({ TableName, Item: { ...keys.upload(upload.uploadId), entity: 'Upload', ttl, ...upload } }));
    },
    async get(uploadId) {
      const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.upload(uploadId), ConsistentRead: true }));
      return Item ? record<PendingUpload>(Item) : undefined;
    },
    claim: (uploadId, jobId) =>
      ifConditionHolds(() =>
        db.client.send(
          new UpdateCommand({
            TableName,
            Key: keys.upload(uploadId),
            UpdateExpression: 'SET jobId = :job',
            ConditionExpression: 'attribute_exists(pk) AND jobId = :none',
            ExpressionAttributeValues: { ':job': jobId, ':none': null },
          }),
        ),
      ),
    async release(uploadId, jobId) {
      await ifConditionHolds(() =>
        db.client.send(
          new UpdateCommand({
            TableName,
            Key: keys.upload(uploadId),
            UpdateExpression: 'SET jobId = :none',
            ConditionExpression: 'jobId = :job',
            ExpressionAttributeValues: { ':job': jobId, ':none': null },
          }),
        ),
      );
    },
  };
}
