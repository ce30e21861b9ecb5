import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ledgerKeys } from '../ocr-worker/adapters/dynamo-ledger.ts';
import { workerEnvironment } from '../ocr-worker/lambda/deps.ts';
import { worstPlanSeconds, worstTaskSeconds } from '../ocr-worker/lambda/limits.ts';
import type { Alarms } from './monitoring.ts';
import { bundleOcrWorkerSync } from './ocr-worker-bundle.ts';
import { buildOcrWorkerImageContextSync, ocrWorkerImagePlatform, stagedOnce } from './ocr-worker-image.ts';
import { functionRole, sendTo, uploadsPrefixes } from './permissions.ts';
import { jobQueue } from './storage.ts';

/**
 * The reference OCR worker on AWS (issue 13), deployed by the same stack unless `-c ocrWorker=off`.
 * It is a client of the service: it takes the OCR queue's job messages, reads the files and puts
 * page images in the uploads bucket, and reports through the HTTP API with each job's own credential,
 * which the job's message carries (it holds no token). A job fans out to tasks of 8 pages on a queue of its own, so that no function
 * reads a whole book: `job` (the OCR queue's trigger) plans and sends the tasks, `pages` (the pages
 * queue's trigger) reads them; a DynamoDB ledger of its own makes redeliveries and races harmless.
 */

export type OcrWorkerFunction = 'job' | 'pages';

/**
 * Sizing, from the worker's own time limits (ocr-worker/lambda/limits.ts). 2048 MB gives 1.16 vCPU:
 * tesseract reads on one worker thread while the main thread renders and encodes the next page, and
 * the memory holds a tesseract worker (its wasm heap grows to about 600 MB before it is recycled), a
 * 40-megapixel page at most (160 MB of RGBA) and an image file of up to 200 MB read whole. More memory
 * buys no faster OCR (one thread reads). `pages` may take Lambda's 15 minutes: a task of 8 pages
 * takes about 8 × 4.5 s here, and even one whose every page runs into every limit ends in time.
 * `job` opens the file and decides a PDF's text layer on one sample page. The same for both packages:
 * the image's native tesseract (a process per model and layout, kept between pages: about 30 MB resident
 * when idle, 250-300 MB while reading an A4 page) needs no more than the zip's tesseract.js; what it saves
 * has not been measured on Lambda.
 */
export const ocrWorkerSizing: Record<OcrWorkerFunction, { memoryMb: number; timeoutSeconds: number }> = {
  job: { memoryMb: 2048, timeoutSeconds: 300 },
  pages: { memoryMb: 2048, timeoutSeconds: 900 },
};
if (worstTaskSeconds > ocrWorkerSizing.pages.timeoutSeconds || worstPlanSeconds > ocrWorkerSizing.job.timeoutSeconds) {
  throw new Error('ocr-worker: its time limits (ocr-worker/lambda/limits.ts) no longer fit its functions’ timeouts');
}

/** Six times the function's timeout, as AWS advises for a queue that triggers a function. */
export const visibilityFor = (fn: OcrWorkerFunction): Duration => Duration.seconds(ocrWorkerSizing[fn].timeoutSeconds * 6);

/** Pages functions at once (the pages queue trigger's maximum concurrency); `-c ocrWorkerConcurrency=n`. */
export const defaultOcrWorkerConcurrency = 50;

/**
 * How the worker's code is deployed (`-c ocrWorkerPackage=…`): `image`, a container image with native
 * tesseract (infra/ocr-worker-image.ts; `cdk deploy` needs Docker), or `zip`, the Node 22 runtime's zip
 * that reads with tesseract.js (infra/ocr-worker-bundle.ts; no Docker), for operators without Docker.
 */
export const ocrWorkerPackages = ['image', 'zip'] as const;
export type OcrWorkerPackage = (typeof ocrWorkerPackages)[number];
export const defaultOcrWorkerPackage: OcrWorkerPackage = 'image';

/** The ledger's item actions the worker uses (TransactWriteItems is authorized by each item's Put and Update); no Scan, no Delete. */
export const ledgerItemActions = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

export interface OcrWorkerGrantable {
  uploads: s3.IBucket;
  pagesQueue: sqs.IQueue;
  ledger: dynamodb.ITable;
}

/**
 * What each of the worker's functions may do beyond its logs, X-Ray and its queue trigger's consume
 * (which the event source grants): `job` reads the uploaded file and sends tasks; `pages` reads the
 * file and puts page images. Both keep the ledger. Neither holds a credential of the service: each job's
 * message carries its own (lib/auth/job-credentials.ts).
 */
export function ocrWorkerStatements(fn: OcrWorkerFunction, on: OcrWorkerGrantable): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [on.uploads.arnForObjects(`${uploadsPrefixes.files}*`)] }),
    ...(fn === 'pages'
      ? [new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [on.uploads.arnForObjects(`${uploadsPrefixes.pageImages}*`)] })]
      : sendTo(on.pagesQueue)),
    new iam.PolicyStatement({ actions: [...ledgerItemActions], resources: [on.ledger.tableArn] }),
  ];
}

export interface OcrWorkerLambdaProps {
  ocrQueue: sqs.IQueue;
  uploads: s3.IBucket;
  /** The API's base URL (the callbacks). */
  apiUrl: string;
  alarms: Alarms;
  concurrency: number;
  package: OcrWorkerPackage;
}

export class OcrWorkerLambda extends Construct {
  readonly functions: Record<OcrWorkerFunction, lambda.Function>;
  readonly roles: Record<OcrWorkerFunction, iam.Role>;
  readonly pagesQueue: sqs.Queue;
  readonly ledger: dynamodb.Table;

  constructor(scope: Construct, id: string, props: OcrWorkerLambdaProps) {
    super(scope, id);
    this.pagesQueue = jobQueue(this, 'PagesQueue', { visibilityTimeout: visibilityFor('pages') });
    // The worker's own record of its jobs, never the service's table; items expire a month after their job.
    this.ledger = new dynamodb.Table(this, 'Ledger', {
      partitionKey: { name: ledgerKeys.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: ledgerKeys.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: ledgerKeys.ttl,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      // What it holds is only worth a month; losing it with the stack costs at most a re-read.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const environment = {
      [workerEnvironment.ledgerTable]: this.ledger.tableName,
      [workerEnvironment.pagesQueueUrl]: this.pagesQueue.queueUrl,
      [workerEnvironment.apiUrl]: props.apiUrl,
    };
    const code = workerCode(props.package);
    const grantable = { uploads: props.uploads, pagesQueue: this.pagesQueue, ledger: this.ledger };
    const made = (['job', 'pages'] as const).map((fn) => {
      const made = this.workerFunction(fn, code(fn), environment);
      for (const statement of ocrWorkerStatements(fn, grantable)) made.role.addToPrincipalPolicy(statement);
      props.alarms.watchFunction(`OcrWorker${fn === 'job' ? 'Job' : 'Pages'}`, made.fn);
      return [fn, made] as const;
    });
    this.functions = { job: made[0]![1].fn, pages: made[1]![1].fn };
    this.roles = { job: made[0]![1].role, pages: made[1]![1].role };

    this.functions.job.addEventSource(new SqsEventSource(props.ocrQueue, { batchSize: 1, reportBatchItemFailures: true }));
    this.functions.pages.addEventSource(
      new SqsEventSource(this.pagesQueue, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: props.concurrency }),
    );
    props.alarms.watchDeadLetters('OcrPages', this.pagesQueue.deadLetterQueue!.queue, 'OCR worker page tasks');

    new CfnOutput(Stack.of(this), 'OcrPagesDeadLetterQueueUrl', { value: this.pagesQueue.deadLetterQueue!.queue.queueUrl });
  }

  /**
   * As the stack's functions: arm64, a role and a log group (30 days) of its own, active tracing; from
   * the zip, on nodejs22.x, or from the image, whose command names the handler.
   */
  private workerFunction(fn: OcrWorkerFunction, code: WorkerCode, environment: Record<string, string>) {
    const id = fn === 'job' ? 'Job' : 'Pages';
    const role = functionRole(Stack.of(this), `OcrWorker${id}Role`, `Maktaba OCR worker: ${fn}`);
    const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH });
    logGroup.grantWrite(role);
    const common = {
      description: `Maktaba OCR worker: ${fn === 'job' ? 'plans a job into page tasks' : 'reads a task of pages'}`,
      architecture: lambda.Architecture.ARM_64,
      memorySize: ocrWorkerSizing[fn].memoryMb,
      timeout: Duration.seconds(ocrWorkerSizing[fn].timeoutSeconds),
      environment,
      role,
      logGroup,
      tracing: lambda.Tracing.ACTIVE,
    };
    const f =
      'image' in code
        ? new lambda.DockerImageFunction(this, id, { ...common, code: code.image })
        : new lambda.Function(this, id, { ...common, runtime: ocrWorkerRuntime, handler: handlerOf(fn), code: code.zip });
    return { fn: f, role };
  }
}

/** The zip's runtime; the image's Node is of the same major version (ocr-worker/image/Dockerfile, held by a test). */
export const ocrWorkerRuntime = lambda.Runtime.NODEJS_22_X;

/** Each function's handler: `<file>.<export>` of the bundle, the zip's Handler and the image's command alike. */
export const handlerOf = (fn: OcrWorkerFunction): string => `${fn}.handler`;

/**
 * Each function's code. Built at synth like the service's bundles; OCR_WORKER_ASSET names a bundle built
 * already (the CDK tests' stub). One image asset for both functions: the same context makes the same
 * hash, which CDK builds and pushes once.
 */
function workerCode(kind: OcrWorkerPackage): (fn: OcrWorkerFunction) => WorkerCode {
  const prebuilt = process.env.OCR_WORKER_ASSET;
  if (kind === 'zip') {
    const zip = lambda.Code.fromAsset(prebuilt || bundleOcrWorkerSync().dir);
    return () => ({ zip });
  }
  const context = prebuilt ? stagedOnce(prebuilt) : buildOcrWorkerImageContextSync();
  return (fn) => ({ image: lambda.DockerImageCode.fromImageAsset(context, { platform: ocrWorkerImagePlatform, cmd: [handlerOf(fn)] }) });
}

type WorkerCode = { zip: lambda.Code } | { image: lambda.DockerImageCode };
