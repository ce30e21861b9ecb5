import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { tableSchema } from '../lib/adapters/dynamo/schema.ts';
import { deadLetterRetentionDays, jobQueueRetentionDays } from '../lib/auth/job-credentials.ts';
import { audioKeySuffix } from '../lib/audio/audio-key.ts';
import { maxReceives } from '../lib/queue.ts';
import type { uploadsPrefixes } from './permissions.ts';

/**
 * The stateful resources. Data outlives the stack (RETAIN): deleting or renaming the stack must never
 * delete users' books, audio or accounts. What protects them beyond that, and how each is restored:
 * docs/restore.md.
 */

/**
 * How far back users' data can be recovered: the table's point-in-time window (35 days, DynamoDB's
 * longest) and how long a deleted or replaced object of the buckets that hold users' data stays as a
 * noncurrent version. One number, so that the table restored to any time in its window still finds
 * every long text and scan its items named then.
 */
export const recoveryWindowDays = 35;

const str = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });

/** The single table, keyed and indexed exactly as the local runtime creates it (schema.ts). */
export function dataTable(scope: Construct): dynamodb.Table {
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: str(tableSchema.partitionKey),
    sortKey: str(tableSchema.sortKey),
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true, recoveryPeriodInDays: recoveryWindowDays },
    // A table deleted by hand or by a stack change loses its point-in-time history with it.
    deletionProtection: true,
    encryption: dynamodb.TableEncryption.AWS_MANAGED,
    removalPolicy: RemovalPolicy.RETAIN,
    timeToLiveAttribute: tableSchema.timeToLiveAttribute,
    // Every change, with the item before and after: the search indexer (search.ts) keeps the index in
    // step from it, and a removed page is known by its old image.
    stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
  });
  for (const index of tableSchema.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: str(index.partitionKey),
      sortKey: str(index.sortKey),
      ...(index.projection
        ? { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] }
        : { projectionType: dynamodb.ProjectionType.ALL }),
    });
  }
  return table;
}

const privateBucketProps: s3.BucketProps = {
  blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
  encryption: s3.BucketEncryption.S3_MANAGED,
  enforceSSL: true,
  versioned: false,
  removalPolicy: RemovalPolicy.RETAIN,
};

/**
 * A bucket holding users' data: versioned, so a delete or an overwrite (a bug, a misuse) leaves the old
 * object behind as a noncurrent version that an operator can bring back (docs/restore.md). No function
 * role may read or delete a version (`s3:GetObjectVersion`, `s3:DeleteObjectVersion`): to the service a
 * deleted object is gone, and only an operator can undo that.
 */
export const versionedBucket: Partial<s3.BucketProps> = { versioned: true };

/**
 * Keys that are users' only copies: a deleted or replaced object stays recoverable for the recovery
 * window, then goes. A delete marker left alone once its versions have gone is removed too (it only
 * slows listings).
 */
export const keptVersionsRule = (prefix?: string): s3.LifecycleRule => ({
  ...(prefix ? { prefix } : {}),
  noncurrentVersionExpiration: Duration.days(recoveryWindowDays),
  expiredObjectDeleteMarker: true,
});

/**
 * Keys that are passing copies (an upload before its job copies it, an export, a big answer): a
 * deleted one is not kept beyond a day, S3's shortest. The rules that expire them by age (below) come
 * with this; an expiration by days also removes the delete marker left once the last version has gone.
 */
const passingVersions = { noncurrentVersionExpiration: Duration.days(1) } as const;

/**
 * Where S3 writes the server access logs of the other buckets (`<bucket id>/` prefixes), kept 90 days.
 * Log delivery only supports S3-managed encryption, which every bucket here uses anyway.
 */
export function accessLogsBucket(scope: Construct): s3.Bucket {
  return new s3.Bucket(scope, 'AccessLogs', {
    ...privateBucketProps,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [{ expiration: Duration.days(90) }],
  });
}

/**
 * Private, encrypted, HTTPS-only, access-logged; objects are reached through signed URLs (presigned S3
 * URLs, or the media distribution's, media.ts), never publicly.
 */
export function privateBucket(scope: Construct, id: string, logs: s3.IBucket, extra: Partial<s3.BucketProps> = {}): s3.Bucket {
  return new s3.Bucket(scope, id, { ...privateBucketProps, serverAccessLogsBucket: logs, serverAccessLogsPrefix: `${id}/`, ...extra });
}

/** Presigned multipart uploads that a client abandons would otherwise be stored (and billed) forever. */
export const abandonedUploadsRule: s3.LifecycleRule = { abortIncompleteMultipartUploadAfter: Duration.days(7) };

/**
 * Large Word exports are written once and fetched within minutes through a 5-minute URL; a day keeps
 * them for a retried download and then removes them (S3 runs expiry about daily, so up to ~2 days).
 */
export const expiredExportsRule = (prefix: string): s3.LifecycleRule => ({ prefix, expiration: Duration.days(1), ...passingVersions });

/**
 * Big API answers handed over through the bucket (functions/_shared/http/big-answers.ts) are fetched right after the redirect
 * to them; a day keeps them for a retried fetch, as for exports.
 */
export const expiredResponsesRule = (prefix: string): s3.LifecycleRule => ({ prefix, expiration: Duration.days(1), ...passingVersions });

/**
 * A presigned upload's object (`incoming/`) is removed when its job is created, or by the sweeper a
 * day after it was asked for; its POST, though, works for an hour after either, and what it stores
 * then no code will ever remove. Two days leaves every unclaimed upload to the sweeper (S3 may expire
 * an object as soon as a day after it was stored) and removes such leftovers.
 */
export const expiredIncomingRule = (prefix: string): s3.LifecycleRule => ({ prefix, expiration: Duration.days(2), ...passingVersions });

/**
 * The uploads bucket's lifecycle: one rule for each key prefix (docs/DESIGN.md section 5), so that no two
 * rules overlap on a key, typed over every prefix, so that a new one does not compile until it is
 * decided whether its deleted objects are kept.
 */
export function uploadsLifecycle(prefixes: typeof uploadsPrefixes): s3.LifecycleRule[] {
  const byPrefix: Record<keyof typeof uploadsPrefixes, s3.LifecycleRule> = {
    // The scans users sent: nothing else holds them.
    files: keptVersionsRule(prefixes.files),
    // Long books' only full text (the table keeps a 1,000-character preview); every edit replaces one.
    texts: keptVersionsRule(prefixes.texts),
    // Made from the scan by the OCR worker, but only by running the job again; rarely replaced, so kept at almost no cost.
    pageImages: keptVersionsRule(prefixes.pageImages),
    incoming: expiredIncomingRule(prefixes.incoming),
    exports: expiredExportsRule(prefixes.exports),
    responses: expiredResponsesRule(prefixes.responses),
  };
  return [abandonedUploadsRule, ...Object.values(byPrefix)];
}

/**
 * The audio bucket's lifecycle. Generated MP3s can be spoken again, but at Polly's price and a book's
 * worth of time, and the bucket also takes files put by others (a migration's copy, an operator's),
 * which nothing can make again; the service deletes them in bulk (a book's, a line's, a stale field's
 * files), where one bug would remove a library's audio. So they are kept as uploads' are.
 */
export const audioLifecycle: s3.LifecycleRule[] = [keptVersionsRule()];

/**
 * Browsers POST large files straight to the bucket (presigned POST) and GET page images by presigned
 * URL. The signature, not the origin, is what authorizes a request, so any origin may make one.
 */
export const browserUploads: s3.CorsRule = {
  allowedMethods: [s3.HttpMethods.POST, s3.HttpMethods.GET, s3.HttpMethods.HEAD],
  allowedOrigins: ['*'],
  allowedHeaders: ['*'],
  exposedHeaders: ['ETag', 'Location'],
  maxAge: 3600,
};

const secureQueue = { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true } as const;

/** Where failures wait for an operator: encrypted, TLS-only, kept 14 days (SQS's longest). */
export function deadLetterQueue(scope: Construct, id: string): sqs.Queue {
  return new sqs.Queue(scope, id, { ...secureQueue, retentionPeriod: Duration.days(deadLetterRetentionDays) });
}

/**
 * A work queue (messages kept 4 days, SQS's default) whose poison messages land, after five tries, in
 * a dead-letter queue kept for 14 days. A job credential outlives both (lib/auth/job-credentials.ts).
 */
export function jobQueue(scope: Construct, id: string, extra: Partial<sqs.QueueProps> = {}): sqs.Queue {
  const deadLetters = deadLetterQueue(scope, `${id}DeadLetters`);
  return new sqs.Queue(scope, id, {
    ...secureQueue,
    retentionPeriod: Duration.days(jobQueueRetentionDays),
    deadLetterQueue: { queue: deadLetters, maxReceiveCount: maxReceives },
    ...extra,
  });
}

/**
 * Every audio object stored in or removed from the bucket, by the service or anyone else, announced on
 * the queue (S3 event notifications; CDK adds the queue policy that lets S3 send, for this bucket
 * only). The bucket holds nothing but audio keys, which share no prefix (`<bookId>/...`), so the
 * filter is their suffix.
 */
export function notifyAudioChanges(bucket: s3.Bucket, queue: sqs.IQueue): void {
  // The bucket is versioned: a delete leaves a delete marker, announced as ObjectRemoved:DeleteMarkerCreated,
  // which ObjectRemoved:* takes; the handler HEADs the key, which a delete marker answers 404.
  // Lifecycle expiries of noncurrent versions are LifecycleExpiration events, not taken: nothing current changes.
  for (const event of [s3.EventType.OBJECT_CREATED, s3.EventType.OBJECT_REMOVED]) {
    bucket.addEventNotification(event, new s3n.SqsDestination(queue), { suffix: audioKeySuffix });
  }
}
