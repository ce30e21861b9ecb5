import type { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { outboxIndex } from '../lib/adapters/dynamo/billing-outbox.ts';
import { keys } from '../lib/adapters/dynamo/keys.ts';
import { healthProbeKey } from '../lib/health.ts';
import { booksIndexOf, termsIndexOf } from '../lib/adapters/opensearch/index-names.ts';
import { tableSchema } from '../lib/adapters/dynamo/schema.ts';
import { incomingUploadKey, uploadKey } from '../lib/ocr/jobs/fields.ts';
import { pageImagePrefix } from '../lib/ocr/pages/page.ts';
import { textKey } from '../lib/ocr/book-text.ts';
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
  announcementQueue: sqs.IQueue;
  /** The private key that signs media URLs (media.ts). */
  mediaSigningKey: secretsmanager.ISecret;
  /** The OpenSearch domain's ARN and the index of pages in it (search.ts); the listing's index is `<index>-books`. */
  search: { domainArn: string; index: string };
  /** The KMS HMAC key that signs job credentials (lib/auth/job-credentials.ts). */
  jobCredentialKey: kms.IKey;
}

/** The top folder of a key the code builds, e.g. `ocr-results/` of `ocr-results/<jobId>/<version>.txt`. */
const topFolder = (key: string) => key.slice(0, key.indexOf('/') + 1);

/**
 * The uploads bucket's key prefixes (docs/DESIGN.md section 5), each taken from the code that builds
 * those keys, so a grant cannot drift from where the objects are.
 */
export const uploadsPrefixes = {
  /** Jobs' files, `ocr/<uuid>-<name>` (lib/ocr/jobs/fields.ts). */
  files: topFolder(uploadKey('file')),
  /** Files clients POST with a presigned upload, `incoming/<uuid>-<name>`, until a job copies them. */
  incoming: topFolder(incomingUploadKey('file')),
  /** Long book texts, `ocr-results/<jobId>/<version>.txt` (lib/ocr/book-text.ts). */
  texts: topFolder(textKey('job', 'version')),
  /** Page images the OCR worker puts, `ocr-pages/<jobId>/...` (lib/ocr/pages/page.ts). */
  pageImages: topFolder(pageImagePrefix('job')),
  /** Word documents too large for a response (lib/ocr/export/export.ts), expired by storage.ts's rule. */
  exports: 'exports/',
  /** Big API answers handed over through the bucket with a redirect (functions/_shared/http/big-answers.ts), expired after a day. */
  responses: 'responses/',
} as const;

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
const indexArn = (table: dynamodb.ITable, name: string): string => `${table.tableArn}/index/${name}`;
export const indexArns = (table: dynamodb.ITable): string[] => tableSchema.indexes.map((i) => indexArn(table, i.name));

function tableStatements(table: dynamodb.ITable): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({ actions: [...tableItemActions], resources: [table.tableArn] }),
    new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: indexArns(table) }),
  ];
}

type ObjectAction = 's3:GetObject' | 's3:PutObject' | 's3:DeleteObject';
const objectActionOrder: readonly ObjectAction[] = ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'];

export interface ObjectGrant {
  bucket: 'uploads' | 'audio';
  /** Key prefix; '' for every key of the bucket. */
  prefix: string;
  /** GetObject also covers HEAD and signing a GET URL; PutObject signing a PUT or POST. */
  actions: readonly ObjectAction[];
  /** What the keys hold (cdk-nag's reason for the prefix wildcard). */
  holds: string;
  /**
   * Reads keys that may be missing: `s3:ListBucket` on the bucket too, without which S3 answers a
   * HEAD or GET of a missing key with 403 instead of the 404 the code relies on. (Listing shows key
   * names, not contents.)
   */
  readsMissing?: boolean;
}

/**
 * The object-access kinds: each one use the code makes of a bucket, on the prefix of the keys it
 * builds. functions.ts gives each function the kinds its code paths need, and nothing else.
 */
export const objectGrants = {
  // ocr-api: puts a multipart upload, and copies a presigned upload in (CopyObject: GetObject on the
  // source, PutObject here); removes a file whose job could not be saved. It never reads one: an
  // upload shown as its book's page image is read through the media distribution, whose URL needs no
  // S3 grant of the function.
  'upload-files': {
    bucket: 'uploads',
    prefix: uploadsPrefixes.files,
    actions: ['s3:PutObject', 's3:DeleteObject'],
    holds: 'jobs\' files',
  },
  // ocr-api: signs POSTs for large files, HEADs one (missing until the client sends it) and copies it
  // to the job's key, then removes it, as it removes one that breaks the rules.
  'incoming-uploads': {
    bucket: 'uploads',
    prefix: uploadsPrefixes.incoming,
    actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
    holds: 'presigned uploads not yet made into jobs',
    readsMissing: true,
  },
  // GET /ocr/text, GET /ocr/books/:id and the Word export read a long text in full.
  'text-reads': { bucket: 'uploads', prefix: uploadsPrefixes.texts, actions: ['s3:GetObject'], holds: 'long book texts', readsMissing: true },
  // PATCH and the final callback store a new text version and remove the one it replaced; never read.
  'text-writes': { bucket: 'uploads', prefix: uploadsPrefixes.texts, actions: ['s3:PutObject', 's3:DeleteObject'], holds: 'long book texts' },
  // The sweeper deletes presigned uploads nobody made into a job; it reads and writes no object.
  'upload-sweep': { bucket: 'uploads', prefix: uploadsPrefixes.incoming, actions: ['s3:DeleteObject'], holds: 'presigned uploads not yet made into jobs' },
  // The sweeper deletes long-text versions no record names, found by their notes (lib/ocr/loose-texts.ts); it reads none.
  'text-sweep': { bucket: 'uploads', prefix: uploadsPrefixes.texts, actions: ['s3:DeleteObject'], holds: 'long book texts' },
  // The Word export puts a large document; its URL is the media distribution's (media.ts), which reads it.
  exports: { bucket: 'uploads', prefix: uploadsPrefixes.exports, actions: ['s3:PutObject'], holds: 'large Word exports' },
  // An HTTP function puts an answer too big for Lambda's response and redirects to a signed media URL
  // of it: writing only, as the distribution (media.ts) reads it.
  responses: { bucket: 'uploads', prefix: uploadsPrefixes.responses, actions: ['s3:PutObject'], holds: 'big API answers' },
  // The audio bucket holds nothing but generated MP3s keyed by book id, every key of which the audio
  // functions list, check, put, sign, stream and delete.
  audio: {
    bucket: 'audio',
    prefix: '',
    actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
    holds: 'generated MP3s, keyed by book id',
    readsMissing: true,
  },
  // audio-files-sync HEADs each key an event names, present or not; it never reads, writes or deletes one.
  'audio-heads': { bucket: 'audio', prefix: '', actions: ['s3:GetObject'], holds: 'generated MP3s, keyed by book id', readsMissing: true },
} as const satisfies Record<string, ObjectGrant>;

export type ObjectAccess = keyof typeof objectGrants;

/**
 * What a function's object-access kinds come to: the buckets it needs `s3:ListBucket` on, and one
 * entry per bucket and prefix with the union of the kinds' actions.
 */
export function objectAccessOf(kinds: readonly ObjectAccess[]): {
  listed: ObjectGrant['bucket'][];
  prefixes: { bucket: ObjectGrant['bucket']; prefix: string; actions: ObjectAction[] }[];
} {
  const grants: ObjectGrant[] = kinds.map((kind) => objectGrants[kind]);
  const byPrefix = new Map<string, { bucket: ObjectGrant['bucket']; prefix: string; actions: Set<ObjectAction> }>();
  for (const g of grants) {
    const entry = byPrefix.get(`${g.bucket}/${g.prefix}`) ?? { bucket: g.bucket, prefix: g.prefix, actions: new Set() };
    for (const action of g.actions) entry.actions.add(action);
    byPrefix.set(`${g.bucket}/${g.prefix}`, entry);
  }
  return {
    listed: [...new Set(grants.filter((g) => g.readsMissing).map((g) => g.bucket))],
    prefixes: [...byPrefix.values()].map((e) => ({ ...e, actions: objectActionOrder.filter((a) => e.actions.has(a)) })),
  };
}

export const isObjectAccess = (kind: Access): kind is ObjectAccess => kind in objectGrants;

/** The S3 statements of a function's object-access kinds. */
function objectStatements(kinds: readonly ObjectAccess[], on: Grantable): iam.PolicyStatement[] {
  const { listed, prefixes } = objectAccessOf(kinds);
  return [
    ...listed.map((bucket) => new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [on[bucket].bucketArn] })),
    ...prefixes.map(
      ({ bucket, prefix, actions }) => new iam.PolicyStatement({ actions, resources: [on[bucket].arnForObjects(`${prefix}*`)] }),
    ),
  ];
}

type SearchAction = 'es:ESHttpHead' | 'es:ESHttpPut' | 'es:ESHttpPost';

/**
 * HTTP methods on paths of indexes (`''` is the index itself), as OpenSearch authorizes a signed
 * request: `pages` is the configured index of pages, `books` the catalogue listing's beside it
 * (`<index>-books`), `terms` the filed terms' (`<index>-terms`, the vocabulary of similar terms;
 * lib/adapters/opensearch/index-names.ts).
 */
export interface SearchGrant {
  indexes: readonly ('pages' | 'books' | 'terms')[];
  actions: readonly SearchAction[];
  paths: readonly ('' | `/${string}`)[];
}

/**
 * Filing terms, as putPages does beside its pages (lib/adapters/opensearch/search-engine.ts): HEAD and
 * PUT the terms' index (created with its settings and mapping; it has gained no field, so no
 * `_mapping`), and POST its `_bulk` (`create` actions). Nothing else of it: no update, no delete, no search.
 */
const filingTerms = [
  { indexes: ['terms'], actions: ['es:ESHttpHead', 'es:ESHttpPut'], paths: [''] },
  { indexes: ['terms'], actions: ['es:ESHttpPost'], paths: ['/_bulk'] },
] as const satisfies readonly SearchGrant[];

/**
 * The search kinds: what the OpenSearch adapter (lib/adapters/opensearch/search-engine.ts) sends for
 * each use, on its three indexes. Both the functions' roles and the domain's access policy (search.ts)
 * are written from this.
 */
export const searchGrants = {
  // search-api: POST <index>/_search, <index>-books/_search and <index>-terms/_search (pages, the
  // listing, similar terms), and HEAD of each. No PUT (creating an index), no _bulk, no
  // _update_by_query or _delete_by_query.
  'search-query': [
    { indexes: ['pages', 'books', 'terms'], actions: ['es:ESHttpPost'], paths: ['/_search'] },
    { indexes: ['pages', 'books', 'terms'], actions: ['es:ESHttpHead'], paths: [''] },
  ],
  // ocr-api and ocr-callbacks, read after write (lib/search/read-after-write.ts): a write puts what it
  // changed into the pages' and the listing's indexes before answering (_bulk, and _update_by_query
  // for a book's fields on its pages or hiding it), creating an index that is missing and adding
  // fields a newer mapping has (HEAD, PUT, PUT /_mapping), and files its pages' new terms
  // (filingTerms); ocr-api also searches the listing (GET /ocr/books filtered and past its first
  // pages). No _delete_by_query, and no _search of the pages or the terms: they read no page of text
  // from the index.
  'write-path': [
    { indexes: ['pages', 'books'], actions: ['es:ESHttpHead', 'es:ESHttpPut'], paths: ['', '/_mapping'] },
    { indexes: ['pages', 'books'], actions: ['es:ESHttpPost'], paths: ['/_bulk', '/_update_by_query'] },
    { indexes: ['books'], actions: ['es:ESHttpPost'], paths: ['/_search'] },
    ...filingTerms,
  ],
  // search-indexer: HEAD and PUT the pages' and the listing's indexes (created with their settings
  // and mappings), and POST under them (_bulk, _update_by_query, _delete_by_query, and _search for
  // what a book has indexed); and files its pages' new terms (filingTerms).
  'search-writes': [{ indexes: ['pages', 'books'], actions: ['es:ESHttpHead', 'es:ESHttpPut', 'es:ESHttpPost'], paths: ['', '/*'] }, ...filingTerms],
} as const satisfies Record<string, readonly SearchGrant[]>;

export type SearchAccess = keyof typeof searchGrants;

export const isSearchAccess = (kind: Access): kind is SearchAccess => kind in searchGrants;

/** The statements of one search kind on `<domain ARN>/<index><path>`, for each index a grant names. */
export function searchStatements(kind: SearchAccess, on: Grantable['search']): iam.PolicyStatement[] {
  const names = { pages: on.index, books: booksIndexOf(on.index), terms: termsIndexOf(on.index) };
  return searchGrants[kind].map(
    (grant: SearchGrant) =>
      new iam.PolicyStatement({
        actions: [...grant.actions],
        resources: grant.indexes.flatMap((index) => grant.paths.map((p) => `${on.domainArn}/${names[index]}${p}`)),
      }),
  );
}

/**
 * The partition keys of the items the search functions read, as `dynamodb:LeadingKeys` patterns:
 * BookTexts and their pages share `BOOKTEXT#<id>`; a user's record is `USER#<id>` (keys.ts).
 */
export const searchReadKeys = {
  bookTexts: `${keys.bookTextPartition('')}*`,
  users: `${keys.userPartition('')}*`,
} as const;

/**
 * Reads of the table's own items (no index, no Scan, no write) whose partition keys all match
 * `patterns`. `ForAllValues`: every key of a BatchGetItem must match. The condition is on the table's
 * partition key because no index is granted (on an index, LeadingKeys would be the index's key).
 */
const tableReads = (table: dynamodb.ITable, actions: readonly string[], patterns: readonly string[]): iam.PolicyStatement =>
  new iam.PolicyStatement({
    actions: [...actions],
    resources: [table.tableArn],
    conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...patterns] } },
  });

/** SQS SendMessage (and the attributes the SDK may ask for) on one queue. */
export const sendTo = (queue: sqs.IQueue): iam.PolicyStatement[] => [
  new iam.PolicyStatement({ actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'], resources: [queue.queueArn] }),
];

const statements: Record<Exclude<Access, ObjectAccess>, (on: Grantable) => iam.PolicyStatement[]> = {
  table: (on) => tableStatements(on.table),
  push: (on) => pushStatements(on.pushApplications),
  'ocr-queue': (on) => sendTo(on.ocrQueue),
  // The billing worker reads (users, usage logs, the job's BookText) and updates (claims, settlements, usageInfo,
  // the period's count). Recording owed usage puts a job's usage log and deletes its owed marker: both under the
  // job's partition (`OCRJOB#…`), so it can put or delete nothing else. Owed usage and the outbox share gsi1.
  'billing-outbox': (on) => [
    new iam.PolicyStatement({ actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], resources: [on.table.tableArn] }),
    new iam.PolicyStatement({
      actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
      resources: [on.table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${keys.ocrJobPrefix}*`] } },
    }),
    new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: [indexArn(on.table, outboxIndex)] }),
  ],
  stripe: (on) => [
    new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'], resources: [on.stripeSecret.secretArn] }),
  ],
  'audio-queue': (on) => sendTo(on.audioQueue),
  'announcement-queue': (on) => sendTo(on.announcementQueue),
  // Job credentials: issued when a job is queued (GenerateMac), checked on the worker's calls (VerifyMac).
  'job-credentials-issue': (on) => [new iam.PolicyStatement({ actions: ['kms:GenerateMac'], resources: [on.jobCredentialKey.keyArn] })],
  'job-credentials-check': (on) => [new iam.PolicyStatement({ actions: ['kms:VerifyMac'], resources: [on.jobCredentialKey.keyArn] })],
  // audio-files-sync: UpdateItem (record, forget) of items whose partition key is an audio-files one.
  'audio-files-record': (on) => [
    new iam.PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [on.table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${keys.audioFilesPrefix}*`] } },
    }),
  ],
  // Signing media URLs reads the private key and nothing else of Secrets Manager (the MEDIA_* variables come with it, stack.ts).
  'media-urls': (on) => [new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [on.mediaSigningKey.secretArn] })],
  // Polly has no resource-level permissions for SynthesizeSpeech beyond lexicons: '*' is the only resource.
  speech: () => [new iam.PolicyStatement({ actions: ['polly:SynthesizeSpeech'], resources: ['*'] })],
  // search-api (lib/search/search.ts): one book (GetItem), the hits' books and pages (BatchGetItem);
  // and, with a token, the caller's user record (the auth layer's GetItem). The user grant is GetItem
  // alone: IAM cannot name a sort key, so a user's other items (subscription, usage) share the
  // partition, but without Query or BatchGetItem none can be listed, only read by a key it knows.
  'search-reads': (on) => [
    tableReads(on.table, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], [searchReadKeys.bookTexts]),
    tableReads(on.table, ['dynamodb:GetItem'], [searchReadKeys.users]),
  ],
  // search-indexer (lib/search/indexing.ts): the changed books and pages, read together (BatchGetItem, 100 keys a call).
  'indexer-reads': (on) => [tableReads(on.table, ['dynamodb:BatchGetItem'], [searchReadKeys.bookTexts])],
  // GET /health (functions/health/handler.ts): the probe key of the table (never written, so nothing is read),
  // each bucket's location and each job queue's attributes; no object, key listing or message.
  'health-probes': (on) => [
    tableReads(on.table, ['dynamodb:GetItem'], [healthProbeKey.pk]),
    new iam.PolicyStatement({ actions: ['s3:GetBucketLocation'], resources: [on.uploads.bucketArn, on.audio.bucketArn] }),
    new iam.PolicyStatement({ actions: ['sqs:GetQueueAttributes'], resources: [on.ocrQueue.queueArn, on.audioQueue.queueArn] }),
  ],
  'search-query': (on) => searchStatements('search-query', on.search),
  'write-path': (on) => searchStatements('write-path', on.search),
  'search-writes': (on) => searchStatements('search-writes', on.search),
};

/** The statements of a function's access kinds: the others in the order of its list, then its S3 statements. */
export function accessStatements(kinds: readonly Access[], on: Grantable): iam.PolicyStatement[] {
  return [
    ...kinds.flatMap((kind) => (isObjectAccess(kind) ? [] : statements[kind](on))),
    ...objectStatements(kinds.filter(isObjectAccess), on),
  ];
}

/** A role for one function alone, with no managed policy: logs, tracing and access are added as statements. */
export function functionRole(scope: Stack, id: string, description: string): iam.Role {
  return new iam.Role(scope, id, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'), description });
}
