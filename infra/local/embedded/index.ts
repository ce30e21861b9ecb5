import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ensureTable } from '../../../lib/adapters/dynamo/ensure-table.ts';
import { startDynamoDb } from './dynamodb.ts';
import { forwardNotifications, type BucketNotification } from './notifications.ts';
import { startS3 } from './s3.ts';
import { startSqs } from './sqs.ts';

export { peekQueue } from './sqs.ts';
export type { BucketNotification } from './notifications.ts';

export interface EmbeddedStoresOptions {
  dataDir: string;
  tableName: string;
  buckets: string[];
  queues: string[];
  /** Fixed ports; each one left out is picked free at start. */
  ports?: { dynamodb?: number; s3?: number; sqs?: number };
  /** S3 event notifications to queues, as a bucket's notification configuration sends them on AWS. */
  notifications?: readonly BucketNotification[];
  /** Told when a child store (DynamoDB Local, the S3 stand-in) was restarted, or died for good (supervise.ts). */
  onRestart?(store: ChildStore, pid: number): void;
  onGiveUp?(reason: string): void;
}

/** The stores that run as child processes; the SQS stand-in runs in this process. */
export type ChildStore = 'dynamodb' | 's3';

export interface EmbeddedStores {
  endpoints: { dynamodb: string; s3: string; sqs: string };
  queueUrls: Record<string, string>;
  /** The child stores' pids now. */
  pids(): Record<ChildStore, number>;
  stop(): Promise<void>;
}

/** DynamoDB Local, s3rver and local-aws-sqs, all keeping their state under `dataDir`, with the table ready. */
export async function startEmbeddedStores(opts: EmbeddedStoresOptions): Promise<EmbeddedStores> {
  for (const n of opts.notifications ?? []) {
    if (!opts.queues.includes(n.queue) || !opts.buckets.includes(n.bucket)) throw new Error(`a notification names a bucket or queue the stores do not have: ${n.bucket} -> ${n.queue}`);
  }
  const started = await Promise.allSettled([
    startDynamoDb({ dataDir: opts.dataDir, port: opts.ports?.dynamodb, onRestart: (pid) => opts.onRestart?.('dynamodb', pid), onGiveUp: opts.onGiveUp }),
    startS3({ dataDir: opts.dataDir, port: opts.ports?.s3, buckets: opts.buckets, onRestart: (pid) => opts.onRestart?.('s3', pid), onGiveUp: opts.onGiveUp }),
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

  const routes = (opts.notifications ?? []).map((n) => ({ bucket: n.bucket, suffix: n.suffix, queueUrl: sqs.queueUrls[n.queue]! }));
  const sqsClient = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const notifications = forwardNotifications(sqsClient, routes);
  if (routes.length > 0) s3.onChange((change) => notifications.forward(change));

  let stopping: Promise<void> | undefined;
  return {
    endpoints: { dynamodb: dynamodb.endpoint, s3: s3.endpoint, sqs: sqs.endpoint },
    queueUrls: sqs.queueUrls,
    pids: () => ({ dynamodb: dynamodb.pid(), s3: s3.pid() }),
    stop: () =>
      (stopping ??= (async () => {
        // The announcements of the last changes first, while the queue still takes them.
        await notifications.flush(2_000);
        notifications.stop();
        sqsClient.destroy();
        await stop();
      })()),
  };
}
