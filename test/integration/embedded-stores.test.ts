import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dynamoDocumentClient } from '../../lib/adapters/aws/clients.ts';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { sqsClient } from '../../lib/adapters/aws/sqs-client.ts';
import { catalogueProjection, tableSchema } from '../../lib/adapters/dynamo/schema.ts';
import { ensureTable } from '../../lib/adapters/dynamo/ensure-table.ts';
import { failedConditions } from '../../lib/adapters/dynamo/table.ts';
import type { S3EventRecord } from '../../lib/adapters/s3/events.ts';
import { peekQueue, startEmbeddedStores, type EmbeddedStores } from '../../infra/local/embedded/index.ts';
import type { EmbeddedEnv } from '../setup/embedded-stack.ts';

const env = process.env as unknown as EmbeddedEnv;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the global setup', () => {
  it('gives every worker the embedded stores through process.env and inject()', async () => {
    const names = [
      'AWS_ENDPOINT_URL_DYNAMODB',
      'AWS_ENDPOINT_URL_S3',
      'AWS_ENDPOINT_URL_SQS',
      'AWS_REGION',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'TABLE_NAME',
      'UPLOADS_BUCKET',
      'AUDIO_BUCKET',
      'OCR_QUEUE_URL',
      'AUDIO_QUEUE_URL',
      'ADAPTERS',
      'AUTH_JWT_SECRET',
    ] as const;
    for (const name of names) {
      expect(process.env[name], name).toBeTruthy();
      expect(inject(name), name).toBe(process.env[name]);
    }
    expect(env.AUTH_JWT_SECRET).toMatch(/^[0-9a-f]{64,}$/);
    expect(env.OCR_QUEUE_URL).toMatch(/\/ocr-jobs$/);
    expect(env.AUDIO_QUEUE_URL).toMatch(/\/audio-jobs$/);
  });

  it('is what the SDK clients reach with no endpoint configured (AWS_ENDPOINT_URL_<SERVICE>)', async () => {
    const tables = await dynamoDocumentClient().send(new ListTablesCommand({}));
    expect(tables.TableNames).toContain(env.TABLE_NAME);
    await s3Client().send(new ListObjectsV2Command({ Bucket: env.AUDIO_BUCKET }));
    await sqsClient().send(new GetQueueAttributesCommand({ QueueUrl: env.OCR_QUEUE_URL, AttributeNames: ['All'] }));
  });
});

describe('embedded DynamoDB', () => {
  const db = () => dynamoDocumentClient();
  const TableName = () => env.TABLE_NAME;

  it('puts, gets and queries a GSI', async () => {
    const id = unique('item');
    await db().send(
      new PutCommand({ TableName: TableName(), Item: { pk: id, sk: 'A', gsi1pk: `by-${id}`, gsi1sk: '2', n: 1, gone: undefined } }),
    );
    await db().send(new PutCommand({ TableName: TableName(), Item: { pk: id, sk: 'B', gsi1pk: `by-${id}`, gsi1sk: '1', n: 2 } }));
    const got = await db().send(new GetCommand({ TableName: TableName(), Key: { pk: id, sk: 'A' } }));
    expect(got.Item).toEqual({ pk: id, sk: 'A', gsi1pk: `by-${id}`, gsi1sk: '2', n: 1 });
    const byIndex = await db().send(
      new QueryCommand({
        TableName: TableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': `by-${id}` },
      }),
    );
    expect(byIndex.Items?.map((item) => item.sk)).toEqual(['B', 'A']);
  });

  it('cancels a whole transaction when one condition fails', async () => {
    const id = unique('tx');
    await db().send(new PutCommand({ TableName: TableName(), Item: { pk: id, sk: 'taken' } }));
    const attempt = db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: TableName(), Item: { pk: id, sk: 'new' } } },
          { Put: { TableName: TableName(), Item: { pk: id, sk: 'taken' }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
    const error = await attempt.then(() => undefined, (e: unknown) => e);
    expect(failedConditions(error)).toEqual([1]);
    const untouched = await db().send(new GetCommand({ TableName: TableName(), Key: { pk: id, sk: 'new' } }));
    expect(untouched.Item).toBeUndefined();
  });

  it('ensureTable is idempotent, survives a race, and adds a missing index and a missing stream', async () => {
    const client = new DynamoDBClient({});
    try {
      await ensureTable(client, env.TABLE_NAME);
      const racing = unique('race');
      await Promise.all([ensureTable(client, racing), ensureTable(client, racing)]);
      const indexes = async (name: string) =>
        (await client.send(new DescribeTableCommand({ TableName: name }))).Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName).sort();
      const everyIndex = tableSchema.indexes.map((i) => i.name).sort();
      expect(await indexes(racing)).toEqual(everyIndex);
      const stream = async (name: string) => (await client.send(new DescribeTableCommand({ TableName: name }))).Table?.StreamSpecification;
      // The search indexer reads every change with both images (infra/local/stream-poller.ts).
      expect(await stream(env.TABLE_NAME)).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
      expect(await stream(racing)).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });

      const partial = unique('partial');
      await client.send(
        new CreateTableCommand({
          TableName: partial,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: ['pk', 'sk', 'gsi1pk', 'gsi1sk'].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: [
            {
              IndexName: 'gsi1',
              KeySchema: [
                { AttributeName: 'gsi1pk', KeyType: 'HASH' },
                { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            },
          ],
        }),
      );
      await ensureTable(client, partial);
      expect(await indexes(partial)).toEqual(everyIndex);
      // A table from before the stream (an old DATA_DIR) gets it.
      expect(await stream(partial)).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
      // A stream of another view type is replaced.
      await client.send(new UpdateTableCommand({ TableName: partial, StreamSpecification: { StreamEnabled: false } }));
      await client.send(new UpdateTableCommand({ TableName: partial, StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' } }));
      await ensureTable(client, partial);
      expect(await stream(partial)).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
      // The catalogue indexes carry only what a listing filters on, not the books' texts.
      const described = (await client.send(new DescribeTableCommand({ TableName: partial }))).Table?.GlobalSecondaryIndexes ?? [];
      expect(described.find((i) => i.IndexName === 'catalogueByDate')?.Projection).toEqual({
        ProjectionType: 'INCLUDE',
        NonKeyAttributes: [...catalogueProjection],
      });
      await Promise.all([racing, partial].map((name) => client.send(new DeleteTableCommand({ TableName: name }))));
    } finally {
      client.destroy();
    }
  });
});

describe('embedded S3', () => {
  const s3 = () => s3Client();

  it('puts and gets an object', async () => {
    const Key = `${unique('obj')}/hello.txt`;
    await s3().send(new PutObjectCommand({ Bucket: env.UPLOADS_BUCKET, Key, Body: 'salaam', ContentType: 'text/plain' }));
    const got = await s3().send(new GetObjectCommand({ Bucket: env.UPLOADS_BUCKET, Key }));
    expect(got.ContentType).toBe('text/plain');
    expect(await got.Body?.transformToString()).toBe('salaam');
  });

  it('pages a listing with MaxKeys 1 and ContinuationToken', async () => {
    const Prefix = `${unique('page')}/`;
    const keys = ['a', 'b', 'c'].map((k) => `${Prefix}${k}`);
    for (const Key of keys) await s3().send(new PutObjectCommand({ Bucket: env.UPLOADS_BUCKET, Key, Body: Key }));
    const seen: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await s3().send(new ListObjectsV2Command({ Bucket: env.UPLOADS_BUCKET, Prefix, MaxKeys: 1, ContinuationToken }));
      expect(page.Contents?.length).toBe(1);
      seen.push(...(page.Contents ?? []).map((o) => o.Key!));
      ContinuationToken = page.NextContinuationToken;
    } while (ContinuationToken);
    expect(seen).toEqual(keys);
  });

  it('serves a presigned GET to plain fetch, and refuses it once expired', async () => {
    const Key = `${unique('signed')}.mp3`;
    await s3().send(new PutObjectCommand({ Bucket: env.AUDIO_BUCKET, Key, Body: 'audio bytes', ContentType: 'audio/mpeg' }));
    const url = await getSignedUrl(s3(), new GetObjectCommand({ Bucket: env.AUDIO_BUCKET, Key }), { expiresIn: 60 });
    expect(url.startsWith(`${env.AWS_ENDPOINT_URL_S3}/${env.AUDIO_BUCKET}/`)).toBe(true);
    expect(url).not.toContain('x-amz-checksum');
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('audio bytes');

    const shortLived = await getSignedUrl(s3(), new GetObjectCommand({ Bucket: env.AUDIO_BUCKET, Key }), { expiresIn: 1 });
    await pause(2_100);
    const expired = await fetch(shortLived);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
  });

  it('refuses what carries no signature, as S3 does, and serves the same with one', async () => {
    const Key = `${unique('private')}/scan.pdf`;
    await s3().send(new PutObjectCommand({ Bucket: env.UPLOADS_BUCKET, Key, Body: '%PDF-1.4', ContentType: 'application/pdf' }));
    for (const url of [
      `${env.AWS_ENDPOINT_URL_S3}/${env.UPLOADS_BUCKET}/${Key}`,
      `${env.AWS_ENDPOINT_URL_S3}/${env.UPLOADS_BUCKET}?list-type=2`,
      `${env.AWS_ENDPOINT_URL_S3}/${env.UPLOADS_BUCKET}`,
      `${env.AWS_ENDPOINT_URL_S3}/`,
    ]) {
      const unsigned = await fetch(url);
      expect(unsigned.status, url).toBe(403);
      expect(await unsigned.text(), url).toContain('<Code>AccessDenied</Code>');
    }
    for (const method of ['PUT', 'DELETE']) {
      expect((await fetch(`${env.AWS_ENDPOINT_URL_S3}/${env.UPLOADS_BUCKET}/${Key}`, { method, body: method === 'PUT' ? 'other' : undefined })).status, method).toBe(403);
    }
    const got = await s3().send(new GetObjectCommand({ Bucket: env.UPLOADS_BUCKET, Key }));
    expect(await got.Body?.transformToString()).toBe('%PDF-1.4');
    const listed = await s3().send(new ListObjectsV2Command({ Bucket: env.UPLOADS_BUCKET, Prefix: Key }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual([Key]);
  });
});

/** Whether a TCP connection to the address is accepted within 2 s. */
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolveConnect) => {
    const socket = connect({ host, port });
    socket.setTimeout(2_000, () => (socket.destroy(), resolveConnect(false)));
    socket.once('connect', () => (socket.destroy(), resolveConnect(true)));
    socket.once('error', () => resolveConnect(false));
  });
}

/** An IPv4 address of this machine other than loopback, if it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe('the embedded stores listen on loopback only', () => {
  const ports = () => ({
    DynamoDB: Number(new URL(env.AWS_ENDPOINT_URL_DYNAMODB).port),
    S3: Number(new URL(env.AWS_ENDPOINT_URL_S3).port),
    SQS: Number(new URL(env.AWS_ENDPOINT_URL_SQS).port),
  });

  it('accepts connections on 127.0.0.1', async () => {
    for (const [store, port] of Object.entries(ports())) expect(await connects('127.0.0.1', port), store).toBe(true);
  });

  it.skipIf(!outsideAddress)(`refuses them on this machine's other address (${outsideAddress ?? 'none here'})`, async () => {
    for (const [store, port] of Object.entries(ports())) expect(await connects(outsideAddress!, port), store).toBe(false);
  });
});

describe('embedded SQS', () => {
  const sqs = () => sqsClient();

  it('sends, receives and deletes, with a dead-letter queue after 5 receives', async () => {
    // The dead-letter queue: other test files may be consuming the job queues themselves.
    const QueueUrl = `${env.OCR_QUEUE_URL}-dlq`;
    const body = JSON.stringify({ job: unique('job') });
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
    const received = await sqs().send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    const message = received.Messages?.find((m) => m.Body === body);
    expect(message).toBeDefined();
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message!.ReceiptHandle! }));
    expect(await peekQueue(env.AWS_ENDPOINT_URL_SQS, QueueUrl)).not.toContain(body);

    for (const queue of [env.OCR_QUEUE_URL, env.AUDIO_QUEUE_URL]) {
      const attributes = await sqs().send(new GetQueueAttributesCommand({ QueueUrl: queue, AttributeNames: ['RedrivePolicy'] }));
      expect(JSON.parse(attributes.Attributes!.RedrivePolicy!)).toEqual({
        deadLetterTargetArn: expect.stringMatching(new RegExp(`:${queue.split('/').pop()}-dlq$`)),
        maxReceiveCount: 5,
      });
    }
  });

  it('refuses to peek at a queue it does not have', async () => {
    await expect(peekQueue(env.AWS_ENDPOINT_URL_SQS, `${env.AWS_ENDPOINT_URL_SQS}/000000000000/nope`)).rejects.toThrow(/does not exist/);
  });
});

describe('a second stack in its own directory', () => {
  let dataDir: string;
  let a: EmbeddedStores;
  const running: EmbeddedStores[] = [];
  const destroyable: { destroy(): void }[] = [];

  const start = async () => {
    const stores = await startEmbeddedStores({
      dataDir,
      tableName: env.TABLE_NAME,
      buckets: ['persist-bucket'],
      queues: ['jobs', 'peeks', 'events'],
      notifications: [{ bucket: 'persist-bucket', queue: 'events', suffix: '.mp3' }],
    });
    running.push(stores);
    return stores;
  };
  const clients = (stores: EmbeddedStores) => {
    const common = { region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } };
    const dynamodb = new DynamoDBClient({ ...common, endpoint: stores.endpoints.dynamodb });
    const s3 = new S3Client({ ...common, endpoint: stores.endpoints.s3, forcePathStyle: true });
    const sqs = new SQSClient({ ...common, endpoint: stores.endpoints.sqs });
    destroyable.push(dynamodb, s3, sqs);
    return { db: DynamoDBDocumentClient.from(dynamodb), s3, sqs };
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'maktaba-embedded-'));
    a = await start();
  }, 60_000);

  afterAll(async () => {
    for (const client of destroyable) client.destroy();
    await Promise.allSettled(running.map((stores) => stores.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs beside the global stack on other free ports, with its own state', async () => {
    const global = [env.AWS_ENDPOINT_URL_DYNAMODB, env.AWS_ENDPOINT_URL_S3, env.AWS_ENDPOINT_URL_SQS];
    expect(new Set([...Object.values(a.endpoints), ...global]).size).toBe(6);
    const id = unique('only-here');
    await clients(a).db.send(new PutCommand({ TableName: env.TABLE_NAME, Item: { pk: id, sk: 'x' } }));
    const inGlobal = await dynamoDocumentClient().send(new GetCommand({ TableName: env.TABLE_NAME, Key: { pk: id, sk: 'x' } }));
    expect(inGlobal.Item).toBeUndefined();
  });

  it('peeks at waiting messages, oldest first, without receiving them', async () => {
    const { sqs } = clients(a);
    const QueueUrl = a.queueUrls.peeks!;
    const peek = () => peekQueue(a.endpoints.sqs, QueueUrl);
    const bodies = Array.from({ length: 12 }, (_, i) => `message ${i}`);
    for (const MessageBody of bodies) await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody }));
    // More than 10 messages, and more peeks than the redrive limit: a receive-based peek would
    // have returned 10 at most and moved them all to the dead-letter queue.
    for (let i = 0; i < 6; i++) expect(await peek()).toEqual(bodies);
    expect(await peekQueue(a.endpoints.sqs, a.queueUrls['peeks-dlq']!)).toEqual([]);

    // AttributeNames, not MessageSystemAttributeNames: local-aws-sqs knows only the older parameter.
    const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1, VisibilityTimeout: 30, AttributeNames: ['All'] }));
    expect(first.Messages?.[0]?.Body).toBe(bodies[0]);
    expect(first.Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('1');
    expect(await peek()).toEqual(bodies.slice(1)); // in flight: no longer waiting
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: first.Messages![0]!.ReceiptHandle!, VisibilityTimeout: 0 }));
    await pause(50);
    expect(await peek()).toEqual(bodies); // back in its place
  });

  it('answers a long poll as soon as a message arrives, like SQS', async () => {
    const { sqs } = clients(a);
    const QueueUrl = a.queueUrls['jobs-dlq']!;
    const started = Date.now();
    setTimeout(() => void sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'late' })), 300);
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 10 }));
    expect(got.Messages?.map((m) => m.Body)).toEqual(['late']);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('announces every object stored in or removed from a notified bucket on its queue, as S3 does', async () => {
    const { s3 } = clients(a);
    const Bucket = 'persist-bucket';
    const key = (name: string) => `events/${name} 1.mp3`;
    await s3.send(new PutObjectCommand({ Bucket, Key: key('put'), Body: 'mp3' }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'events/cover.png', Body: 'png' })); // not the suffix: not announced
    await s3.send(new CopyObjectCommand({ Bucket, Key: key('copy'), CopySource: encodeURI(`${Bucket}/${key('put')}`) }));
    const post = await createPresignedPost(s3, { Bucket, Key: key('post'), Expires: 60 });
    const form = new FormData();
    for (const [name, value] of Object.entries(post.fields)) form.append(name, value);
    form.append('file', new Blob(['mp3']));
    expect((await fetch(post.url, { method: 'POST', body: form })).status).toBe(204);
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: key('multipart') }));
    const part = await s3.send(new UploadPartCommand({ Bucket, Key: key('multipart'), UploadId, PartNumber: 1, Body: 'mp3' }));
    await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: key('multipart'), UploadId, MultipartUpload: { Parts: [{ ETag: part.ETag, PartNumber: 1 }] } }));
    await s3.send(new DeleteObjectCommand({ Bucket, Key: key('put') }));
    // DeleteObjects, which s3rver itself does not announce.
    await s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: [{ Key: key('copy') }, { Key: key('post') }] } }));

    const expected = [
      ['ObjectCreated:Put', 'put'],
      ['ObjectCreated:Copy', 'copy'],
      ['ObjectCreated:Post', 'post'],
      ['ObjectCreated:Post', 'multipart'], // s3rver names a completed multipart upload so
      ['ObjectRemoved:Delete', 'put'],
      ['ObjectRemoved:Delete', 'copy'],
      ['ObjectRemoved:Delete', 'post'],
    ].map(([eventName, name]) => `${eventName} ${Bucket} events/${name}+1.mp3`);
    let announced: string[] = [];
    for (let tries = 0; tries < 50 && announced.length < expected.length; tries++) {
      if (tries > 0) await pause(100);
      announced = (await peekQueue(a.endpoints.sqs, a.queueUrls.events!)).map((body) => {
        const [record] = (JSON.parse(body) as { Records: S3EventRecord[] }).Records;
        return `${record!.eventName} ${record!.s3.bucket.name} ${record!.s3.object.key}`;
      });
    }
    expect(announced.sort()).toEqual(expected.sort());
    const [put] = (await peekQueue(a.endpoints.sqs, a.queueUrls.events!)).map((body) => (JSON.parse(body) as { Records: S3EventRecord[] }).Records[0]!);
    expect(put).toMatchObject({ eventSource: 'aws:s3', eventTime: expect.any(String), s3: { object: { size: 3, sequencer: expect.stringMatching(/^[0-9A-F]+$/) } } });
  });

  it('refuses a notification to a queue or from a bucket it does not have', async () => {
    await expect(
      startEmbeddedStores({ dataDir, tableName: env.TABLE_NAME, buckets: ['b'], queues: ['q'], notifications: [{ bucket: 'b', queue: 'nope', suffix: '' }] }),
    ).rejects.toThrow(/b -> nope/);
  });

  it('keeps items, objects and queued messages (in flight too) across a restart', async () => {
    const before = clients(a);
    await before.db.send(new PutCommand({ TableName: env.TABLE_NAME, Item: { pk: 'book', sk: 'meta', title: 'Forty Hadith' } }));
    await before.s3.send(new PutObjectCommand({ Bucket: 'persist-bucket', Key: 'page/1.png', Body: 'png' }));
    for (const MessageBody of ['first', 'second', 'third']) await before.sqs.send(new SendMessageCommand({ QueueUrl: a.queueUrls.jobs!, MessageBody }));
    const inFlight = await before.sqs.send(new ReceiveMessageCommand({ QueueUrl: a.queueUrls.jobs!, MaxNumberOfMessages: 1, VisibilityTimeout: 300 }));
    expect(inFlight.Messages?.[0]?.Body).toBe('first');

    await a.stop();
    const again = await start();
    const after = clients(again);
    const item = await after.db.send(new GetCommand({ TableName: env.TABLE_NAME, Key: { pk: 'book', sk: 'meta' } }));
    expect(item.Item?.title).toBe('Forty Hadith');
    const object = await after.s3.send(new GetObjectCommand({ Bucket: 'persist-bucket', Key: 'page/1.png' }));
    expect(await object.Body?.transformToString()).toBe('png');
    expect(await peekQueue(again.endpoints.sqs, again.queueUrls.jobs!)).toEqual(['first', 'second', 'third']);
    const received = await after.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: again.queueUrls.jobs!, MaxNumberOfMessages: 10, AttributeNames: ['All'] }),
    );
    // The receive count survives too, so redrive still happens after 5 receives in all.
    expect(received.Messages?.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toEqual([
      ['first', '2'],
      ['second', '1'],
      ['third', '1'],
    ]);
  }, 60_000);
});
