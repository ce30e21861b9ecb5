import { SQSClient } from '@aws-sdk/client-sqs';
import { traced } from './tracing.ts';

let client: SQSClient | undefined;

/** The process's SQS client (see clients.ts), traced. */
export const sqsClient = (): SQSClient => (client ??= traced(new SQSClient({})));
