import path from 'node:path';
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { httpFunctions, routes } from '../functions/routes.ts';
import { bundleFunctionsSync } from './bundle.ts';
import { access, audioWorkerConcurrency, deployedFunctions, sizingOf, type DeployedFunction } from './functions.ts';
import { exportsPrefix, grantAccess } from './permissions.ts';
import { readSettings, type Settings } from './settings.ts';
import { abandonedUploadsRule, browserUploads, dataTable, expiredExportsRule, jobQueue, privateBucket } from './storage.ts';

/**
 * The whole backend in one stack. Functions and routes are created in loops over the route table and
 * functions.ts, so a new function or route is data there, not code here.
 */
export class MaktabaStack extends Stack {
  readonly table: dynamodb.Table;
  readonly functions: ReadonlyMap<DeployedFunction, lambda.Function>;
  readonly api: HttpApi;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, { description: 'Maktaba: OCR, digitized books, text-to-speech and notifications', ...props });
    const settings = readSettings(this.node);

    this.table = dataTable(this);
    const uploads = privateBucket(this, 'Uploads', {
      lifecycleRules: [abandonedUploadsRule, expiredExportsRule(exportsPrefix)],
      cors: [browserUploads],
    });
    const audio = privateBucket(this, 'Audio');
    const ocrJobs = jobQueue(this, 'OcrJobs');
    // Six times the worker's timeout, as AWS advises for queues that trigger Lambda.
    const audioJobs = jobQueue(this, 'AudioJobs', { visibilityTimeout: Duration.seconds(sizingOf('audio-worker').timeoutSeconds * 6) });
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

    const environment: Record<string, string> = {
      TABLE_NAME: this.table.tableName,
      UPLOADS_BUCKET: uploads.bucketName,
      AUDIO_BUCKET: audio.bucketName,
      OCR_QUEUE_URL: ocrJobs.queueUrl,
      AUDIO_QUEUE_URL: audioJobs.queueUrl,
      ...authEnvironment(settings, jwtSecret),
      ...Object.fromEntries(
        settings.pushApplications.map((app) => [`PUSH_${app.platform.toUpperCase()}_APPLICATION_ARN`, app.arn]),
      ),
      ...(settings.tierCatalogue ? { TIER_CATALOGUE: settings.tierCatalogue } : {}),
      STRIPE_SECRET_ARN: stripeSecret.secretArn,
    };

    // Bundled now, at synth, so every synth and test deploys exactly what `npm run bench` measures.
    const bundles = bundleFunctionsSync({ functions: deployedFunctions() });
    // Only functions with a route that reads tokens verify them (billing-webhook's Stripe signature does not).
    const verifiesTokens = new Set<string>(routes.filter((r) => r.auth !== 'none').map((r) => r.function));
    const functions = new Map<DeployedFunction, lambda.Function>();
    for (const name of deployedFunctions()) {
      const bundle = bundles.find((b) => b.name === name)!;
      const fn = this.lambdaFunction(name, path.dirname(bundle.file), environment);
      grantAccess(fn, access[name], {
        table: this.table,
        pushApplications: settings.pushApplications,
        uploads,
        ocrQueue: ocrJobs,
        stripeSecret,
        audio,
        audioQueue: audioJobs,
      });
      if (verifiesTokens.has(name)) jwtSecret?.grantRead(fn);
      functions.set(name, fn);
    }
    this.functions = functions;

    // Partial batch failures: one failed chunk is retried alone. Bounded concurrency keeps Polly's rate.
    functions.get('audio-worker')!.addEventSource(
      new SqsEventSource(audioJobs, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: audioWorkerConcurrency }),
    );

    this.api = new HttpApi(this, 'Api', { description: 'Maktaba HTTP API' });
    const integrations = new Map(
      httpFunctions().map((name) => [
        name,
        new HttpLambdaIntegration(`${pascal(name)}Integration`, functions.get(name)!, {
          payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        }),
      ]),
    );
    for (const route of routes) {
      this.api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration: integrations.get(route.function)! });
    }

    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint });
    new CfnOutput(this, 'UploadsBucketName', { value: uploads.bucketName });
    new CfnOutput(this, 'AudioBucketName', { value: audio.bucketName });
    new CfnOutput(this, 'OcrQueueUrl', { value: ocrJobs.queueUrl });
    new CfnOutput(this, 'AudioQueueUrl', { value: audioJobs.queueUrl });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
  }

  /** One function with its own role (CDK's default) and its own log group kept for a month. */
  private lambdaFunction(name: DeployedFunction, assetDir: string, environment: Record<string, string>): lambda.Function {
    const id = pascal(name);
    const size = sizingOf(name);
    return new lambda.Function(this, id, {
      description: `Maktaba ${name}`,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: lambda.Code.fromAsset(assetDir),
      memorySize: size.memoryMb,
      timeout: Duration.seconds(size.timeoutSeconds),
      environment,
      logGroup: new logs.LogGroup(this, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH }),
    });
  }
}

function authEnvironment(settings: Settings, secret: secretsmanager.ISecret | undefined): Record<string, string> {
  const claims = {
    ...(settings.jwtIssuer ? { AUTH_JWT_ISSUER: settings.jwtIssuer } : {}),
    ...(settings.jwtAudience ? { AUTH_JWT_AUDIENCE: settings.jwtAudience } : {}),
  };
  if (settings.auth.mode === 'jwks') return { AUTH_JWKS_URL: settings.auth.jwksUrl, ...claims };
  return { AUTH_JWT_SECRET_ARN: secret!.secretArn, ...claims };
}

/** `notifications-api` -> `NotificationsApi`, for construct ids. */
const pascal = (name: string): string => name.replace(/(^|-)(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());
