import { App, type CfnElement } from 'aws-cdk-lib';
import { AssetManifestArtifact } from 'aws-cdk-lib/cx-api';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { Construct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { addChecks } from '../../infra/checks.ts';
import { defaultOcrWorkerConcurrency, ocrWorkerSizing, type OcrWorkerFunction } from '../../infra/ocr-worker-lambda.ts';
import { MaktabaStack } from '../../infra/stack.ts';
import { workerEnvironment } from '../../ocr-worker/lambda/deps.ts';
import './ocr-worker-stub.ts';
import { deadLetterAlarm } from './template.ts';

/**
 * The built-in OCR worker (infra/ocr-worker-lambda.ts): on by default, off with `-c ocrWorker=off`; from
 * its container image by default, from its zip with `-c ocrWorkerPackage=zip`.
 */

interface Synth {
  stack: MaktabaStack;
  template: Template;
}
type Statement = { Action: string | string[]; Resource: unknown };

function synth(context: Record<string, string>): Synth {
  const app = new App({ context });
  const stack = new MaktabaStack(app, 'Worker');
  addChecks(app);
  app.synth(); // cdk-nag: an unacknowledged finding throws
  return { stack, template: Template.fromStack(stack) };
}

const id = (s: Synth, c: Construct) => s.stack.getLogicalId(c.node.defaultChild as CfnElement);
const resource = (s: Synth, c: Construct) => s.template.toJSON().Resources[id(s, c)];
const worker = (s: Synth) => s.stack.ocrWorkerLambda!;

/** A role's statements as `action resource` lines, the resource named by its construct's logical id. */
function grants(s: Synth, fn: OcrWorkerFunction): string[] {
  const role = id(s, worker(s).roles[fn]);
  const policies = s.template.findResources('AWS::IAM::Policy', { Properties: { Roles: Match.arrayWith([{ Ref: role }]) } });
  const name = (r: unknown): string => {
    const json = JSON.stringify(r);
    const ref = /"(?:Ref|Fn::GetAtt)":\s*\[?"([A-Za-z0-9]+)"/.exec(json)?.[1] ?? json;
    const suffix = /"(\/[^"]*)"\]\]/.exec(json)?.[1] ?? '';
    return `${ref.replace(/[0-9A-F]{8}$/, '')}${suffix}`;
  };
  return Object.values(policies)
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
    .flatMap((st) => [st.Action].flat().flatMap((a) => [st.Resource].flat().map((r) => `${a} ${name(r)}`)))
    .sort();
}

let on: Synth;
let off: Synth;
let zip: Synth;

beforeAll(() => {
  on = synth({});
  off = synth({ ocrWorker: 'off' });
  zip = synth({ ocrWorkerPackage: 'zip' });
}, 240_000);

/** The stack's asset manifest entries of container images, by hash (what `cdk deploy` builds and pushes). */
function dockerImages(s: Synth): Record<string, { source: { directory: string; platform?: string; dockerFile?: string } }> {
  const assembly = (s.stack.node.root as App).synth();
  const manifests = assembly.artifacts.filter((a): a is AssetManifestArtifact => a instanceof AssetManifestArtifact);
  return Object.assign({}, ...manifests.map((m) => m.contents.dockerImages ?? {})) as ReturnType<typeof dockerImages>;
}

describe('the built-in OCR worker', () => {
  it('is deployed by default: two arm64 functions of one container image, each with its handler as the command, sized from its time limits', () => {
    const [job, pages] = (['job', 'pages'] as const).map((fn) => resource(on, worker(on).functions[fn]).Properties);
    for (const [fn, props] of [['job', job], ['pages', pages]] as const) {
      expect(props).toMatchObject({
        PackageType: 'Image',
        Architectures: ['arm64'],
        ImageConfig: { Command: [`${fn}.handler`] },
        MemorySize: ocrWorkerSizing[fn].memoryMb,
        Timeout: ocrWorkerSizing[fn].timeoutSeconds,
        TracingConfig: { Mode: 'Active' },
      });
      // An image brings its own runtime and entry point.
      expect(props.Runtime).toBeUndefined();
      expect(props.Handler).toBeUndefined();
    }
    expect(ocrWorkerSizing).toEqual({ job: { memoryMb: 2048, timeoutSeconds: 300 }, pages: { memoryMb: 2048, timeoutSeconds: 900 } });
    // One image, built and pushed once, for linux/arm64 from the staged context (infra/ocr-worker-image.ts).
    expect(job.Code.ImageUri).toEqual(pages.Code.ImageUri);
    const images = dockerImages(on);
    expect(Object.keys(images)).toHaveLength(1);
    const [hash, image] = Object.entries(images)[0]!;
    expect(JSON.stringify(job.Code.ImageUri)).toContain(`container-assets-\${AWS::AccountId}-\${AWS::Region}:${hash}`);
    expect(image.source).toMatchObject({ directory: `asset.${hash}`, platform: 'linux/arm64' });
    expect(image.source.dockerFile ?? 'Dockerfile').toBe('Dockerfile');
    const env = pages.Environment.Variables as Record<string, unknown>;
    expect(Object.keys(env).sort()).toEqual(Object.values(workerEnvironment).sort());
    expect(env[workerEnvironment.apiUrl]).toEqual({ 'Fn::GetAtt': [id(on, on.stack.api), 'ApiEndpoint'] });
    expect(on.stack.ocrWorker).toBeUndefined();
    expect(Object.keys(on.template.toJSON().Outputs)).not.toContain('OcrWorkerRoleArn');
    expect(Object.keys(on.template.toJSON().Outputs)).not.toContain('OcrWorkerTokenSecretArn');
  });

  it('with ocrWorkerPackage=zip, is the Node 22 zip as before: the same functions, queues, grants and variables, and no image', () => {
    for (const fn of ['job', 'pages'] as const) {
      const props = resource(zip, worker(zip).functions[fn]).Properties;
      expect(props).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: `${fn}.handler`,
        MemorySize: ocrWorkerSizing[fn].memoryMb,
        Timeout: ocrWorkerSizing[fn].timeoutSeconds,
        TracingConfig: { Mode: 'Active' },
        Code: { S3Bucket: expect.anything(), S3Key: expect.stringMatching(/\.zip$/) },
      });
      expect(props.PackageType).toBeUndefined();
      const imageProps = resource(on, worker(on).functions[fn]).Properties;
      expect(props.Environment).toEqual(imageProps.Environment);
      expect(grants(zip, fn)).toEqual(grants(on, fn));
    }
    expect(dockerImages(zip)).toEqual({});
    // Only the functions' code differs: every other resource is the image deploy's, property for property.
    const others = (s: Synth) => {
      const fns = new Set(Object.values(worker(s).functions).map((f) => id(s, f)));
      return Object.fromEntries(Object.entries(s.template.toJSON().Resources as Record<string, unknown>).filter(([key]) => !fns.has(key)));
    };
    expect(others(zip)).toEqual(others(on));
    expect(() => synth({ ocrWorkerPackage: 'docker' })).toThrow(/ocrWorkerPackage must be image or zip: docker/);
  });

  it('is left out with ocrWorker=off, which gives the external worker its role instead', () => {
    expect(off.stack.ocrWorkerLambda).toBeUndefined();
    expect(off.stack.ocrWorker).toBeDefined();
    off.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    expect(Object.keys(off.template.findResources('AWS::Lambda::Function'))).toHaveLength(Object.keys(on.template.findResources('AWS::Lambda::Function')).length - 2);
    expect(() => synth({ ocrWorker: 'maybe' })).toThrow(/ocrWorker must be on or off/);
  });

  it('is triggered by the OCR queue (job) and its own pages queue (pages), one message at a time, with partial batch failures', () => {
    const mapping = (s: Synth, fn: OcrWorkerFunction) =>
      Object.values(s.template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { FunctionName: { Ref: id(s, worker(s).functions[fn]) } } }))[0]!.Properties;
    expect(mapping(on, 'job')).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [id(on, on.stack.queues.ocrJobs), 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(mapping(on, 'pages')).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [id(on, worker(on).pagesQueue), 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: defaultOcrWorkerConcurrency },
    });
    expect(defaultOcrWorkerConcurrency).toBe(50);
  });

  it('takes the pages functions’ maximum concurrency from context, within what SQS triggers allow', () => {
    const s = synth({ ocrWorkerConcurrency: '20' });
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 20 } });
    expect(() => synth({ ocrWorkerConcurrency: '1' })).toThrow(/ocrWorkerConcurrency must be from 2 to 1000/);
    expect(() => synth({ ocrWorkerConcurrency: 'many' })).toThrow(/ocrWorkerConcurrency must be a positive whole number/);
  }, 120_000);

  it('keeps each queue’s message hidden for six times its function’s timeout, and dead-letters a task after five receives, with an alarm', () => {
    expect(resource(on, on.stack.queues.ocrJobs).Properties.VisibilityTimeout).toBe(6 * 300);
    const pages = resource(on, worker(on).pagesQueue).Properties;
    expect(pages.VisibilityTimeout).toBe(6 * 900);
    expect(pages.RedrivePolicy.maxReceiveCount).toBe(5);
    const dlq = pages.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string;
    on.template.hasResourceProperties('AWS::CloudWatch::Alarm', deadLetterAlarm(dlq));
    for (const fn of ['job', 'pages'] as const) {
      for (const metric of ['Errors', 'Throttles']) {
        on.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          MetricName: metric,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: id(on, worker(on).functions[fn]) } }],
        });
      }
    }
    on.template.hasOutput('OcrPagesDeadLetterQueueUrl', {});
  });

  it('keeps its ledger in a table of its own: on demand, expiring on expiresAt, with point-in-time recovery', () => {
    expect(resource(on, worker(on).ledger).Properties).toMatchObject({
      KeySchema: [
        { AttributeName: 'jobId', KeyType: 'HASH' },
        { AttributeName: 'item', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('holds no token: no secret of its own, no Secrets Manager grant, no token variable', () => {
    const t = on.template.toJSON() as { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
    const secrets = Object.values(t.Resources).filter((r) => r.Type === 'AWS::SecretsManager::Secret');
    expect(secrets.map((r) => String(r.Properties?.Description ?? ''))).not.toContainEqual(expect.stringMatching(/OCR worker/));
    for (const fn of Object.values(worker(on).functions)) {
      const variables = Object.keys((resource(on, fn).Properties.Environment as { Variables: Record<string, unknown> }).Variables);
      expect(variables.filter((v) => /TOKEN|SECRET/.test(v))).toEqual([]);
    }
  });

  it('gives each function its own role with exactly the grants its code uses', () => {
    // Logical ids without their hash suffix, as grants() names resources.
    const name = (c: Construct) => id(on, c).replace(/[0-9A-F]{8}$/, '');
    const [bucket, ledger, pagesQueue, ocrQueue] = [on.stack.buckets.uploads, worker(on).ledger, worker(on).pagesQueue, on.stack.queues.ocrJobs].map(name) as [string, string, string, string];
    const ledgerActions = ['BatchGetItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'].map((a) => `dynamodb:${a} ${ledger}`);
    const consume = (queue: string) =>
      ['ChangeMessageVisibility', 'DeleteMessage', 'GetQueueAttributes', 'GetQueueUrl', 'ReceiveMessage'].map((a) => `sqs:${a} ${queue}`);
    const common = (fn: OcrWorkerFunction) => [
      ...ledgerActions,
      `s3:GetObject ${bucket}/ocr/*`,
      'xray:PutTelemetryRecords "*"',
      'xray:PutTraceSegments "*"',
      ...['logs:CreateLogStream', 'logs:PutLogEvents'].map((a) => `${a} ${name(worker(on).functions[fn])}Logs`),
    ];
    expect(grants(on, 'job')).toEqual(
      [...common('job'), ...consume(ocrQueue), ...['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'].map((a) => `${a} ${pagesQueue}`)].sort(),
    );
    expect(grants(on, 'pages')).toEqual([...common('pages'), ...consume(pagesQueue), `s3:PutObject ${bucket}/ocr-pages/*`].sort());
    for (const fn of ['job', 'pages'] as const) {
      const role = resource(on, worker(on).roles[fn]).Properties;
      expect(role.ManagedPolicyArns).toBeUndefined();
      expect(role.AssumeRolePolicyDocument.Statement).toEqual([expect.objectContaining({ Principal: { Service: 'lambda.amazonaws.com' } })]);
    }
    expect(id(on, worker(on).roles.job)).not.toBe(id(on, worker(on).roles.pages));
  });
});
