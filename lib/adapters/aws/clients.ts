import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * SDK clients, one of each per process (created on first use, reused across invocations). Region,
 * credentials and endpoints come from the environment: on AWS the Lambda's; locally the SDK reads
 * `AWS_ENDPOINT_URL_DYNAMODB` / `_S3` / `_SQS`, which point at the embedded stand-ins.
 */
let cache: { dynamodb?: DynamoDBClient; dynamo?: DynamoDBDocumentClient; s3?: S3Client; sqs?: SQSClient } = {};

export function dynamoDocumentClient(): DynamoDBDocumentClient {
  return (cache.dynamo ??= DynamoDBDocumentClient.from((cache.dynamodb = new DynamoDBClient({})), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  }));
}

export function s3Client(): S3Client {
  return (cache.s3 ??= new S3Client({
    // The local stand-in serves buckets by path, not by virtual host.
    forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3),
    // Otherwise presigned URLs carry a checksum of an empty body and uploads send trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  }));
}

export function sqsClient(): SQSClient {
  return (cache.sqs ??= new SQSClient({}));
}

/** Drops the cached clients (closing their sockets), so the next call reads the environment again. */
export function resetClients(): void {
  cache.dynamodb?.destroy(); // the document client's own destroy() does nothing
  cache.s3?.destroy();
  cache.sqs?.destroy();
  cache = {};
}
