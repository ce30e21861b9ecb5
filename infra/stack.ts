import path from 'node:path';
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { environmentFor, type Setting } from '../lib/config.ts';
import { routes } from '../functions/routes.ts';
import { httpApi } from './api.ts';
import { bundleFunctionsSync } from './bundle.ts';
import { TableBackups } from './backup.ts';
import { acknowledgeFindings } from './checks.ts';
import {
  access,
  audioFilesSyncTrigger,
  audioWorkerConcurrency,
  announcementWorkerConcurrency,
  billingWorkerEveryMinutes,
  deployedFunctions,
  sizingOf,
  sweepEveryMinutes,
  triggerVisibilitySeconds,
  type DeployedFunction,
} from './functions.ts';
import { Media } from './media.ts';
import { Alarms } from './monitoring.ts';
import { pascal } from './names.ts';
import { OcrWorkerAccess } from './ocr-worker.ts';
import { OcrWorkerLambda, visibilityFor } from './ocr-worker-lambda.ts';
import { accessStatements, functionRole, isSearchAccess, uploadsPrefixes, type Grantable } from './permissions.ts';
import { PushApplications } from './push.ts';
import { Search } from './search.ts';
import { pushContext, readSettings, type Settings } from './settings.ts';
import {
  accessLogsBucket,
  audioLifecycle,
  browserUploads,
  dataTable,
  jobQueue,
  notifyAudioChanges,
  privateBucket,
  uploadsLifecycle,
  versionedBucket,
} from './storage.ts';

/** A deployed function and the role that is its alone. */
export interface DeployedLambda {
  fn: lambda.Function;
  role: iam.Role;
}

/**
 * The whole backend in one stack. Functions and routes are created in loops over the route table and
 * functions.ts, so a new function or route is data there, not code here.
 */
export class MaktabaStack extends Stack {
  readonly table: dynamodb.Table;
  /** The table's weekly AWS Backup plan and its vault (backup.ts). */
  readonly backups: TableBackups;
  readonly functions: ReadonlyMap<DeployedFunction, lambda.Function>;
  readonly api: HttpApi;
  readonly buckets: { uploads: s3.Bucket; audio: s3.Bucket; accessLogs: s3.Bucket };
  readonly queues: { ocrJobs: sqs.Queue; audioJobs: sqs.Queue; announcements: sqs.Queue; audioFileEvents: sqs.Queue };
  /** The external worker's role and policy (`-c ocrWorker=off`), or the built-in worker (the default). */
  readonly ocrWorker?: OcrWorkerAccess;
  readonly ocrWorkerLambda?: OcrWorkerLambda;
  readonly alarms: Alarms;
  /** The CloudFront distribution of signed media URLs and its signing key. */
  readonly media: Media;
  /** The OpenSearch domain of full-text search and the search indexer's trigger. */
  readonly search: Search;
  /** The SNS platform applications the stack makes from credentials (none when given by ARN or not at all). */
  readonly push: PushApplications;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, { description: 'Maktaba: OCR, digitized books, text-to-speech and notifications', ...props });
    const settings = readSettings(this.node);
    // S3 log delivery is granted by a bucket policy rather than an ACL, so every bucket can refuse ACLs.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);

    this.table = dataTable(this);
    this.backups = new TableBackups(this, 'Backups', { table: this.table });
    const accessLogs = accessLogsBucket(this);
    const uploads = privateBucket(this, 'Uploads', accessLogs, {
      ...versionedBucket,
      lifecycleRules: uploadsLifecycle(uploadsPrefixes),
      cors: [browserUploads],
    });
    const audio = privateBucket(this, 'Audio', accessLogs, { ...versionedBucket, lifecycleRules: audioLifecycle });
    this.buckets = { uploads, audio, accessLogs };
    this.media = new Media(this, 'Media', { uploads, audio, accessLogs });
    // The external worker holds a job while it reads the whole book; it may extend this per message.
    // Also six times the built-in worker's job function timeout (ocr-worker-lambda.ts), as AWS advises.
    const ocrJobs = jobQueue(this, 'OcrJobs', { visibilityTimeout: visibilityFor('job') });
    const audioJobs = jobQueue(this, 'AudioJobs', { visibilityTimeout: Duration.seconds(triggerVisibilitySeconds('audio-worker')) });
    // An announcement's fan-out steps, for announcement-worker.
    const announcements = jobQueue(this, 'Announcements', { visibilityTimeout: Duration.seconds(triggerVisibilitySeconds('announcement-worker')) });
    // The audio bucket's changes, for audio-files-sync.
    const audioFileEvents = jobQueue(this, 'AudioFileEvents', { visibilityTimeout: Duration.seconds(triggerVisibilitySeconds('audio-files-sync')) });
    notifyAudioChanges(audio, audioFileEvents);
    this.queues = { ocrJobs, audioJobs, announcements, audioFileEvents };
    const jwtSecret =
      settings.auth.mode === 'secret'
        ? new secretsmanager.Secret(this, 'JwtSecret', {
            description: 'HS256 key that signs and verifies Maktaba access tokens',
            generateSecretString: { passwordLength: 64, excludePunctuation: true },
          })
        : undefined;

    const stripeSecret = settings.stripeSecretArn
      ? secretsmanager.Secret.fromSecretCompleteArn(this, 'StripeSecret', settings.stripeSecretArn)
      : new secretsmanager.Secret(this, 'StripeSecret', {
          description: 'Stripe keys for Maktaba: set {"secretKey": "sk_...", "webhookSecret": "whsec_..."} after the first deploy',
          generateSecretString: {
            secretStringTemplate: JSON.stringify({ secretKey: '', webhookSecret: '' }),
            generateStringKey: 'placeholder',
          },
        });

    // Signs job credentials; its material never leaves KMS, so nothing is ever rotated by hand.
    // Kept when the stack goes: credentials in queued messages would otherwise fail.
    const jobCredentialKey = new kms.Key(this, 'JobCredentialKey', {
      description: 'Maktaba: signs the OCR worker credential of each job (HMAC)',
      keySpec: kms.KeySpec.HMAC_256,
      keyUsage: kms.KeyUsage.GENERATE_VERIFY_MAC,
    });

    this.push = new PushApplications(this, 'Push', { credentials: settings.pushCredentials, revision: settings.pushCredentialsRevision });
    const pushApplications = [...settings.pushApplications, ...this.push.applications];

    const environment = environmentFor({
      tableName: this.table.tableName,
      uploadsBucket: uploads.bucketName,
      audioBucket: audio.bucketName,
      ocrQueueUrl: ocrJobs.queueUrl,
      audioQueueUrl: audioJobs.queueUrl,
      announcementQueueUrl: announcements.queueUrl,
      ...authSettings(settings, jwtSecret),
      ...Object.fromEntries(pushApplications.map((app) => [pushContext[app.platform], app.arn])),
      tierCatalogue: settings.tierCatalogue,
      voiceMap: settings.voiceMap,
      stripeSecretArn: stripeSecret.secretArn,
      jobCredentialKeyId: jobCredentialKey.keyArn,
    });

    this.alarms = new Alarms(this, 'Alarms', { email: settings.alarmEmail });
    this.alarms.watchDeadLetters('OcrJobs', ocrJobs.deadLetterQueue!.queue, 'OCR jobs');
    this.alarms.watchDeadLetters('AudioJobs', audioJobs.deadLetterQueue!.queue, 'Audio jobs');
    this.alarms.watchDeadLetters('Announcements', announcements.deadLetterQueue!.queue, 'Announcement steps');
    this.alarms.watchDeadLetters('AudioFileEvents', audioFileEvents.deadLetterQueue!.queue, 'Audio file events');
    this.search = new Search(this, 'Search', { settings: settings.search, alarms: this.alarms });

    // Bundled now, at synth, so every synth and test deploys exactly what `npm run bench` measures.
    const bundles = bundleFunctionsSync({ functions: deployedFunctions() });
    // Only functions with a route that reads tokens verify them (billing-webhook's Stripe signature does not).
    const verifiesTokens = new Set<string>(routes.filter((r) => r.auth !== 'none').map((r) => r.function));
    const grantable: Grantable = {
      table: this.table,
      pushApplications,
      uploads,
      ocrQueue: ocrJobs,
      stripeSecret,
      audio,
      audioQueue: audioJobs,
      announcementQueue: announcements,
      mediaSigningKey: this.media.signingKey,
      search: { domainArn: this.search.domainArn, index: this.search.index },
      jobCredentialKey,
    };
    const deployed = new Map<DeployedFunction, DeployedLambda>();
    for (const name of deployedFunctions()) {
      const bundle = bundles.find((b) => b.name === name)!;
      // The functions that sign media URLs get the distribution's variables with the key's grant (media-urls),
      // and those with a search kind the domain's (search-query, search-writes).
      const searchKinds = access[name].filter(isSearchAccess);
      const env = {
        ...environment,
        ...(access[name].includes('media-urls') ? this.media.environment : {}),
        ...(searchKinds.length > 0 ? this.search.environment : {}),
      };
      const lambdaFn = this.lambdaFunction(name, path.dirname(bundle.file), env, settings.reservedConcurrency[name]);
      for (const statement of accessStatements(access[name], grantable)) lambdaFn.role.addToPrincipalPolicy(statement);
      // The domain's own policy allows the same statements to this role, and to no one else.
      this.search.allow(lambdaFn.role, accessStatements(searchKinds, grantable));
      if (verifiesTokens.has(name)) jwtSecret?.grantRead(lambdaFn.role);
      this.alarms.watchFunction(pascal(name), lambdaFn.fn);
      deployed.set(name, lambdaFn);
    }
    this.functions = new Map([...deployed].map(([name, d]) => [name, d.fn]));

    // Partial batch failures: one failed chunk is retried alone. Bounded concurrency keeps Polly's rate.
    this.functions.get('audio-worker')!.addEventSource(
      new SqsEventSource(audioJobs, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: audioWorkerConcurrency }),
    );

    // An announcement's steps, one at a time per message; a failed step is delivered again alone.
    this.functions.get('announcement-worker')!.addEventSource(
      new SqsEventSource(announcements, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: announcementWorkerConcurrency }),
    );

    // The record of audio files follows the bucket: its event messages, a failed key's message retried alone.
    this.functions.get('audio-files-sync')!.addEventSource(
      new SqsEventSource(audioFileEvents, {
        batchSize: audioFilesSyncTrigger.batchSize,
        maxBatchingWindow: Duration.seconds(audioFilesSyncTrigger.maxBatchingWindowSeconds),
        reportBatchItemFailures: true,
        maxConcurrency: audioFilesSyncTrigger.maxConcurrency,
      }),
    );

    // Overage invoices (lib/billing/invoicing.ts): a run per minute takes the due pending usage logs. A failed
    // run is not retried by Lambda: the next scheduled run is the retry, so runs do not pile up.
    const billingWorker = this.functions.get('billing-worker')!;
    billingWorker.configureAsyncInvoke({ retryAttempts: 0 });
    new events.Rule(this, 'BillingWorkerSchedule', {
      description: 'Runs the Maktaba billing worker (overage invoices)',
      schedule: events.Schedule.rate(Duration.minutes(billingWorkerEveryMinutes)),
      targets: [new targets.LambdaFunction(billingWorker, { retryAttempts: 0 })],
    });
    this.alarms.watchInvoices('billing-worker');

    // The search index follows the table: BookText and BookTextPage changes, in order, from the stream.
    this.search.triggerIndexer(this.functions.get('search-indexer')!, this.table);

    // The sweeper runs on a schedule (functions.ts sweepEveryMinutes), one at a time.
    new events.Rule(this, 'SweepSchedule', {
      description: 'Maktaba: remove unclaimed uploads and abandoned imports',
      schedule: events.Schedule.rate(Duration.minutes(sweepEveryMinutes)),
      targets: [new targets.LambdaFunction(this.functions.get('sweeper')!, { retryAttempts: 2 })],
    });

    this.api = httpApi(this, { functions: this.functions, corsOrigins: settings.corsOrigins, throttle: settings.throttle });
    if (settings.ocrWorker.enabled) {
      this.ocrWorkerLambda = new OcrWorkerLambda(this, 'OcrWorkerLambda', {
        ocrQueue: ocrJobs,
        uploads,
        apiUrl: this.api.apiEndpoint,
        alarms: this.alarms,
        concurrency: settings.ocrWorker.concurrency,
        package: settings.ocrWorker.package,
      });
    } else {
      this.ocrWorker = new OcrWorkerAccess(this, 'OcrWorker', { queue: ocrJobs, uploads, principal: settings.ocrWorkerPrincipal });
    }

    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint });
    new CfnOutput(this, 'UploadsBucketName', { value: uploads.bucketName });
    new CfnOutput(this, 'AudioBucketName', { value: audio.bucketName });
    new CfnOutput(this, 'AccessLogsBucketName', { value: accessLogs.bucketName });
    new CfnOutput(this, 'OcrQueueUrl', { value: ocrJobs.queueUrl });
    new CfnOutput(this, 'OcrDeadLetterQueueUrl', { value: ocrJobs.deadLetterQueue!.queue.queueUrl });
    new CfnOutput(this, 'AudioQueueUrl', { value: audioJobs.queueUrl });
    new CfnOutput(this, 'AudioDeadLetterQueueUrl', { value: audioJobs.deadLetterQueue!.queue.queueUrl });
    new CfnOutput(this, 'AnnouncementsDeadLetterQueueUrl', { value: announcements.deadLetterQueue!.queue.queueUrl });
    new CfnOutput(this, 'AudioFileEventsDeadLetterQueueUrl', { value: audioFileEvents.deadLetterQueue!.queue.queueUrl });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'TableBackupVaultName', { value: this.backups.vault.backupVaultName });
    new CfnOutput(this, 'TableBackupRoleArn', { value: this.backups.role.roleArn });
    new CfnOutput(this, 'SearchDomainEndpoint', { value: `https://${this.search.domain.domainEndpoint}` });
    new CfnOutput(this, 'SearchIndexerDeadLetterQueueUrl', { value: this.search.indexerDeadLetters.queueUrl });
    if (jwtSecret) new CfnOutput(this, 'JwtSecretArn', { value: jwtSecret.secretArn });
    new CfnOutput(this, 'StripeSecretArn', { value: stripeSecret.secretArn });

    acknowledgeFindings(this, {
      api: this.api,
      functions: [...this.functions.values(), ...Object.values(this.ocrWorkerLambda?.functions ?? {})],
      roles: [...deployed.values()].map((d) => d.role).concat(Object.values(this.ocrWorkerLambda?.roles ?? {})),
      secrets: { jwt: jwtSecret, stripe: stripeSecret },
      uploads,
      audio,
      pushEndpoints: pushApplications.map((app) => app.endpointArns),
      push: this.push,
      media: this.media,
      search: this.search,
    });
  }

  /**
   * One function with a role of its own (logs, X-Ray, and the statements of its access kinds; no
   * managed policy) and its own log group kept for a month. Active tracing: Lambda starts each trace.
   * Reserved concurrency only when the context names one (settings.ts: none by default).
   */
  private lambdaFunction(name: DeployedFunction, assetDir: string, environment: Record<string, string>, reserved?: number): DeployedLambda {
    const id = pascal(name);
    const size = sizingOf(name);
    const role = functionRole(this, `${id}Role`, `Maktaba ${name}`);
    const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH });
    logGroup.grantWrite(role);
    const fn = new lambda.Function(this, id, {
      description: `Maktaba ${name}`,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: lambda.Code.fromAsset(assetDir),
      memorySize: size.memoryMb,
      timeout: Duration.seconds(size.timeoutSeconds),
      environment,
      role,
      logGroup,
      tracing: lambda.Tracing.ACTIVE,
      ...(reserved === undefined ? {} : { reservedConcurrentExecutions: reserved }),
    });
    return { fn, role };
  }
}

function authSettings(settings: Settings, secret: secretsmanager.ISecret | undefined): Partial<Record<Setting, string>> {
  const claims = { jwtIssuer: settings.jwtIssuer, jwtAudience: settings.jwtAudience };
  if (settings.auth.mode === 'jwks') return { jwksUrl: settings.auth.jwksUrl, ...claims };
  return { jwtSecretArn: secret!.secretArn, ...claims };
}
