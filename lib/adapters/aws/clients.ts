import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { once } from '../../lazy.ts';
import { traced } from './tracing.ts';

/**
 * SDK clients, one of each per process (created on first use, reused across invocations). Region,
 * credentials and endpoints come from the environment: on AWS the Lambda's; locally the SDK reads
 * `AWS_ENDPOINT_URL_DYNAMODB` / `_S3` / `_SQS`, which point at the embedded stand-ins. Each client has
 * its own module so that a function loads only the SDKs its routes reach (see functions/_shared/buckets.ts).
 * Each client is traced (tracing.ts): the base client, since the DocumentClient sends through it.
 */
export const dynamoDocumentClient = once(() =>
  DynamoDBDocumentClient.from(traced(new DynamoDBClient({})), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  }),
);
