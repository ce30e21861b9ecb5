import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../../lib/adapters/dynamo/ensure-table.ts';
import { startDynamoDb } from './dynamodb.ts';
import { startS3 } from './s3.ts';
import { startSqs } from './sqs.ts';

export { peekQueue } from './sqs.ts';

export interface EmbeddedStoresOptions {
  dataDir: string;
  tableName: string;
  buckets: string[];
  queues: string[];
  /** Fixed ports; each one left out is picked free at start. */
  ports?: { dynamodb?: number; s3?: number; sqs?: number };
}

export interface EmbeddedStores {
  endpoints: { dynamodb: string; s3: string; sqs: string };
  queueUrls: Record<string, string>;
  stop(): Promise<void>;
}

/** DynamoDB Local, s3rver and local-aws-sqs, all keeping their state under `dataDir`, with the table ready. */
export async function startEmbeddedStores(opts: EmbeddedStoresOptions): Promise<EmbeddedStores> {
  const started = await Promise.allSettled([
    startDynamoDb({ dataDir: opts.dataDir, port: opts.ports?.dynamodb }),
    startS3({ dataDir: opts.dataDir, port: opts.ports?.s3, buckets: opts.buckets }),
    startSqs({ dataDir: opts.dataDir, port: opts.ports?.sqs, queues: opts.queues }),
  ]);
  const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async () => {
    const stopped = await Promise.allSettled(running.map((store) => store.stop()));
    const errors = stopped.flatMap((result) => (result.status === 'rejected' ? [result.reason as Error] : []));
    if (errors.length) throw new Error(`stopping the embedded stores: ${errors.map((e) => e.message).join('; ')}`);
  };

  const failures = started.flatMap((result) => (result.status === 'rejected' ? [result.reason as Error] : []));
  if (failures.length) {
    await stop().catch(() => undefined);
    throw new Error(`starting the embedded stores: ${failures.map((e) => e.message).join('; ')}`);
  }
  const [dynamodb, s3, sqs] = started.map((result) => (result as PromiseFulfilledResult<{ endpoint: string }>).value) as [
    Awaited<ReturnType<typeof startDynamoDb>>,
    Awaited<ReturnType<typeof startS3>>,
    Awaited<ReturnType<typeof startSqs>>,
  ];

  const client = new DynamoDBClient({
    endpoint: dynamodb.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await ensureTable(client, opts.tableName);
  } catch (error) {
    await stop().catch(() => undefined);
    throw new Error(`creating table ${opts.tableName}: ${(error as Error).message}`);
  } finally {
    client.destroy();
  }

  let stopping: Promise<void> | undefined;
  return {
    endpoints: { dynamodb: dynamodb.endpoint, s3: s3.endpoint, sqs: sqs.endpoint },
    queueUrls: sqs.queueUrls,
    stop: () => (stopping ??= stop()),
  };
}
