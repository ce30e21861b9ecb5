import * as iam from 'aws-cdk-lib/aws-iam';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Access } from './functions.ts';
import type { PlatformApplication } from './settings.ts';

/** What the access kinds of functions.ts resolve to: each kind is a least-privilege grant on one resource. */
export interface Grantable {
  table: dynamodb.ITable;
  pushApplications: readonly PlatformApplication[];
  uploads: s3.IBucket;
  ocrQueue: sqs.IQueue;
  stripeSecret: secretsmanager.ISecret;
  audio: s3.IBucket;
  audioQueue: sqs.IQueue;
}

/** The uploads bucket's prefixes the OCR functions work in (DESIGN.md section 5). */
export const uploadPrefixes = ['ocr/*', 'ocr-results/*'] as const;
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

const grants: Record<Access, (fn: lambda.IFunction, on: Grantable) => void> = {
  // Items of the table and its indexes, without Scan: no request path may scan (DESIGN.md section 4).
  table: (fn, on) => on.table.grant(fn, ...tableItemActions),
  push: (fn, on) => pushStatements(on.pushApplications).forEach((s) => fn.addToRolePolicy(s)),
  uploads: (fn, on) =>
    uploadPrefixes.forEach((prefix) => {
      on.uploads.grantRead(fn, prefix);
      on.uploads.grantPut(fn, prefix);
      on.uploads.grantDelete(fn, prefix);
    }),
  // The export reads long texts and writes large documents; it never touches the uploaded files.
  exports: (fn, on) => {
    on.uploads.grantRead(fn, 'ocr-results/*');
    on.uploads.grantRead(fn, `${exportsPrefix}*`);
    on.uploads.grantPut(fn, `${exportsPrefix}*`);
  },
  'ocr-queue': (fn, on) => on.ocrQueue.grantSendMessages(fn),
  stripe: (fn, on) => on.stripeSecret.grantRead(fn),
  audio: (fn, on) => {
    on.audio.grantRead(fn);
    on.audio.grantPut(fn);
    on.audio.grantDelete(fn);
  },
  'audio-queue': (fn, on) => on.audioQueue.grantSendMessages(fn),
  // Polly has no resource-level permissions for SynthesizeSpeech beyond lexicons: '*' is the only resource.
  speech: (fn) => fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['polly:SynthesizeSpeech'], resources: ['*'] })),
};

export function grantAccess(fn: lambda.IFunction, kinds: readonly Access[], on: Grantable): void {
  for (const kind of kinds) grants[kind](fn, on);
}
