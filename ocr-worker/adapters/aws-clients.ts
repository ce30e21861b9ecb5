import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The worker's SDK clients. Region, credentials and endpoints come from the environment, as for the
 * service: locally `AWS_ENDPOINT_URL_DYNAMODB` / `_S3` point at the embedded stand-ins.
 */
export const workerDynamo = (): DynamoDBClient => new DynamoDBClient({});

export const workerDocumentClient = (client: DynamoDBClient = workerDynamo()): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

export const workerS3 = (): S3Client =>
  new S3Client({
    // The local stand-in serves buckets by path, not by virtual host.
    forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
