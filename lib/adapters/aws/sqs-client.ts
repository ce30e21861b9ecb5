import { SQSClient } from '@aws-sdk/client-sqs';
import { once } from '../../lazy.ts';
import { traced } from './tracing.ts';

/** The process's SQS client (see clients.ts), traced. */
export const sqsClient = once(() => traced(new SQSClient({})));
