import { statSync } from 'node:fs';
import path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeKey, routes } from '../../functions/routes.ts';
import { defaultOutDir } from '../../infra/bundle.ts';
import { announcementWorkerConcurrency, deployedFunctions, type DeployedFunction } from '../../infra/functions.ts';
import { addChecks } from '../../infra/checks.ts';
import { MaktabaStack } from '../../infra/stack.ts';
import { tableBackupRetentionDays } from '../../infra/backup.ts';
import { uploadsPrefixes } from '../../infra/permissions.ts';
import { recoveryWindowDays } from '../../infra/storage.ts';
import { tableSchema } from '../../lib/adapters/dynamo/schema.ts';
import './ocr-worker-stub.ts';
import { actions, allStatements, deadLetterAlarm, envOf, fn, logicalId, resources, statementsOf, synth, type Statement, type Synth } from './template.ts';

/**
 * Template tests. Two synths (each bundles the functions): one with no context, as `npm run synth`
 * deploys by default, and one with every optional setting (JWKS auth, both push applications).
 */

const iosApp = 'arn:aws:sns:eu-west-1:123456789012:app/APNS/Maktaba';
const androidApp = 'arn:aws:sns:eu-west-1:123456789012:app/GCM/Maktaba';
const stripeSecretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:maktaba/stripe-AbCdEf';
const configuredContext = {
  jwksUrl: 'https://id.example.com/.well-known/jwks.json',
  jwtIssuer: 'https://id.example.com/',
  jwtAudience: 'maktaba',
  pushIosApplicationArn: iosApp,
  pushAndroidApplicationArn: androidApp,
  stripeSecretArn: stripeSecretArn,
  alarmEmail: 'ops@example.com',
  ocrWorkerPrincipal: 'arn:aws:iam::210987654321:role/ocr-worker',
  voiceMap: '{"fable":{"ar":{"voiceId":"Hala","engine":"neural","languageCode":"ar-AE"}}}',
  tierCatalogue: '{"tiers":{"basic":{"priceCents":900,"monthlyPageCredits":80},"pro":{"priceCents":5000,"monthlyPageCredits":500}}}',
  apiThrottleRate: '300',
  apiThrottleBurst: '600',
  publicReadThrottleRate: '40',
  publicReadThrottleBurst: '80',
  reservedConcurrency: '{"ocr-callbacks": 20, "audio-worker": 5}',
  // An operator with a worker of their own: the external worker role instead of the built-in worker.
  ocrWorker: 'off',
};

let plain: Synth;
let configured: Synth;
const started = Date.now();

beforeAll(() => {
  plain = synth({});
  configured = synth(configuredContext);
}, 120_000);

describe('table', () => {
  it('has the schema keys, every GSI, on-demand billing, PITR for 35 days, deletion protection, encryption, and is retained', () => {
    const key = (pk: string, sk: string) => [
      { AttributeName: pk, KeyType: 'HASH' },
      { AttributeName: sk, KeyType: 'RANGE' },
    ];
    // The data table and the built-in OCR worker's ledger (test/cdk/ocr-worker.test.ts).
    plain.template.resourceCountIs('AWS::DynamoDB::Table', 2);
    configured.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    plain.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: key(tableSchema.partitionKey, tableSchema.sortKey),
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 35 },
        DeletionProtectionEnabled: true,
        SSESpecification: { SSEEnabled: true },
        GlobalSecondaryIndexes: tableSchema.indexes.map((i) => ({
          IndexName: i.name,
          KeySchema: key(i.partitionKey, i.sortKey),
          Projection: i.projection ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...i.projection] } : { ProjectionType: 'ALL' },
        })),
      },
    });
  });
});

describe('buckets', () => {
  it('block public access, are encrypted, retained and deny requests without TLS', () => {
    const buckets = plain.template.findResources('AWS::S3::Bucket');
    // Uploads, audio, the server access logs and the media distribution's logs (test/cdk/media.test.ts).
    expect(Object.keys(buckets)).toHaveLength(4);
    for (const [id, bucket] of Object.entries(buckets)) {
      expect(bucket.DeletionPolicy).toBe('Retain');
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([
        { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
      ]);
      plain.template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });
});

describe('data protection (docs/restore.md)', () => {
  const roleStatementsOf = (roleId: string) =>
    Object.values(plain.template.findResources('AWS::IAM::Policy', { Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) } })).flatMap(
      (p) => p.Properties.PolicyDocument.Statement,
    );
  const bucketProps = (bucket: s3.IBucket) => plain.template.toJSON().Resources[logicalId(plain.stack, bucket)].Properties;
  const kept = { NoncurrentVersionExpiration: { NoncurrentDays: 35 }, ExpiredObjectDeleteMarker: true, Status: 'Enabled' };
  const passing = (prefix: string, days: number) => ({ Prefix: prefix, ExpirationInDays: days, NoncurrentVersionExpiration: { NoncurrentDays: 1 }, Status: 'Enabled' });

  it('versions the uploads and audio buckets, and not the log buckets', () => {
    for (const bucket of [plain.stack.buckets.uploads, plain.stack.buckets.audio]) {
      expect(bucketProps(bucket).VersioningConfiguration).toEqual({ Status: 'Enabled' });
    }
    for (const bucket of [plain.stack.buckets.accessLogs, plain.stack.media.logs]) expect(bucketProps(bucket).VersioningConfiguration).toBeUndefined();
  });

  it('keeps a deleted or replaced scan, long text or page image 35 days, and passing copies a day, one rule per prefix', () => {
    // Every prefix of the uploads bucket has exactly one rule: overlapping rules would leave S3 to choose.
    expect(bucketProps(plain.stack.buckets.uploads).LifecycleConfiguration.Rules).toEqual([
      { AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 }, Status: 'Enabled' },
      { Prefix: uploadsPrefixes.files, ...kept },
      { Prefix: uploadsPrefixes.texts, ...kept },
      { Prefix: uploadsPrefixes.pageImages, ...kept },
      passing(uploadsPrefixes.incoming, 2),
      passing(uploadsPrefixes.exports, 1),
      passing(uploadsPrefixes.responses, 1),
    ]);
    expect(Object.keys(uploadsPrefixes).sort()).toEqual(['exports', 'files', 'incoming', 'pageImages', 'responses', 'texts']);
    // No prefix is the start of another (ocr/ is not a prefix of ocr-results/ or ocr-pages/).
    const prefixes = Object.values(uploadsPrefixes);
    for (const a of prefixes) for (const b of prefixes) if (a !== b) expect(b.startsWith(a), `${a} ${b}`).toBe(false);
  });

  it('keeps deleted or replaced audio 35 days too', () => {
    expect(bucketProps(plain.stack.buckets.audio).LifecycleConfiguration.Rules).toEqual([kept]);
  });

  it('keeps versions as long as the table’s point-in-time window, so a restored table finds the texts it names', () => {
    const table = plain.template.toJSON().Resources[logicalId(plain.stack, plain.stack.table)].Properties;
    expect(table.PointInTimeRecoverySpecification.RecoveryPeriodInDays).toBe(recoveryWindowDays);
    expect(kept.NoncurrentVersionExpiration.NoncurrentDays).toBe(recoveryWindowDays);
  });

  it('lets no role or bucket policy read, delete or expire an object version, or change versioning or lifecycle', () => {
    const bucketPolicies = Object.values(plain.template.findResources('AWS::S3::BucketPolicy')).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as Statement[],
    );
    for (const s of [plain, configured]) {
      const allowed = [...allStatements(s.template), ...(s === plain ? bucketPolicies : [])].filter((st) => st.Effect === 'Allow').flatMap(actions);
      expect(allowed.filter((a) => /^s3:(\*|.*Version.*|.*Lifecycle.*|Get\*|Delete\*|Put\*)$/i.test(a))).toEqual([]);
    }
  });

  it('backs the table up weekly into a vault of its own, kept 13 weeks, where no one may delete a backup', () => {
    const { vault, plan } = plain.stack.backups;
    expect(plain.template.toJSON().Resources[logicalId(plain.stack, vault)]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        AccessPolicy: {
          Statement: [{ Effect: 'Deny', Principal: { AWS: '*' }, Action: ['backup:DeleteRecoveryPoint', 'backup:UpdateRecoveryPointLifecycle'], Resource: '*' }],
        },
      },
    });
    expect(plain.template.toJSON().Resources[logicalId(plain.stack, plan)].Properties.BackupPlan.BackupPlanRule).toEqual([
      {
        RuleName: 'WeeklyTable',
        ScheduleExpression: 'cron(0 3 ? * SUN *)',
        Lifecycle: { DeleteAfterDays: tableBackupRetentionDays },
        TargetBackupVault: { 'Fn::GetAtt': [logicalId(plain.stack, vault), 'BackupVaultName'] },
      },
    ]);
    expect(tableBackupRetentionDays).toBe(91);
    const selections = Object.values(plain.template.findResources('AWS::Backup::BackupSelection'));
    expect(selections).toHaveLength(1);
    const selection = selections[0]!.Properties.BackupSelection;
    expect(selection.Resources).toEqual([{ 'Fn::GetAtt': [logicalId(plain.stack, plain.stack.table), 'Arn'] }]);
    const role = plain.template.toJSON().Resources[selection.IamRoleArn['Fn::GetAtt'][0]];
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'backup.amazonaws.com' } },
    ]);
    // AWS Backup's policies to take and to restore backups, and no statement of its own.
    expect(role.Properties.ManagedPolicyArns.map((arn: { 'Fn::Join': [string, unknown[]] }) => String(arn['Fn::Join'][1].at(-1)))).toEqual([
      ':iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup',
      ':iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores',
    ]);
    expect(roleStatementsOf(selection.IamRoleArn['Fn::GetAtt'][0])).toEqual([]);
  });
});

describe('queues', () => {
  it('redrive each job queue to its own dead-letter queue after 5 receives, encrypted', () => {
    const queues = plain.template.findResources('AWS::SQS::Queue');
    const work = Object.values(queues).filter((q) => q.Properties.RedrivePolicy);
    // OCR jobs, audio jobs, announcement steps, the audio bucket's events and the built-in OCR worker's page tasks.
    expect(work).toHaveLength(5);
    const targets = work.map((q) => q.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string);
    expect(new Set(targets).size).toBe(5);
    for (const q of work) expect(q.Properties.RedrivePolicy.maxReceiveCount).toBe(5);
    for (const dlq of targets) expect(queues[dlq]?.Properties.RedrivePolicy).toBeUndefined();
    for (const q of Object.values(queues)) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
  });
});

describe('HTTP API', () => {
  it('has exactly one route per route-table entry, integrated with the route’s function (payload 2.0)', () => {
    const { template, stack } = plain;
    const apiRoutes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    expect(apiRoutes.map((r) => r.Properties.RouteKey).sort()).toEqual(routes.map(routeKey).sort());
    for (const route of routes) {
      const found = apiRoutes.find((r) => r.Properties.RouteKey === routeKey(route))!;
      const integrationId = found.Properties.Target['Fn::Join'][1][1].Ref as string;
      expect(integrations[integrationId]?.Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { 'Fn::GetAtt': [logicalId(stack, fn(stack, route.function)), 'Arn'] },
      });
    }
  });

  it('outputs the URLs and names clients and operators need', () => {
    for (const name of ['ApiUrl', 'UploadsBucketName', 'AudioBucketName', 'OcrQueueUrl', 'AudioQueueUrl', 'TableName', 'TableBackupVaultName', 'TableBackupRoleArn']) {
      plain.template.hasOutput(name, {});
    }
  });
});

describe('GET /health', () => {
  it('is served by the health function alone, with no token, at the anonymous read rate', () => {
    const { template, stack } = plain;
    const route = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).find((r) => r.Properties.RouteKey === 'GET /health');
    expect(route?.Properties.AuthorizationType ?? 'NONE').toBe('NONE');
    const integrationId = route!.Properties.Target['Fn::Join'][1][1].Ref as string;
    expect(template.findResources('AWS::ApiGatewayV2::Integration')[integrationId]?.Properties.IntegrationUri).toEqual({
      'Fn::GetAtt': [logicalId(stack, fn(stack, 'health')), 'Arn'],
    });
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    expect(stage.Properties.RouteSettings['GET /health']).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 });
  });

  it('may read the probe key of the table, each bucket’s location and each job queue’s attributes, and nothing else of any store', () => {
    for (const s of [plain, configured]) {
      const id = (construct: Parameters<typeof logicalId>[1]) => logicalId(s.stack, construct);
      const storeStatements = statementsOf(s, 'health')
        .filter((st) => actions(st).some((a) => /^(dynamodb|s3|sqs|sns|kms|secretsmanager|es|polly):/.test(a)))
        .map((st) => ({ actions: actions(st), resources: resources(st), condition: st.Condition }));
      expect(storeStatements).toEqual([
        {
          actions: ['dynamodb:GetItem'],
          resources: [{ 'Fn::GetAtt': [id(s.stack.table), 'Arn'] }],
          condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['HEALTH'] } },
        },
        {
          actions: ['s3:GetBucketLocation'],
          resources: [{ 'Fn::GetAtt': [id(s.stack.buckets.uploads), 'Arn'] }, { 'Fn::GetAtt': [id(s.stack.buckets.audio), 'Arn'] }],
          condition: undefined,
        },
        {
          actions: ['sqs:GetQueueAttributes'],
          resources: [{ 'Fn::GetAtt': [expect.stringMatching(/^OcrJobs/), 'Arn'] }, { 'Fn::GetAtt': [expect.stringMatching(/^AudioJobs/), 'Arn'] }],
          condition: undefined,
        },
      ]);
      // No token is read, so the JWT secret is not granted; and no big answer is put in a bucket.
      expect(statementsOf(s, 'health').some((st) => JSON.stringify(st.Resource).includes('JwtSecret'))).toBe(false);
    }
  });
});

describe('HTTP API: throttling and reserved concurrency', () => {
  const stageOf = (s: Synth) => Object.entries(s.template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
  /** The GET routes anyone may call without an account (docs/SPEC.md: auth none or optional). */
  const publicReads = routes.filter((r) => r.method === 'GET' && ['none', 'optional', 'optional-lenient'].includes(r.auth)).map(routeKey);
  const stageWith = (context: Record<string, string>) => () => new MaktabaStack(new App({ context }), 'Throttle');

  it('limits every route to 100 requests a second (burst 200) by default, and each anonymous read route to 20 (burst 40)', () => {
    const [, stage] = stageOf(plain);
    expect(stage.Properties.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
    expect(publicReads).toEqual(expect.arrayContaining(['GET /ocr/books', 'GET /ocr/books/{bookTextId}', 'GET /audio/{bookId}/all']));
    expect(Object.keys(stage.Properties.RouteSettings).sort()).toEqual([...publicReads].sort());
    for (const key of publicReads) expect(stage.Properties.RouteSettings[key]).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 });
    // The worker callbacks and signed-in routes keep the whole default.
    for (const key of ['POST /ocr/result', 'POST /ocr/result/page', 'POST /ocr', 'POST /billing/webhook']) {
      expect(stage.Properties.RouteSettings[key], key).toBeUndefined();
    }
  });

  it('creates the stage after the routes its settings name (CloudFormation refuses settings for a missing route)', () => {
    const [, stage] = stageOf(plain);
    const apiRoutes = plain.template.findResources('AWS::ApiGatewayV2::Route');
    const throttled = Object.keys(apiRoutes).filter((id) => publicReads.includes(apiRoutes[id]!.Properties.RouteKey));
    expect(throttled).toHaveLength(publicReads.length);
    expect(stage.DependsOn).toEqual(expect.arrayContaining(throttled));
  });

  it('takes the rates and bursts from context', () => {
    const [, stage] = stageOf(configured);
    expect(stage.Properties.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 300, ThrottlingBurstLimit: 600 });
    for (const key of publicReads) expect(stage.Properties.RouteSettings[key]).toEqual({ ThrottlingRateLimit: 40, ThrottlingBurstLimit: 80 });
  });

  it('refuses throttle values that are not positive numbers, or an anonymous share above the default', () => {
    expect(stageWith({ apiThrottleRate: 'fast' })).toThrow(/apiThrottleRate must be a positive number/);
    expect(stageWith({ apiThrottleBurst: '0' })).toThrow(/apiThrottleBurst must be a positive whole number/);
    expect(stageWith({ publicReadThrottleBurst: '2.5' })).toThrow(/publicReadThrottleBurst must be a positive whole number/);
    expect(stageWith({ publicReadThrottleRate: '500' })).toThrow(/publicReadThrottleRate .* above apiThrottleRate/);
  });

  it('reserves no concurrency by default (a new account may have as little as 10 to share)', () => {
    for (const name of deployedFunctions()) {
      const props = plain.template.toJSON().Resources[logicalId(plain.stack, fn(plain.stack, name))].Properties;
      expect(props.ReservedConcurrentExecutions, name).toBeUndefined();
    }
  });

  it('reserves the concurrency the context names, per function, and no other', () => {
    const reserved = Object.fromEntries(
      deployedFunctions().map((name) => [name, configured.template.toJSON().Resources[logicalId(configured.stack, fn(configured.stack, name))].Properties.ReservedConcurrentExecutions]),
    );
    expect(reserved).toEqual(Object.fromEntries(deployedFunctions().map((name) => [name, { 'ocr-callbacks': 20, 'audio-worker': 5 }[name as string]])));
  });

  it('refuses a reservation for an unknown function, one that is not a positive whole number, or one below the audio worker’s queue concurrency', () => {
    expect(stageWith({ reservedConcurrency: '{"ocr-callback": 5}' })).toThrow(/reservedConcurrency: no function ocr-callback/);
    expect(stageWith({ reservedConcurrency: '{"ocr-api": 0}' })).toThrow(/reservedConcurrency: ocr-api must be a positive whole number/);
    expect(stageWith({ reservedConcurrency: '{"ocr-api": "many"}' })).toThrow(/reservedConcurrency: ocr-api must be a positive whole number/);
    expect(stageWith({ reservedConcurrency: '[5]' })).toThrow(/reservedConcurrency/);
    expect(stageWith({ reservedConcurrency: '{"audio-worker": 2}' })).toThrow(/audio-worker .* at least 5/);
  });
});

describe('functions', () => {
  it('deploys every function as nodejs22.x on arm64 from a bundle built at synth, the OCR worker’s from its arm64 image', () => {
    // With the built-in OCR worker's two functions (its own container image, test/cdk/ocr-worker.test.ts), the
    // media signing key's generator (inline, run once per deploy, untraced: test/cdk/media.test.ts)
    // and CDK's handler of the audio bucket's notification configuration (run at deploys; below).
    plain.template.resourceCountIs('AWS::Lambda::Function', deployedFunctions().length + 4);
    const keyGenerator = logicalId(plain.stack, plain.stack.media.keyGenerator);
    const worker = new Set(Object.values(plain.stack.ocrWorkerLambda!.functions).map((f) => logicalId(plain.stack, f)));
    const ours = Object.entries(plain.template.findResources('AWS::Lambda::Function')).filter(([id]) => !id.startsWith('BucketNotificationsHandler'));
    expect(ours).toHaveLength(deployedFunctions().length + 3);
    for (const [id, f] of ours) {
      expect(f.Properties, id).toMatchObject({
        ...(worker.has(id) ? { PackageType: 'Image' } : { Runtime: 'nodejs22.x', Handler: 'index.handler' }),
        Architectures: ['arm64'],
        MemorySize: expect.any(Number),
        LoggingConfig: { LogGroup: expect.anything() },
      });
      if (id !== keyGenerator) expect(f.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
    }
    plain.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    for (const name of deployedFunctions()) {
      expect(statSync(path.join(defaultOutDir, name, 'index.mjs')).mtimeMs).toBeGreaterThanOrEqual(started - 1000);
    }
  });

  it('lets notifications-api use the table and its indexes, and nothing DynamoDB-wide', () => {
    const table = logicalId(plain.stack, plain.stack.table);
    const dynamo = statementsOf(plain, 'notifications-api').filter((s) => actions(s).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo.flatMap(actions)).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query']));
    expect(dynamo.flatMap(actions)).not.toContain('dynamodb:Scan');
    const tableArn = { 'Fn::GetAtt': [table, 'Arn'] };
    expect(dynamo.flatMap(resources)).toContainEqual(tableArn);
    for (const index of tableSchema.indexes) {
      expect(dynamo.flatMap(resources)).toContainEqual({ 'Fn::Join': ['', [tableArn, `/index/${index.name}`]] });
    }
    expect(JSON.stringify(dynamo.flatMap(resources))).not.toContain('/index/*');
    // The one exception: a stream trigger's ListStreams (search-indexer), which accepts no resource but *.
    const dynamoWide = allStatements(plain.template).filter((s) => actions(s).some((a) => a.startsWith('dynamodb:')) && resources(s).includes('*'));
    expect(dynamoWide.flatMap(actions)).toEqual(['dynamodb:ListStreams']);
  });
});

describe('push', () => {
  it('grants no SNS access when no platform application is configured', () => {
    expect(allStatements(plain.template).flatMap(actions).filter((a) => a.startsWith('sns:'))).toEqual([]);
    // Applications given by ARN are the operator's: the stack makes none (test/cdk/push.test.ts makes them from credentials).
    for (const { template } of [plain, configured]) template.resourceCountIs('Custom::PushPlatformApplication', 0);
    expect(envOf(plain, 'notifications-api')).not.toHaveProperty('PUSH_IOS_APPLICATION_ARN');
  });

  it('scopes SNS to the configured applications and their endpoints', () => {
    const sns = statementsOf(configured, 'notifications-api').filter((s) => actions(s).some((a) => a.startsWith('sns:')));
    expect(sns).toContainEqual(expect.objectContaining({ Action: 'sns:CreatePlatformEndpoint', Resource: [iosApp, androidApp] }));
    expect(sns).toContainEqual(
      expect.objectContaining({
        Action: ['sns:Publish', 'sns:GetEndpointAttributes', 'sns:SetEndpointAttributes', 'sns:DeleteEndpoint'],
        Resource: [
          'arn:aws:sns:eu-west-1:123456789012:endpoint/APNS/Maktaba/*',
          'arn:aws:sns:eu-west-1:123456789012:endpoint/GCM/Maktaba/*',
        ],
      }),
    );
    expect(sns.flatMap(resources)).not.toContain('*');
    expect(envOf(configured, 'notifications-api')).toMatchObject({
      PUSH_IOS_APPLICATION_ARN: iosApp,
      PUSH_ANDROID_APPLICATION_ARN: androidApp,
    });
  });

  it('lets the functions that tell outcomes and send notifications push, and no other', () => {
    const pushes = (name: DeployedFunction) => statementsOf(configured, name).flatMap(actions).includes('sns:Publish');
    const pushing = deployedFunctions().filter(pushes).sort();
    expect(pushing).toEqual(['announcement-worker', 'audio-worker', 'notifications-api', 'ocr-callbacks', 'sweeper']);
    for (const name of pushing) expect(envOf(configured, name)).toMatchObject({ PUSH_IOS_APPLICATION_ARN: iosApp, PUSH_ANDROID_APPLICATION_ARN: androidApp });
  });

  it('rejects a context value that is not a platform application ARN', () => {
    const app = new App({ context: { pushIosApplicationArn: 'arn:aws:sns:eu-west-1:123456789012:endpoint/APNS/Maktaba/x' } });
    expect(() => new MaktabaStack(app, 'Bad')).toThrow(/pushIosApplicationArn/);
  });
});

describe('auth', () => {
  it('generates a JWT secret readable by the HTTP functions when no JWKS URL is given', () => {
    const secrets = plain.template.findResources('AWS::SecretsManager::Secret');
    const secret = Object.keys(secrets).find((id) => /HS256/.test(secrets[id]!.Properties.Description))!;
    expect(secret).toBeDefined();
    expect(envOf(plain, 'notifications-api')).toMatchObject({ AUTH_JWT_SECRET_ARN: { Ref: secret } });
    expect(envOf(plain, 'notifications-api')).not.toHaveProperty('AUTH_JWKS_URL');
    expect(statementsOf(plain, 'notifications-api')).toContainEqual(
      expect.objectContaining({ Action: expect.arrayContaining(['secretsmanager:GetSecretValue']), Resource: { Ref: secret } }),
    );
  });

  it('verifies against the JWKS URL instead, with no secret, when the context sets one', () => {
    // The only secret left is the media signing key (test/cdk/media.test.ts).
    const secrets = Object.keys(configured.template.findResources('AWS::SecretsManager::Secret'));
    expect(secrets).toEqual([logicalId(configured.stack, configured.stack.media.signingKey)]);
    const env = envOf(configured, 'notifications-api');
    expect(env).toMatchObject({
      AUTH_JWKS_URL: configuredContext.jwksUrl,
      AUTH_JWT_ISSUER: configuredContext.jwtIssuer,
      AUTH_JWT_AUDIENCE: configuredContext.jwtAudience,
    });
    expect(env).not.toHaveProperty('AUTH_JWT_SECRET_ARN');
    const secretReads = statementsOf(configured, 'notifications-api').filter((st) => actions(st).some((a) => a.startsWith('secretsmanager:')));
    expect(secretReads.flatMap(resources)).toEqual([{ Ref: secrets[0] }]);
  });

  it('refuses a JWKS URL without both an issuer and an audience, naming the missing context keys', () => {
    const stackWith = (context: Record<string, string>) => () => new MaktabaStack(new App({ context }), 'Jwks');
    const { jwksUrl, jwtIssuer, jwtAudience } = configuredContext;
    expect(stackWith({ jwksUrl })).toThrow(/jwksUrl needs jwtIssuer and jwtAudience/);
    expect(stackWith({ jwksUrl, jwtIssuer })).toThrow(/jwksUrl needs jwtAudience/);
    expect(stackWith({ jwksUrl, jwtAudience })).toThrow(/jwksUrl needs jwtIssuer/);
    // Secret mode signs its own tokens: issuer and audience stay optional there.
    expect(stackWith({ jwtIssuer })).not.toThrow();
  });
});

describe('OCR and billing', () => {
  const uploadsBucket = (s: Synth) => {
    const buckets = s.template.findResources('AWS::S3::Bucket');
    return Object.keys(buckets).find((id) => buckets[id]!.Properties.CorsConfiguration)!;
  };

  it('lets browsers POST uploads to the uploads bucket (CORS), and only that bucket', () => {
    expect(uploadsBucket(plain)).toBeDefined();
    const cors = plain.template.findResources('AWS::S3::Bucket')[uploadsBucket(plain)]!.Properties.CorsConfiguration.CorsRules[0];
    expect(cors.AllowedMethods).toEqual(expect.arrayContaining(['POST', 'GET']));
  });

  it('lets only ocr-api (and the sweeper, for a stalled job) send to the OCR queue, and exports its URL for the worker', () => {
    const sends = (name: DeployedFunction) => statementsOf(plain, name).filter((st) => actions(st).includes('sqs:SendMessage'));
    expect(sends('ocr-api')).toHaveLength(1);
    for (const name of ['ocr-callbacks', 'billing-webhook'] as const) expect(sends(name)).toEqual([]);
    const ocrQueue = logicalId(plain.stack, plain.stack.queues.ocrJobs);
    expect(sends('notifications-api').filter((st) => JSON.stringify(resources(st)).includes(ocrQueue))).toEqual([]);
    plain.template.hasOutput('OcrQueueUrl', {});
  });

  it('signs job credentials with a KMS HMAC key that ocr-api and the sweeper (a stalled job\'s message, issue 29) alone may sign with, and the worker\'s callers alone check', () => {
    const keys = plain.template.findResources('AWS::KMS::Key');
    const [keyId, key] = Object.entries(keys).find(([, k]) => k.Properties.KeySpec === 'HMAC_256')!;
    expect(key.Properties).toMatchObject({ KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' });
    // Kept with the stack gone: credentials in queued messages stay checkable.
    expect(key.DeletionPolicy).toBe('Retain');
    const kmsActions = (name: DeployedFunction) =>
      statementsOf(plain, name)
        .filter((st) => actions(st).some((a) => a.startsWith('kms:')))
        .map((st) => ({ actions: actions(st), resources: JSON.stringify(resources(st)) }));
    const on = JSON.stringify([{ 'Fn::GetAtt': [keyId, 'Arn'] }]);
    expect(kmsActions('ocr-api')).toEqual([
      { actions: ['kms:GenerateMac'], resources: on },
      { actions: ['kms:VerifyMac'], resources: on },
    ]);
    expect(kmsActions('ocr-callbacks')).toEqual([{ actions: ['kms:VerifyMac'], resources: on }]);
    expect(kmsActions('sweeper')).toEqual([{ actions: ['kms:GenerateMac'], resources: on }]);
    for (const name of deployedFunctions().filter((n) => !['ocr-api', 'ocr-callbacks', 'sweeper'].includes(n))) expect(kmsActions(name), name).toEqual([]);
    expect(envOf(plain, 'ocr-callbacks').JOB_CREDENTIAL_KEY_ID).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
  });

  it('gives the Stripe secret to the functions that invoice or take webhooks, and no other', () => {
    const readers = (s: Synth) =>
      deployedFunctions().filter((name) =>
        statementsOf(s, name).some((st) => actions(st).includes('secretsmanager:GetSecretValue') && JSON.stringify(st.Resource).includes('tripe')),
      );
    // ocr-callbacks no longer invoices: the billing worker does, off the request path.
    expect(readers(plain).sort()).toEqual(['billing-webhook', 'billing-worker']);
    // Neither reads tokens, so neither gets the JWT secret.
    for (const name of ['billing-webhook', 'billing-worker'] as const) {
      expect(statementsOf(plain, name).flatMap(actions).filter((a) => a.startsWith('secretsmanager:')).length).toBeGreaterThan(0);
      expect(statementsOf(plain, name).some((st) => JSON.stringify(st.Resource).includes('JwtSecret'))).toBe(false);
    }
    expect(readers(configured).sort()).toEqual(['billing-webhook', 'billing-worker']);
    expect(envOf(configured, 'billing-worker')).toMatchObject({ STRIPE_SECRET_ARN: stripeSecretArn });
  });

  it('expires dedup and upload records with the table TTL', () => {
    plain.template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: tableSchema.timeToLiveAttribute, Enabled: true },
    });
  });
});

describe('object grants', () => {
  /**
   * Every S3 action each function may take, on which bucket and key prefix, written out: a grant
   * wider than the code (finding: ocr-callbacks could read, write and delete uploaded files and page
   * images) fails here. Derived from the code paths: ocr-api puts jobs' files (multipart), signs POSTs
   * under incoming/, HEADs, copies (CopyObject: GetObject of the source, PutObject of the copy) and
   * deletes them (presigned uploads), and never reads a job's file; it reads, stores and replaces long
   * texts (PATCH); ocr-callbacks stores and replaces long texts only; ocr-export reads long texts and
   * puts exports; page images and exports are read through the media distribution; the
   * audio functions manage the audio bucket's MP3s; every HTTP function may put a big answer under
   * responses/ (read through the media distribution). ListBucket makes a missing key a 404, not a 403.
   */
  const expected: Record<DeployedFunction, string[]> = {
    'notifications-api': ['s3:PutObject uploads/responses/*'],
    'billing-webhook': ['s3:PutObject uploads/responses/*'],
    'billing-worker': [],
    'api-docs': [],
    sweeper: ['s3:DeleteObject uploads/incoming/*', 's3:DeleteObject uploads/ocr-results/*'],
    'ocr-api': [
      's3:ListBucket uploads',
      's3:PutObject uploads/ocr/*',
      's3:DeleteObject uploads/ocr/*',
      's3:GetObject uploads/incoming/*',
      's3:PutObject uploads/incoming/*',
      's3:DeleteObject uploads/incoming/*',
      's3:GetObject uploads/ocr-results/*',
      's3:PutObject uploads/ocr-results/*',
      's3:DeleteObject uploads/ocr-results/*',
      's3:PutObject uploads/responses/*',
    ],
    'ocr-callbacks': ['s3:PutObject uploads/ocr-results/*', 's3:DeleteObject uploads/ocr-results/*', 's3:PutObject uploads/responses/*'],
    'ocr-export': [
      's3:ListBucket uploads',
      's3:GetObject uploads/ocr-results/*',
      's3:PutObject uploads/exports/*',
      's3:PutObject uploads/responses/*',
    ],
    'audio-api': ['s3:ListBucket audio', 's3:GetObject audio/*', 's3:PutObject audio/*', 's3:DeleteObject audio/*', 's3:PutObject uploads/responses/*'],
    'audio-worker': ['s3:ListBucket audio', 's3:GetObject audio/*', 's3:PutObject audio/*', 's3:DeleteObject audio/*'],
    'announcement-worker': [],
    // HEAD only (GetObject authorizes it), and ListBucket so that a removed key reads as 404.
    'audio-files-sync': ['s3:ListBucket audio', 's3:GetObject audio/*'],
    'search-api': ['s3:PutObject uploads/responses/*'],
    'search-indexer': [],
    // GET /health: each bucket's location (its region), no object and no key listing.
    health: ['s3:GetBucketLocation audio', 's3:GetBucketLocation uploads'],
  };

  /** A function's S3 grants as `action bucket[/prefix]` lines, one per action and resource. */
  function objectGrants(s: Synth, name: DeployedFunction): string[] {
    const bucketNames = new Map(
      (['uploads', 'audio', 'accessLogs'] as const).map((b) => [logicalId(s.stack, s.stack.buckets[b]), b]),
    );
    const bucketOf = (arn: unknown): string => bucketNames.get((arn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]) ?? JSON.stringify(arn);
    const render = (resource: unknown): string => {
      const join = (resource as { 'Fn::Join'?: [string, [unknown, string]] })['Fn::Join'];
      return join ? `${bucketOf(join[1][0])}${join[1][1]}` : bucketOf(resource);
    };
    return statementsOf(s, name)
      .filter((st) => actions(st).some((a) => a.startsWith('s3:')))
      .flatMap((st) => actions(st).flatMap((a) => resources(st).map((r) => `${a} ${render(r)}`)))
      .sort();
  }

  it('names exactly the buckets, key prefixes and actions each function’s code uses', () => {
    for (const s of [plain, configured]) {
      expect(Object.keys(expected).sort()).toEqual([...deployedFunctions()].sort());
      for (const name of deployedFunctions()) expect(objectGrants(s, name), name).toEqual([...expected[name]].sort());
    }
  });
});

describe('Word export', () => {
  const uploadsBucket = (s: Synth) => {
    const buckets = s.template.findResources('AWS::S3::Bucket');
    return Object.keys(buckets).find((id) => buckets[id]!.Properties.CorsConfiguration)!;
  };

  it('lets ocr-export use the table and verify tokens, and nothing of queues, Stripe or Polly', () => {
    const all = statementsOf(plain, 'ocr-export').flatMap(actions);
    expect(all).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    expect(all.filter((a) => /^(sqs|polly|sns):/.test(a))).toEqual([]);
    expect(statementsOf(plain, 'ocr-export').some((st) => JSON.stringify(st.Resource).includes('JwtSecret'))).toBe(true);
    expect(statementsOf(plain, 'ocr-export').some((st) => JSON.stringify(st.Resource).includes('tripe'))).toBe(false);
  });

  it('gives ocr-export 1024 MB and API Gateway’s 29 s', () => {
    const id = logicalId(plain.stack, fn(plain.stack, 'ocr-export'));
    expect(plain.template.toJSON().Resources[id].Properties).toMatchObject({ MemorySize: 1024, Timeout: 29 });
  });

  it('expires exports/ in the uploads bucket after a day, and keeps the other rules', () => {
    const rules = plain.template.findResources('AWS::S3::Bucket')[uploadsBucket(plain)]!.Properties.LifecycleConfiguration.Rules;
    // What a presigned POST stores again after its job was created: after the sweeper's day, never before.
    expect(rules).toContainEqual(expect.objectContaining({ Prefix: 'incoming/', ExpirationInDays: 2, Status: 'Enabled' }));
    expect(rules).toContainEqual(expect.objectContaining({ Prefix: 'exports/', ExpirationInDays: 1, Status: 'Enabled' }));
    expect(rules).toContainEqual(expect.objectContaining({ Prefix: 'responses/', ExpirationInDays: 1, Status: 'Enabled' }));
    expect(rules).toContainEqual(expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 } }));
  });
});

describe('announcements (issue 31)', () => {
  const queue = () => logicalId(plain.stack, plain.stack.queues.announcements);

  it('triggers announcement-worker from its queue one step at a time, with partial batch failures, one at once per user partition', () => {
    plain.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(plain.stack, fn(plain.stack, 'announcement-worker')) },
      EventSourceArn: { 'Fn::GetAtt': [queue(), 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: announcementWorkerConcurrency },
    });
  });

  it('redrives a step that keeps failing to a dead-letter queue, which alarms', () => {
    const props = plain.template.toJSON().Resources[queue()].Properties;
    // Six times the worker's 120 s.
    expect(props).toMatchObject({ VisibilityTimeout: 720, RedrivePolicy: { maxReceiveCount: 5 } });
    const dlq = props.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string;
    plain.template.hasResourceProperties('AWS::CloudWatch::Alarm', { ...deadLetterAlarm(dlq), ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('lets only notifications-api, the worker (its next step) and the sweeper send to the queue, and gives them its URL', () => {
    const senders = deployedFunctions()
      .filter((name) => statementsOf(plain, name).some((st) => actions(st).includes('sqs:SendMessage') && JSON.stringify(resources(st)).includes(queue())))
      .sort();
    expect(senders).toEqual(['announcement-worker', 'notifications-api', 'sweeper']);
    for (const name of senders) expect(envOf(plain, name)).toMatchObject({ ANNOUNCEMENT_QUEUE_URL: { Ref: queue() } });
  });
});

describe('audio', () => {
  it('triggers audio-worker from the audio queue one message at a time, with partial batch failures and bounded concurrency', () => {
    const worker = logicalId(plain.stack, fn(plain.stack, 'audio-worker'));
    plain.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: worker },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: Match.anyValue() },
    });
    const queues = plain.template.findResources('AWS::SQS::Queue');
    const timeouts = Object.values(queues).map((q) => q.Properties.VisibilityTimeout).filter(Boolean);
    expect(timeouts).toContain(1800);
  });

  describe('the record of audio files follows the bucket (audio-files-sync)', () => {
    const queue = () => logicalId(plain.stack, plain.stack.queues.audioFileEvents);
    const bucket = () => logicalId(plain.stack, plain.stack.buckets.audio);

    it('announces every audio object stored in or removed from the audio bucket, and only there, on its queue', () => {
      const configs = Object.values(plain.template.findResources('Custom::S3BucketNotifications'));
      expect(configs).toHaveLength(1);
      const suffix = { Key: { FilterRules: [{ Name: 'suffix', Value: '.mp3' }] } };
      expect(configs[0]!.Properties).toMatchObject({
        BucketName: { Ref: bucket() },
        NotificationConfiguration: {
          QueueConfigurations: [
            { Events: ['s3:ObjectCreated:*'], Filter: suffix, QueueArn: { 'Fn::GetAtt': [queue(), 'Arn'] } },
            { Events: ['s3:ObjectRemoved:*'], Filter: suffix, QueueArn: { 'Fn::GetAtt': [queue(), 'Arn'] } },
          ],
        },
      });
      expect(Object.keys(configs[0]!.Properties.NotificationConfiguration)).toEqual(['QueueConfigurations']);
      // S3 may send to the queue for this bucket only; TLS is required of everyone else.
      plain.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queue() }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            {
              Effect: 'Allow',
              Principal: { Service: 's3.amazonaws.com' },
              Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
              Resource: { 'Fn::GetAtt': [queue(), 'Arn'] },
              Condition: { ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [bucket(), 'Arn'] } } },
            },
          ]),
        },
      });
    });

    it('redrives the queue to its own dead-letter queue after 5 receives, which alarms, and outputs it', () => {
      const props = plain.template.toJSON().Resources[queue()].Properties;
      // Six times the function's 60 s.
      expect(props).toMatchObject({ SqsManagedSseEnabled: true, VisibilityTimeout: 360, RedrivePolicy: { maxReceiveCount: 5 } });
      const dlq = props.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string;
      expect(dlq).toBe(logicalId(plain.stack, plain.stack.queues.audioFileEvents.deadLetterQueue!.queue));
      plain.template.hasResourceProperties('AWS::CloudWatch::Alarm', { ...deadLetterAlarm(dlq), ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      plain.template.hasOutput('AudioFileEventsDeadLetterQueueUrl', { Value: { Ref: dlq } });
    });

    it('triggers audio-files-sync from the queue, up to 10,000 messages (the most Lambda allows) gathered for 5 s, with partial batch failures and bounded concurrency', () => {
      const mappings = plain.template.findResources('AWS::Lambda::EventSourceMapping', {
        Properties: { FunctionName: { Ref: logicalId(plain.stack, fn(plain.stack, 'audio-files-sync')) } },
      });
      expect(Object.values(mappings).map((m) => m.Properties)).toEqual([
        {
          EventSourceArn: { 'Fn::GetAtt': [queue(), 'Arn'] },
          FunctionName: expect.anything(),
          BatchSize: 10_000,
          MaximumBatchingWindowInSeconds: 5,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          ScalingConfig: { MaximumConcurrency: 2 },
        },
      ]);
    });

    it('may update only audio-files items of the table, HEAD audio objects and take its queue, and nothing else', () => {
      const statements = statementsOf(plain, 'audio-files-sync');
      const table = { 'Fn::GetAtt': [logicalId(plain.stack, plain.stack.table), 'Arn'] };
      expect(statements.filter((st) => actions(st).some((a) => a.startsWith('dynamodb:')))).toEqual([
        { Effect: 'Allow', Action: 'dynamodb:UpdateItem', Resource: table, Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['AUDIO#*'] } } },
      ]);
      // The S3 grants are the object-grants test's: ListBucket and GetObject (HEAD) on the audio bucket.
      const sqs = statements.filter((st) => actions(st).some((a) => a.startsWith('sqs:')));
      expect(sqs.flatMap(resources)).toEqual([{ 'Fn::GetAtt': [queue(), 'Arn'] }]);
      expect(sqs.flatMap(actions).filter((a) => a === 'sqs:SendMessage')).toEqual([]);
      expect([...new Set(statements.flatMap(actions).map((a) => a.split(':')[0]))].sort()).toEqual(['dynamodb', 'logs', 's3', 'sqs', 'xray']);
    });

    it('lets CDK’s deploy-time handler put the audio bucket’s notification configuration and nothing else', () => {
      const handler = Object.keys(plain.template.findResources('AWS::Lambda::Function')).find((id) => id.startsWith('BucketNotificationsHandler'))!;
      const role = plain.template.toJSON().Resources[handler].Properties.Role['Fn::GetAtt'][0] as string;
      const policies = plain.template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: role }] } });
      expect(Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement)).toEqual([
        { Effect: 'Allow', Action: 's3:PutBucketNotification', Resource: { 'Fn::GetAtt': [bucket(), 'Arn'] } },
      ]);
    });
  });

  it('lets only the audio functions call Polly, and only SynthesizeSpeech', () => {
    const polly = (name: DeployedFunction) => statementsOf(plain, name).flatMap(actions).filter((a) => a.startsWith('polly:'));
    expect(polly('audio-api')).toEqual(['polly:SynthesizeSpeech']);
    expect(polly('audio-worker')).toEqual(['polly:SynthesizeSpeech']);
    for (const name of ['notifications-api', 'ocr-api', 'ocr-callbacks', 'billing-webhook'] as const) expect(polly(name)).toEqual([]);
  });
});

describe('billing worker', () => {
  it('runs every minute from a schedule, with no Lambda retries of a failed run (the next run retries)', () => {
    const worker = logicalId(plain.stack, fn(plain.stack, 'billing-worker'));
    plain.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [worker, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    plain.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: worker }, MaximumRetryAttempts: 0 });
    plain.template.hasResourceProperties('AWS::Lambda::Permission', { FunctionName: { 'Fn::GetAtt': [worker, 'Arn'] }, Principal: 'events.amazonaws.com' });
    expect(plain.template.toJSON().Resources[worker].Properties.Timeout).toBe(180);
  });

  it('may read and update items, put and delete only items of a job (owed usage), and query gsi1: no batch or scan', () => {
    const tableArn = { 'Fn::GetAtt': [logicalId(plain.stack, plain.stack.table), 'Arn'] };
    const dynamo = statementsOf(plain, 'billing-worker').filter((s) => actions(s).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo.map((s) => ({ actions: actions(s).sort(), resources: resources(s), condition: s.Condition }))).toEqual([
      { actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], resources: [tableArn], condition: undefined },
      // A job's usage log and its owed marker (pk OCRJOB#<jobId>): never a user's, a book's or any other item.
      {
        actions: ['dynamodb:DeleteItem', 'dynamodb:PutItem'],
        resources: [tableArn],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['OCRJOB#*'] } },
      },
      { actions: ['dynamodb:Query'], resources: [{ 'Fn::Join': ['', [tableArn, '/index/gsi1']] }], condition: undefined },
    ]);
  });
});

describe('sweeper', () => {
  it('runs the sweeper every hour, and lets it delete only presigned uploads and long texts no record names, reading or writing no object, and send stalled jobs again', () => {
    const sweeper = fn(plain.stack, 'sweeper');
    plain.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(plain.stack, sweeper), 'Arn'] } })],
    });
    const s3 = statementsOf(plain, 'sweeper').filter((st) => actions(st).some((a) => a.startsWith('s3:')));
    expect([...new Set(s3.flatMap(actions))]).toEqual(['s3:DeleteObject']);
    expect(JSON.stringify(s3.flatMap(resources))).toMatch(/\/incoming\/\*"/);
    expect(JSON.stringify(s3.flatMap(resources))).toMatch(/\/ocr-results\/\*"/);
    // Never a job's file (ocr/), a page image or an export.
    expect(JSON.stringify(s3.flatMap(resources))).not.toMatch(/\/ocr\/|exports/);
    expect(statementsOf(plain, 'sweeper').flatMap(actions).filter((a) => /^(polly|sns|secretsmanager):/.test(a))).toEqual([]);
    // Issue 29: a stalled job goes back to its own queue (an OCR job with a fresh credential); nothing is received or deleted.
    const sqs = statementsOf(plain, 'sweeper').filter((st) => actions(st).some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap(actions).filter((a) => a !== 'sqs:GetQueueAttributes' && a !== 'sqs:GetQueueUrl')).toEqual(['sqs:SendMessage', 'sqs:SendMessage', 'sqs:SendMessage']);
    const queueArn = (id: string) => JSON.stringify(sqs.flatMap(resources)).includes(id);
    // Issue 31: a stalled announcement's step goes back to its queue too.
    expect([queueArn('OcrJobs'), queueArn('AudioJobs'), queueArn('Announcements'), queueArn('DeadLetters')]).toEqual([true, true, true, false]);
    expect(statementsOf(plain, 'sweeper').flatMap(actions).filter((a) => a.startsWith('kms:'))).toEqual(['kms:GenerateMac']);
  });
});

describe('least privilege', () => {
  const roleOf = (s: Synth, name: DeployedFunction) => logicalId(s.stack, fn(s.stack, name).role!);

  it('gives each function a role of its own with no managed policy', () => {
    const roles = deployedFunctions().map((name) => roleOf(plain, name));
    expect(new Set(roles).size).toBe(deployedFunctions().length);
    for (const role of roles) {
      const resource = plain.template.toJSON().Resources[role];
      expect(resource.Properties.ManagedPolicyArns).toBeUndefined();
      expect(resource.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        expect.objectContaining({ Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }),
      ]);
    }
  });

  it('names every action exactly, and uses * as a resource only for X-Ray, Polly and the stream trigger’s ListStreams', () => {
    for (const s of [plain, configured]) {
      for (const name of deployedFunctions()) {
        for (const st of statementsOf(s, name)) {
          expect(actions(st).filter((a) => a.includes('*')), `${name}: ${actions(st)}`).toEqual([]);
          if (resources(st).includes('*')) {
            expect(actions(st).every((a) => /^(xray:Put|polly:SynthesizeSpeech$|dynamodb:ListStreams$)/.test(a)), `${name}: ${actions(st)}`).toBe(true);
          }
        }
      }
    }
  });

  it('lets each function write only to its own log group', () => {
    for (const name of deployedFunctions()) {
      const logGroup = plain.template.toJSON().Resources[logicalId(plain.stack, fn(plain.stack, name))].Properties.LoggingConfig.LogGroup;
      const writes = statementsOf(plain, name).filter((st) => actions(st).some((a) => a.startsWith('logs:')));
      expect(writes.flatMap(resources)).toEqual([{ 'Fn::GetAtt': [logGroup.Ref, 'Arn'] }]);
    }
  });

  it('gives a function only the services its access kinds name', () => {
    const services = (name: DeployedFunction) =>
      [...new Set(statementsOf(plain, name).flatMap(actions).map((a) => a.split(':')[0]))].sort();
    // Every HTTP function: s3 (put a big answer) and secretsmanager (the media signing key).
    // sqs: an announcement's first steps (issue 31).
    expect(services('notifications-api')).toEqual(['dynamodb', 'logs', 's3', 'secretsmanager', 'sqs', 'xray']);
    expect(services('billing-webhook')).toEqual(['dynamodb', 'logs', 's3', 'secretsmanager', 'xray']);
    // es: read after write's writes and the catalogue listing's index (test/cdk/search.test.ts).
    // kms: job credentials, issued with a job (ocr-api) and checked on the worker's calls (both).
    expect(services('ocr-api')).toEqual(['dynamodb', 'es', 'kms', 'logs', 's3', 'secretsmanager', 'sqs', 'xray']);
    expect(services('ocr-callbacks')).toEqual(['dynamodb', 'es', 'kms', 'logs', 's3', 'secretsmanager', 'xray']);
    // secretsmanager: the Stripe keys only (it verifies no tokens).
    expect(services('billing-worker')).toEqual(['dynamodb', 'logs', 'secretsmanager', 'xray']);
    expect(services('ocr-export')).toEqual(['dynamodb', 'logs', 's3', 'secretsmanager', 'xray']);
    expect(services('audio-api')).toEqual(['dynamodb', 'logs', 'polly', 's3', 'secretsmanager', 'sqs', 'xray']);
    // The worker's SQS actions are the trigger's (receive, delete) and its own chunk messages (send).
    expect(services('audio-worker')).toEqual(['dynamodb', 'logs', 'polly', 's3', 'sqs', 'xray']);
    // es: the search domain (test/cdk/search.test.ts); the indexer's sqs is its stream trigger's dead-letter queue.
    expect(services('search-api')).toEqual(['dynamodb', 'es', 'logs', 's3', 'secretsmanager', 'xray']);
    expect(services('search-indexer')).toEqual(['dynamodb', 'es', 'logs', 'sqs', 'xray']);
  });
});

describe('HTTP API: CORS and access logs', () => {
  const apiProps = (s: Synth) => Object.values(s.template.findResources('AWS::ApiGatewayV2::Api'))[0]!.Properties;

  it('answers browser preflights for any origin by default, without credentials', () => {
    expect(apiProps(plain).CorsConfiguration).toMatchObject({
      AllowOrigins: ['*'],
      AllowMethods: expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
      AllowHeaders: expect.arrayContaining(['authorization', 'content-type']),
      ExposeHeaders: expect.arrayContaining(['content-disposition']),
    });
    expect(apiProps(plain).CorsConfiguration.AllowCredentials).not.toBe(true);
  });

  it('allows only the configured origins when the context names them', () => {
    const { template } = synth({ corsOrigins: 'https://maktaba.example, http://localhost:5173' });
    const api = Object.values(template.findResources('AWS::ApiGatewayV2::Api'))[0]!.Properties;
    expect(api.CorsConfiguration.AllowOrigins).toEqual(['https://maktaba.example', 'http://localhost:5173']);
    expect(() => synth({ corsOrigins: 'https://maktaba.example/app' })).toThrow(/corsOrigins/);
  });

  it('logs every request of the $default stage as JSON with its request id, and no headers or query strings', () => {
    const stages = Object.values(plain.template.findResources('AWS::ApiGatewayV2::Stage'));
    expect(stages).toHaveLength(1);
    const stage = stages[0]!.Properties;
    expect(stage).toMatchObject({ StageName: '$default', AutoDeploy: true });
    const format = JSON.parse(stage.AccessLogSettings.Format as string) as Record<string, string>;
    expect(format).toMatchObject({ requestId: '$context.requestId', routeKey: '$context.routeKey', status: '$context.status' });
    expect(JSON.stringify(format)).not.toMatch(/header|querystring|authorizer/i);
    const logGroup = stage.AccessLogSettings.DestinationArn['Fn::GetAtt'][0] as string;
    expect(plain.template.toJSON().Resources[logGroup].Type).toBe('AWS::Logs::LogGroup');
  });
});

describe('server access logs', () => {
  it('sends the uploads and audio buckets’ access logs to the access-log bucket, which expires them', () => {
    const buckets = plain.template.findResources('AWS::S3::Bucket');
    const logs = logicalId(plain.stack, plain.stack.buckets.accessLogs);
    for (const bucket of [plain.stack.buckets.uploads, plain.stack.buckets.audio]) {
      expect(buckets[logicalId(plain.stack, bucket)]!.Properties.LoggingConfiguration).toMatchObject({ DestinationBucketName: { Ref: logs } });
    }
    expect(buckets[logs]!.Properties.LifecycleConfiguration.Rules).toContainEqual(expect.objectContaining({ ExpirationInDays: 90 }));
    expect(buckets[logs]!.Properties.OwnershipControls.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
  });
});

describe('alarms', () => {
  const alarms = () => Object.values(plain.template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
  const topic = () => Object.keys(plain.template.findResources('AWS::SNS::Topic'))[0]!;

  it('alarms on any error and any throttle of every function', () => {
    for (const name of deployedFunctions()) {
      const ref = { Ref: logicalId(plain.stack, fn(plain.stack, name)) };
      for (const metric of ['Errors', 'Throttles']) {
        expect(alarms(), `${name} ${metric}`).toContainEqual(
          expect.objectContaining({
            Namespace: 'AWS/Lambda',
            MetricName: metric,
            Dimensions: [{ Name: 'FunctionName', Value: ref }],
            Threshold: 1,
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          }),
        );
      }
    }
  });

  it('alarms when a message reaches any dead-letter queue', () => {
    const queues = plain.template.findResources('AWS::SQS::Queue');
    const deadLetterQueues = Object.values(queues).flatMap((q) => q.Properties.RedrivePolicy?.deadLetterTargetArn['Fn::GetAtt'][0] ?? []);
    expect(deadLetterQueues).toHaveLength(5);
    for (const dlq of deadLetterQueues) {
      expect(alarms()).toContainEqual(expect.objectContaining(deadLetterAlarm(dlq)));
    }
  });

  it('alarms when a completion owes its usage or a usage log waits over an hour for its invoice, when the billing worker reports nothing, on a failed invoice, and on overage owed by a user with no Stripe customer', () => {
    const dimensions = [
      { Name: 'function', Value: 'billing-worker' },
      { Name: 'service', Value: 'maktaba' },
    ];
    const byMetric = (name: string) => alarms().filter((a) => a.MetricName === name);
    /** An alarm on the oldest of what waits: an hour or more, or no report from the worker, alarms. */
    const anHourOld = (more: Record<string, unknown> = {}) =>
      expect.objectContaining({
        Namespace: 'Maktaba',
        Dimensions: expect.arrayContaining(dimensions),
        Statistic: 'Maximum',
        Period: 300,
        Threshold: 3600,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'breaching',
        ...more,
      });
    expect(byMetric('OldestPendingInvoiceSeconds')).toEqual([anHourOld()]);
    expect(byMetric('OverageInvoicesFailed')).toEqual([
      expect.objectContaining({ Namespace: 'Maktaba', Dimensions: expect.arrayContaining(dimensions), Statistic: 'Sum', Threshold: 1 }),
    ]);
    // Completed jobs whose usage is still owed after an hour (issue 29): not billed; a silent worker alarms too.
    expect(byMetric('OldestOwedUsageSeconds')).toEqual([anHourOld({ AlarmDescription: expect.stringContaining('not billed') })]);
    // paymentStatus no_customer: pages that no invoice covers, named as such for the operator.
    expect(byMetric('OverageWithoutCustomer')).toEqual([
      expect.objectContaining({
        Namespace: 'Maktaba',
        Dimensions: expect.arrayContaining(dimensions),
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmDescription: expect.stringContaining('no Stripe customer'),
      }),
    ]);
  });

  it('sends every alarm and its recovery to one encrypted, TLS-only topic', () => {
    // Errors and throttles of every function (the OCR worker's two too), the six dead-letter queues, the
    // billing worker's four (owed usage, and the invoices' three), and search's: the indexer's lag, a red cluster, free storage (test/cdk/search.test.ts).
    expect(alarms()).toHaveLength((deployedFunctions().length + 2) * 2 + 6 + 4 + 3);
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topic() }]);
      expect(alarm.OKActions).toEqual([{ Ref: topic() }]);
    }
    const props = plain.template.toJSON().Resources[topic()].Properties;
    expect(props.KmsMasterKeyId).toBeDefined();
    plain.template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    plain.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    plain.template.resourceCountIs('AWS::SNS::Subscription', 0);
    configured.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: configuredContext.alarmEmail });
    plain.template.hasOutput('AlarmTopicArn', {});
  });
});

describe('OCR worker access', () => {
  // With `ocrWorker=off` (as `configured`): the operator's own worker gets a role instead of the built-in one.
  const workerRole = (s: Synth) => s.template.toJSON().Resources[logicalId(s.stack, s.stack.ocrWorker!.role)].Properties;
  const workerPolicy = (s: Synth) => s.template.toJSON().Resources[logicalId(s.stack, s.stack.ocrWorker!.policy)].Properties;

  it('lets the worker consume the OCR queue, read uploaded files and put page images, and nothing else', () => {
    const uploadsKeys = (p: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalId(configured.stack, configured.stack.buckets.uploads), 'Arn'] }, p]] });
    const statements = workerPolicy(configured).PolicyDocument.Statement as Statement[];
    const queue = { 'Fn::GetAtt': [logicalId(configured.stack, configured.stack.queues.ocrJobs), 'Arn'] };
    expect(statements).toEqual([
      expect.objectContaining({ Action: expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']), Resource: queue }),
      expect.objectContaining({ Action: 's3:GetObject', Resource: uploadsKeys('/ocr/*') }),
      expect.objectContaining({ Action: 's3:PutObject', Resource: uploadsKeys('/ocr-pages/*') }),
    ]);
    // Half an hour to read a book before the message returns to the queue for another worker.
    expect(configured.template.toJSON().Resources[logicalId(configured.stack, configured.stack.queues.ocrJobs)].Properties.VisibilityTimeout).toBe(1800);
    expect(workerRole(configured).ManagedPolicyArns).toEqual([{ Ref: logicalId(configured.stack, configured.stack.ocrWorker!.policy) }]);
    for (const output of ['OcrWorkerRoleArn', 'OcrWorkerPolicyArn', 'OcrQueueUrl', 'OcrDeadLetterQueueUrl']) configured.template.hasOutput(output, {});
  });

  it('may be assumed from this account by default, or by the configured principal', () => {
    const principal = (s: Synth) => (workerRole(s).AssumeRolePolicyDocument.Statement as { Principal: { AWS: unknown } }[])[0]!.Principal.AWS;
    expect(JSON.stringify(principal(synth({ ocrWorker: 'off' })))).toContain(':root');
    expect(principal(configured)).toBe(configuredContext.ocrWorkerPrincipal);
    expect(() => synth({ ocrWorkerPrincipal: 'somebody' })).toThrow(/ocrWorkerPrincipal/);
  });
});

describe('configuration', () => {
  it('passes a voice map and a tier catalogue to the functions, validated at synth', () => {
    expect(envOf(configured, 'audio-worker')).toMatchObject({ VOICE_MAP: configuredContext.voiceMap, TIER_CATALOGUE: configuredContext.tierCatalogue });
    expect(envOf(plain, 'audio-worker')).not.toHaveProperty('VOICE_MAP');
    expect(() => synth({ voiceMap: '{"alloy":{"ar":{"voiceId":"Hala"}}}' })).toThrow(/voiceMap.*alloy\.ar/);
    expect(() => synth({ voiceMap: '{"marvin":{}}' })).toThrow(/voiceMap.*marvin/);
    expect(() => synth({ tierCatalogue: '{"tiers":{"basic":{"priceCents":"ten"}}}' })).toThrow(/tierCatalogue/);
  });

  it('outputs the dead-letter queues and the secrets an operator fills in', () => {
    for (const name of ['AudioDeadLetterQueueUrl', 'AccessLogsBucketName', 'JwtSecretArn', 'StripeSecretArn']) plain.template.hasOutput(name, {});
  });
});

describe('cdk-nag', () => {
  it('fails the synth on a finding nobody acknowledged', () => {
    const app = new App();
    const stack = new MaktabaStack(app, 'Loose');
    fn(stack, 'billing-webhook').addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:*'], resources: ['*'] }));
    addChecks(app);
    expect(() => app.synth()).toThrow(/AwsSolutions-IAM5\[Action::s3:\*\]/);
  });

  it('gives every acknowledged finding a reason', () => {
    const acknowledged = plain.stack.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
      .flatMap((m) => Object.entries(m.data as Record<string, string>));
    expect(new Set(acknowledged.map(([id]) => id.replace(/^\w+::/, '').replace(/\[.*/, '')))).toEqual(
      new Set([
        'AwsSolutions-APIG4',
        'AwsSolutions-L1',
        'AwsSolutions-IAM5',
        // CDK's handler of the audio bucket's notification configuration (AWSLambdaBasicExecutionRole).
        'AwsSolutions-IAM4',
        'AwsSolutions-SMG4',
        'AwsSolutions-CFR1',
        'AwsSolutions-CFR2',
        'AwsSolutions-CFR4',
        // The search domain and the indexer's dead-letter queue (test/cdk/search.test.ts).
        'AwsSolutions-OS1',
        'AwsSolutions-OS3',
        'AwsSolutions-OS4',
        'AwsSolutions-OS7',
        'AwsSolutions-SQS3',
      ]),
    );
    for (const [id, reason] of acknowledged) expect(reason.length, id).toBeGreaterThan(40);
  });
});
