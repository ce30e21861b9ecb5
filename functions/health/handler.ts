import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetBucketLocationCommand, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { traced } from '../../lib/adapters/aws/tracing.ts';
import { config } from '../../lib/config.ts';
import { checkHealth, healthProbeKey, type Health, type HealthStore } from '../../lib/health.ts';
import { once } from '../../lib/lazy.ts';
import { logger } from '../../lib/log.ts';
import { healthContracts, healthReuseMs } from './contract.ts';
import { httpFunction } from '../_shared/http/handler.ts';
import { json } from '../_shared/http/responses.ts';

/**
 * `health` (issue 29): `GET /health`, one small read of each store, for monitors. Anyone may call it,
 * so it answers ok or failed per store and no more, and bounds its cost: clients of its own that make
 * one attempt with short timeouts (the shared ones retry), and one round of probes per 2 s per
 * instance, whatever the rate of requests. The same code runs locally, where the stores are the
 * embedded ones (the SDK's endpoints from the environment).
 */

/** One attempt, a second to connect and a second and a half to answer: a stuck store fails the probe, not the request. */
const quick = { maxAttempts: 1, requestHandler: { connectionTimeout: 1_000, requestTimeout: 1_500 } };

const clients = once(() => ({
  dynamodb: traced(new DynamoDBClient(quick)),
  s3: traced(new S3Client({ ...quick, forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3) })),
  sqs: traced(new SQSClient(quick)),
}));

const probes = (): Record<HealthStore, (signal: AbortSignal) => Promise<unknown>> => {
  const cfg = config();
  const { dynamodb, s3, sqs } = clients();
  const key = { pk: { S: healthProbeKey.pk }, sk: { S: healthProbeKey.sk } };
  return {
    table: (abortSignal) => dynamodb.send(new GetItemCommand({ TableName: cfg.tableName, Key: key, ProjectionExpression: 'pk' }), { abortSignal }),
    uploads: (abortSignal) => s3.send(new GetBucketLocationCommand({ Bucket: cfg.uploadsBucket }), { abortSignal }),
    audio: (abortSignal) => s3.send(new GetBucketLocationCommand({ Bucket: cfg.audioBucket }), { abortSignal }),
    ocrQueue: (abortSignal) => sqs.send(new GetQueueAttributesCommand({ QueueUrl: cfg.ocrQueueUrl, AttributeNames: ['QueueArn'] }), { abortSignal }),
    audioQueue: (abortSignal) => sqs.send(new GetQueueAttributesCommand({ QueueUrl: cfg.audioQueueUrl, AttributeNames: ['QueueArn'] }), { abortSignal }),
  };
};

/** Answers within this long of a round share it. */
let last: { at: number; health: Promise<Health> } | undefined;

function health(): Promise<Health> {
  const now = Date.now();
  if (!last || now - last.at >= healthReuseMs) {
    last = { at: now, health: checkHealth(probes(), (store, error) => logger.warn('health probe failed', { store, error: error as Error })) };
  }
  return last.health;
}

export const handler = httpFunction({
  name: 'health',
  contracts: healthContracts,
  handlers: {
    'GET /health': {
      run: async () => {
        const answer = await health();
        return json(answer.status === 'ok' ? 200 : 503, answer, { 'cache-control': 'no-store' });
      },
    },
  },
});
