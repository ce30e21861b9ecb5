import { SQSClient } from '@aws-sdk/client-sqs';

let client: SQSClient | undefined;

/** The process's SQS client (see clients.ts). */
export const sqsClient = (): SQSClient => (client ??= new SQSClient({}));
