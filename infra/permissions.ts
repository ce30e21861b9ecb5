import type { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { tableSchema } from '../lib/adapters/dynamo/schema.ts';
import type { Access } from './functions.ts';
import type { PlatformApplication } from './settings.ts';

/**
 * What the access kinds of functions.ts resolve to: each kind names the exact actions on exact
 * resources, written out rather than taken from CDK's `grantRead`-style helpers (which add `s3:List*`,
 * `s3:GetObject*` and `index/*` wildcards). The wildcards that remain are object-key prefixes and
 * the actions AWS offers no resource for; infra/checks.ts gives the reason for each.
 */
export interface Grantable {
  table: dynamodb.ITable;
  pushApplications: readonly PlatformApplication[];
  uploads: s3.IBucket;
  ocrQueue: sqs.IQueue;
  stripeSecret: secretsmanager.ISecret;
  audio: s3.IBucket;
  audioQueue: sqs.IQueue;
}

/** Where the OCR worker puts page images (their keys come back as a page's `storageKey`). */
export const pageImagesPrefix = 'ocr-pages/';
/** The uploads bucket's prefixes the OCR functions work in (DESIGN.md section 5): files, long texts, page images. */
export const uploadPrefixes = ['ocr/*', 'ocr-results/*', `${pageImagesPrefix}*`] as const;
/** Where the Word export puts documents too large for a response (expired by storage.ts's rule). */
export const exportsPrefix = 'exports/';

/**
 * SNS mobile push: create endpoints under the configured applications only, and publish to / maintain
 * only the endpoints under them. No statement at all when push is not configured.
 */
export function pushStatements(apps: readonly PlatformApplication[]): iam.PolicyStatement[] {
  if (apps.length === 0) return [];
  return [
    new iam.PolicyStatement({ actions: ['sns:CreatePlatformEndpoint'], resources: apps.map((a) => a.arn) }),
    new iam.PolicyStatement({
      actions: ['sns:Publish', 'sns:GetEndpointAttributes', 'sns:SetEndpointAttributes', 'sns:DeleteEndpoint'],
      resources: apps.map((a) => a.endpointArns),
    }),
  ];
}

/** Item reads and writes (transactions are authorized per item by these); no Scan, no table admin. */
export const tableItemActions = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
] as const;

/** Each index of schema.ts by name: an index holds projections of items the table grant already reads. */
export const indexArns = (table: dynamodb.ITable): string[] => tableSchema.indexes.map((i) => `${table.tableArn}/index/${i.name}`);

function tableStatements(table: dynamodb.ITable): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({ actions: [...tableItemActions], resources: [table.tableArn] }),
    new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: indexArns(table) }),
  ];
}

type ObjectAction = 's3:GetObject' | 's3:PutObject' | 's3:DeleteObject';

/**
 * Object actions under key prefixes of one bucket, plus `s3:ListBucket` on the bucket: without it S3
 * answers a HEAD or GET of a missing key with 403 instead of 404, and the cache checks and long-text
 * reads rely on the 404. (Listing a bucket shows its key names, not its contents.)
 */
function objectStatements(bucket: s3.IBucket, grants: Record<string, readonly ObjectAction[]>): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }),
    ...Object.entries(grants).map(
      ([prefix, actions]) => new iam.PolicyStatement({ actions: [...actions], resources: [bucket.arnForObjects(prefix)] }),
    ),
  ];
}

const readWriteDelete = ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'] as const;

/** SQS SendMessage (and the attributes the SDK may ask for) on one queue. */
const sendTo = (queue: sqs.IQueue): iam.PolicyStatement[] => [
  new iam.PolicyStatement({ actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'], resources: [queue.queueArn] }),
];

const statements: Record<Access, (on: Grantable) => iam.PolicyStatement[]> = {
  table: (on) => tableStatements(on.table),
  push: (on) => pushStatements(on.pushApplications),
  uploads: (on) => objectStatements(on.uploads, Object.fromEntries(uploadPrefixes.map((p) => [p, readWriteDelete]))),
  // The export reads long texts and writes large documents; it never touches the uploaded files.
  exports: (on) =>
    objectStatements(on.uploads, { 'ocr-results/*': ['s3:GetObject'], [`${exportsPrefix}*`]: ['s3:GetObject', 's3:PutObject'] }),
  'ocr-queue': (on) => sendTo(on.ocrQueue),
  stripe: (on) => [
    new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'], resources: [on.stripeSecret.secretArn] }),
  ],
  // The audio bucket holds nothing but generated MP3s, every key of which the audio functions manage.
  audio: (on) => objectStatements(on.audio, { '*': readWriteDelete }),
  'audio-queue': (on) => sendTo(on.audioQueue),
  // The sweeper deletes uploaded files nobody made into a job; it reads and writes no object.
  'upload-sweep': (on) => [new iam.PolicyStatement({ actions: ['s3:DeleteObject'], resources: [on.uploads.arnForObjects('ocr/*')] })],
  // Polly has no resource-level permissions for SynthesizeSpeech beyond lexicons: '*' is the only resource.
  speech: () => [new iam.PolicyStatement({ actions: ['polly:SynthesizeSpeech'], resources: ['*'] })],
};

/** The statements of a function's access kinds, in the order of its list. */
export function accessStatements(kinds: readonly Access[], on: Grantable): iam.PolicyStatement[] {
  return kinds.flatMap((kind) => statements[kind](on));
}

/** A role for one function alone, with no managed policy: logs, tracing and access are added as statements. */
export function functionRole(scope: Stack, id: string, description: string): iam.Role {
  return new iam.Role(scope, id, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'), description });
}
