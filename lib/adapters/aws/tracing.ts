import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * X-Ray tracing (Powertools Tracer), one per process. Powertools turns it on only inside Lambda
 * (`AWS_EXECUTION_ENV` set, not SAM or Amplify mocks) and off whenever `POWERTOOLS_TRACE_ENABLED=false`,
 * which the local runtime and the tests set explicitly: with tracing off, every call below is a no-op
 * and nothing looks for an X-Ray daemon. On Lambda the function also needs active tracing (the stack's
 * setting) for segments to be sampled and sent.
 */
export const tracer = new Tracer({ serviceName: 'maktaba' });

/** An SDK v3 client whose calls become X-Ray subsegments (the client itself when tracing is off). */
export const traced = <Client>(client: Client): Client => tracer.captureAWSv3Client(client);
