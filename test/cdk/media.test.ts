import crypto from 'node:crypto';
import * as secretsmanager from '@aws-sdk/client-secrets-manager';
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { mockClient } from 'aws-sdk-client-mock';
import type { Construct } from 'constructs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { httpFunctions } from '../../functions/routes.ts';
import { deployedFunctions, selfContained } from '../../infra/functions.ts';
import { keyGeneratorSource } from '../../infra/media.ts';
import './ocr-worker-stub.ts';
import { actions, allStatements, envOf, logicalId, resources, roleStatements, statementsOf, synth, type Statement, type Synth } from './template.ts';

/** The media distribution, its signing key and what the functions get of them (infra/media.ts). */

let s: Synth;

beforeAll(() => {
  s = synth({});
}, 120_000);

const id = (c: Construct) => logicalId(s.stack, c);
const media = () => s.stack.media;
const resource = (c: Construct) => s.template.toJSON().Resources[id(c)];
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- CloudFormation JSON
type Json = any;
const config = (): Json => resource(media().distribution).Properties.DistributionConfig;
const behaviors = (): Json[] => [config().DefaultCacheBehavior, ...config().CacheBehaviors];
/** The bucket (logical id) behind each origin id. */
const originBuckets = (): Record<string, string> =>
  Object.fromEntries((config().Origins as Json[]).map((o) => [o.Id, o.DomainName['Fn::GetAtt'][0]]));
const objectsOf = (bucket: string, prefix: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, `/${prefix}*`]] });
/** Every statement of every bucket policy that names CloudFront as its principal, by bucket. */
function cloudFrontStatements(): Record<string, Statement[]> {
  const policies = Object.values(s.template.findResources('AWS::S3::BucketPolicy'));
  return Object.fromEntries(
    policies
      .map((p) => [p.Properties.Bucket.Ref, (p.Properties.PolicyDocument.Statement as Statement[]).filter((st) => JSON.stringify(st.Principal).includes('cloudfront'))] as const)
      .filter(([, statements]) => statements.length > 0),
  );
}

describe('media distribution', () => {
  it('serves audio by default and the served prefixes of the uploads bucket, GET and HEAD over HTTPS, every behaviour signed-URL only', () => {
    const uploads = id(s.stack.buckets.uploads);
    const audio = id(s.stack.buckets.audio);
    const buckets = originBuckets();
    expect(buckets[config().DefaultCacheBehavior.TargetOriginId]).toBe(audio);
    expect((config().CacheBehaviors as Json[]).map((b) => [b.PathPattern, buckets[b.TargetOriginId]])).toEqual([
      ['ocr-pages/*', uploads],
      ['ocr/*', uploads],
      ['exports/*', uploads],
      ['responses/*', uploads],
    ]);
    for (const b of behaviors()) {
      expect(b, b.PathPattern ?? 'default').toMatchObject({
        AllowedMethods: ['GET', 'HEAD'],
        CachedMethods: ['GET', 'HEAD'],
        ViewerProtocolPolicy: 'redirect-to-https',
        TrustedKeyGroups: [{ Ref: id(media().keyGroup) }],
      });
      expect(b.TrustedSigners).toBeUndefined();
    }
  });

  it('reaches both buckets through one origin access control that signs every request', () => {
    const oac = Object.keys(s.template.findResources('AWS::CloudFront::OriginAccessControl'));
    expect(oac).toHaveLength(1);
    s.template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' },
    });
    expect(config().Origins).toHaveLength(2);
    for (const origin of config().Origins as Json[]) {
      expect(origin).toMatchObject({ OriginAccessControlId: { 'Fn::GetAtt': [oac[0], 'Id'] }, S3OriginConfig: { OriginAccessIdentity: '' } });
    }
    s.template.resourceCountIs('AWS::CloudFront::CloudFrontOriginAccessIdentity', 0);
  });

  it('lets the distribution read every audio key and only the served prefixes of the uploads bucket: never ocr-results/', () => {
    const uploads = id(s.stack.buckets.uploads);
    const audio = id(s.stack.buckets.audio);
    const statements = cloudFrontStatements();
    expect(Object.keys(statements).sort()).toEqual([audio, uploads].sort());
    const sourceArn = {
      StringEquals: {
        'AWS:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudfront::', { Ref: 'AWS::AccountId' }, ':distribution/', { Ref: id(media().distribution) }]] },
      },
    };
    expect(statements[audio]).toEqual([
      expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'cloudfront.amazonaws.com' }, Action: 's3:GetObject', Resource: objectsOf(audio, ''), Condition: sourceArn }),
    ]);
    expect(statements[uploads]).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Resource: ['ocr-pages/', 'ocr/', 'exports/', 'responses/'].map((p) => objectsOf(uploads, p)),
        Condition: sourceArn,
      }),
    ]);
    expect(JSON.stringify(statements[uploads])).not.toContain('ocr-results');
    // CDK's whole-bucket grant was not added (the uploads origin is given a reference), and nothing warns about it.
    expect(JSON.stringify(statements[uploads])).not.toContain('"/*"');
    expect(Annotations.fromStack(s.stack).findWarning('*', Match.stringLikeRegexp('bucket policy'))).toEqual([]);
  });

  it('caches audio, page images and uploaded files by object key alone (no query string, header or cookie), and never exports or big answers', () => {
    const byPattern = Object.fromEntries(behaviors().map((b) => [b.PathPattern ?? 'default', b.CachePolicyId]));
    const cached = { Ref: id(media().mediaCache) };
    expect(byPattern).toEqual({
      default: cached,
      'ocr-pages/*': cached,
      'ocr/*': cached,
      'exports/*': cloudfront.CachePolicy.CACHING_DISABLED.cachePolicyId,
      'responses/*': cloudfront.CachePolicy.CACHING_DISABLED.cachePolicyId,
    });
    expect(cloudfront.CachePolicy.CACHING_DISABLED.cachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    const policy = resource(media().mediaCache).Properties.CachePolicyConfig;
    expect(policy.ParametersInCacheKeyAndForwardedToOrigin).toEqual({
      QueryStringsConfig: { QueryStringBehavior: 'none' },
      HeadersConfig: { HeaderBehavior: 'none' },
      CookiesConfig: { CookieBehavior: 'none' },
      EnableAcceptEncodingGzip: false,
      EnableAcceptEncodingBrotli: false,
    });
    expect(policy).toMatchObject({ MinTTL: 0, DefaultTTL: 30 * 86_400, MaxTTL: 365 * 86_400 });
  });

  it('logs requests to a bucket of its own that takes CloudFront’s log delivery (ACLs enabled), private and expired after 90 days', () => {
    const logs = id(media().logs);
    expect(config().Logging).toEqual({ Bucket: { 'Fn::GetAtt': [logs, 'RegionalDomainName'] } });
    expect(resource(media().logs)).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }] },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        LifecycleConfiguration: { Rules: [{ ExpirationInDays: 90, Status: 'Enabled' }] },
        LoggingConfiguration: { DestinationBucketName: { Ref: id(s.stack.buckets.accessLogs) } },
      },
    });
  });

  it('outputs the distribution’s domain name', () => {
    s.template.hasOutput('MediaDomainName', { Value: { 'Fn::GetAtt': [id(media().distribution), 'DomainName'] } });
  });
});

describe('media signing key', () => {
  it('trusts the public key that the key generator returns, alone in the distribution’s key group', () => {
    s.template.resourceCountIs('AWS::CloudFront::KeyGroup', 1);
    s.template.resourceCountIs('AWS::CloudFront::PublicKey', 1);
    expect(resource(media().keyGroup).Properties.KeyGroupConfig.Items).toEqual([{ Ref: id(media().publicKey) }]);
    expect(resource(media().publicKey).Properties.PublicKeyConfig.EncodedKey).toEqual({ 'Fn::GetAtt': [id(media().keyPair), 'PublicKey'] });
    expect(resource(media().keyPair)).toMatchObject({
      Type: 'Custom::MediaSigningKey',
      Properties: { ServiceToken: { 'Fn::GetAtt': [id(media().keyGenerator), 'Arn'] }, SecretArn: { Ref: id(media().signingKey) }, ServiceTimeout: '300' },
    });
  });

  it('runs the inline key generator once per request (no retries), on Node 22', () => {
    expect(resource(media().keyGenerator).Properties).toMatchObject({ Runtime: 'nodejs22.x', Handler: 'index.handler', Code: { ZipFile: keyGeneratorSource } });
    s.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: id(media().keyGenerator) }, MaximumRetryAttempts: 0 });
    // The custom resource waits for the whole function, its no-retry setting included.
    expect(resource(media().keyPair).DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/^MediaKeyGeneratorEventInvokeConfig/)]));
  });

  it('keeps the private key in a secret of the stack that only the key generator may write', () => {
    expect(resource(media().signingKey).Type).toBe('AWS::SecretsManager::Secret');
    const secret = { Ref: id(media().signingKey) };
    expect(roleStatements(s, media().keyGeneratorRole).map((st) => ({ Action: st.Action, Resource: st.Resource }))).toEqual([
      { Action: 'secretsmanager:PutSecretValue', Resource: secret },
      { Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [id(media().keyGenerator.logGroup), 'Arn'] } },
    ]);
    expect(resource(media().keyGeneratorRole).Properties.ManagedPolicyArns).toBeUndefined();
    const writers = allStatements(s.template).filter((st) => actions(st).some((a) => /^secretsmanager:(Put|Update|Delete|Restore|Rotate)/.test(a)));
    expect(writers.flatMap(resources)).toEqual([secret]);
  });
});

describe('what the functions get', () => {
  // Every HTTP function but those whose answers are their own files (infra/functions.ts).
  const http = new Set<string>(httpFunctions().filter((name) => !selfContained.includes(name)));

  it('gives every HTTP function the MEDIA_* variables, and no other function', () => {
    expect(http.size).toBeGreaterThan(0);
    for (const name of deployedFunctions()) {
      const env = envOf(s, name);
      if (!http.has(name)) {
        expect(Object.keys(env).filter((k) => k.startsWith('MEDIA_')), name).toEqual([]);
        continue;
      }
      expect(env, name).toMatchObject({
        MEDIA_URL_BASE: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [id(media().distribution), 'DomainName'] }]] },
        MEDIA_KEY_PAIR_ID: { Ref: id(media().publicKey) },
        MEDIA_SIGNING_KEY_SECRET_ARN: { Ref: id(media().signingKey) },
      });
    }
  });

  it('lets every HTTP function read the signing key with GetSecretValue alone, and no other function read it', () => {
    const secret = { Ref: id(media().signingKey) };
    for (const name of deployedFunctions()) {
      const onKey = statementsOf(s, name).filter((st) => resources(st).some((r) => JSON.stringify(r) === JSON.stringify(secret)));
      expect(onKey.map((st) => ({ Action: st.Action, Resource: st.Resource })), name).toEqual(
        http.has(name) ? [{ Action: 'secretsmanager:GetSecretValue', Resource: secret }] : [],
      );
    }
    const readers = allStatements(s.template).filter((st) => actions(st).includes('secretsmanager:GetSecretValue') && resources(st).some((r) => JSON.stringify(r) === JSON.stringify(secret)));
    expect(readers).toHaveLength(http.size);
  });

  it('lets every HTTP function put big answers under responses/ (and not read them: the distribution does), expired after a day', () => {
    const uploads = id(s.stack.buckets.uploads);
    const responses = JSON.stringify(objectsOf(uploads, 'responses/'));
    for (const name of deployedFunctions()) {
      const onResponses = statementsOf(s, name).filter((st) => resources(st).some((r) => JSON.stringify(r) === responses));
      expect(onResponses.flatMap(actions), name).toEqual(http.has(name) ? ['s3:PutObject'] : []);
    }
    const rules = resource(s.stack.buckets.uploads).Properties.LifecycleConfiguration.Rules;
    expect(rules).toContainEqual(expect.objectContaining({ Prefix: 'responses/', ExpirationInDays: 1, Status: 'Enabled' }));
  });
});

describe('the key generator’s code', () => {
  /** CloudFormation's answers, as the generator PUTs them to the response URL. */
  type Answer = { Status: string; Reason?: string; PhysicalResourceId: string; Data?: { PublicKey: string }; RequestId: string };
  const secrets = mockClient(SecretsManagerClient);
  afterEach(() => secrets.reset());

  /** The inline source run as Lambda runs it, with the real SDK (mocked client) and a stand-in for the response URL. */
  function generator() {
    const answers: { url: string; method?: string; headers?: unknown; answer: Answer }[] = [];
    const fetch = async (url: string, init: { method?: string; body: Buffer; headers?: unknown }) => {
      answers.push({ url, method: init.method, headers: init.headers, answer: JSON.parse(init.body.toString()) as Answer });
      return new Response('', { status: 200 });
    };
    const modules: Record<string, unknown> = { 'node:crypto': crypto, '@aws-sdk/client-secrets-manager': secretsmanager };
    const require = (name: string) => {
      if (!(name in modules)) throw new Error(`The key generator needs ${name}, which Lambda's Node.js 22 may not have`);
      return modules[name];
    };
    const quiet = { log: () => {}, error: () => {} };
    const exports: { handler?: (event: unknown) => Promise<void> } = {};
    new Function('exports', 'require', 'fetch', 'console', keyGeneratorSource)(exports, require, fetch, quiet);
    return { handler: exports.handler!, answers };
  }

  const secretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:MediaSigningKey-AbCdEf';
  const event = (type: 'Create' | 'Update' | 'Delete', extra: Record<string, unknown> = {}) => ({
    RequestType: type,
    RequestId: '6e5b2c1f-0c4e-4c57-9a4f-2f1f0e0e8a11',
    ResponseURL: 'https://cloudformation-custom-resource-response.s3.amazonaws.com/answer?signature',
    StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/Maktaba/1',
    LogicalResourceId: 'MediaSigningKeyPair',
    ResourceType: 'Custom::MediaSigningKey',
    ResourceProperties: { ServiceToken: 'arn:fn', SecretArn: secretArn },
    ...extra,
  });

  /** Creates a key: the answer, and the private key put into the secret. */
  async function created() {
    secrets.on(PutSecretValueCommand).resolves({});
    const { handler, answers } = generator();
    await handler(event('Create'));
    return { answer: answers[0]!, put: secrets.commandCalls(PutSecretValueCommand)[0]!.args[0].input };
  }

  it('fits CloudFormation’s inline code limit (4 KB)', () => {
    expect(keyGeneratorSource.length).toBeLessThanOrEqual(4096);
  });

  it('on Create, puts a new RSA 2048 private key into the secret and answers the public key that verifies its signatures', async () => {
    const { answer, put } = await created();
    expect(answer).toMatchObject({ method: 'PUT', url: event('Create').ResponseURL });
    expect(answer.headers).toBeUndefined();
    expect(answer.answer).toMatchObject({ Status: 'SUCCESS', RequestId: event('Create').RequestId, LogicalResourceId: 'MediaSigningKeyPair' });
    expect(put).toMatchObject({ SecretId: secretArn, ClientRequestToken: event('Create').RequestId });
    expect(put.SecretString).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const publicKey = answer.answer.Data!.PublicKey;
    expect(publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/);
    expect(crypto.createPublicKey(publicKey).asymmetricKeyDetails).toMatchObject({ modulusLength: 2048 });
    const signature = crypto.sign('sha1', Buffer.from('policy'), put.SecretString!);
    expect(crypto.verify('sha1', Buffer.from('policy'), publicKey, signature)).toBe(true);
    // The physical id carries the public key, within CloudFormation's 1 KB.
    expect(answer.answer.PhysicalResourceId.length).toBeLessThan(1024);
  });

  it('on Update, answers the same key from its physical id, writing nothing', async () => {
    const { answer } = await created();
    secrets.reset();
    const { handler, answers } = generator();
    await handler(event('Update', { PhysicalResourceId: answer.answer.PhysicalResourceId, OldResourceProperties: { ServiceToken: 'arn:fn', SecretArn: secretArn } }));
    expect(answers[0]!.answer).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: answer.answer.PhysicalResourceId, Data: { PublicKey: answer.answer.Data!.PublicKey } });
    expect(secrets.calls()).toHaveLength(0);
  });

  it('refuses to move the key to another secret', async () => {
    const { answer } = await created();
    secrets.reset();
    const { handler, answers } = generator();
    await handler(event('Update', { PhysicalResourceId: answer.answer.PhysicalResourceId, OldResourceProperties: { SecretArn: `${secretArn}-old` } }));
    expect(answers[0]!.answer).toMatchObject({ Status: 'FAILED', PhysicalResourceId: answer.answer.PhysicalResourceId, Reason: expect.stringMatching(/second key/) });
    expect(secrets.calls()).toHaveLength(0);
  });

  it('on Delete, does nothing but answer', async () => {
    const { handler, answers } = generator();
    await handler(event('Delete', { PhysicalResourceId: 'maktaba-media-key:abc' }));
    expect(answers[0]!.answer).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'maktaba-media-key:abc' });
    expect(answers[0]!.answer.Data).toBeUndefined();
    expect(secrets.calls()).toHaveLength(0);
  });

  it('answers a failure with its reason, and does not answer a repeated delivery of a Create that was answered', async () => {
    secrets.on(PutSecretValueCommand).rejects(Object.assign(new Error('AccessDenied'), { name: 'AccessDeniedException' }));
    const failing = generator();
    await failing.handler(event('Create'));
    expect(failing.answers.map((a) => a.answer)).toEqual([
      expect.objectContaining({ Status: 'FAILED', Reason: 'AccessDenied', PhysicalResourceId: event('Create').RequestId }),
    ]);
    secrets.reset();
    secrets.on(PutSecretValueCommand).rejects(Object.assign(new Error('version exists'), { name: 'ResourceExistsException' }));
    const repeated = generator();
    await repeated.handler(event('Create'));
    expect(repeated.answers).toEqual([]);
  });
});
