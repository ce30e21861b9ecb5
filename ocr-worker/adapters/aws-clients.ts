import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The worker's SDK clients. Region, credentials and endpoints come from the environment, as for the
 * service: locally `AWS_ENDPOINT_URL_DYNAMODB` / `_S3` point at the embedded stand-ins.
 */
/**
 * Every call has a deadline: a store that stops answering fails the call (the SDK retries it, then
 * the task fails and its queue delivers it again), never holds a worker for ever. 30 s without a byte
 * is far past a range read's or a ledger write's time.
 */
const deadlines = { requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 } } as const;

export const workerDynamo = (): DynamoDBClient => new DynamoDBClient({ ...deadlines });

export const workerDocumentClient = (client: DynamoDBClient = workerDynamo()): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

export const workerS3 = (): S3Client =>
  new S3Client({
    ...deadlines,
    // The local stand-in serves buckets by path, not by virtual host.
    forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
