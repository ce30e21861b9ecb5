import { Annotations, CfnOutput, CustomResource, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { environmentFor } from '../lib/config.ts';
import { functionRole, uploadsPrefixes } from './permissions.ts';
import { privateBucket } from './storage.ts';

/**
 * Media URLs that keep their promise (issue 14). Audio, page images, large exports and big API answers
 * are served by a CloudFront distribution that accepts only URLs signed with a key of its trusted key
 * group. Unlike a URL presigned with a Lambda role's temporary credentials, such a URL is short, lives
 * for the lifetime it was signed for, and a popular line is fetched from S3 once per edge location
 * rather than once per play: the cache key holds no query string, so URLs with different signatures
 * share the cached object (CloudFront checks the signature of every request, cached or not).
 *
 * The signing key pair is generated at deploy by a custom resource: the private key goes into a secret
 * of this construct, the public key into the key group. Rotation (not built): deploy a second key (a
 * second custom resource, secret and public key) into the key group, so that both are trusted; then
 * switch the functions' MEDIA_KEY_PAIR_ID and MEDIA_SIGNING_KEY_SECRET_ARN to the new key and deploy;
 * once the longest-lived URL signed with the old key has expired, remove the old key from the group
 * and delete its resources.
 */


/**
 * The uploads bucket's key prefixes the distribution serves. Page images and uploaded files (an
 * uploaded image is shown as its book's page image) are cached like audio; exports and big API answers
 * are private one-off documents, never cached. Every other key (the texts of `ocr-results/`) is out of
 * the distribution's reach: the bucket policy grants it these prefixes only.
 */
export const servedUploads = {
  cached: [uploadsPrefixes.pageImages, uploadsPrefixes.files],
  uncached: [uploadsPrefixes.exports, uploadsPrefixes.responses],
} as const;

/**
 * The key generator, inline (CloudFormation's ZipFile, at most 4 KB): on Create it makes an RSA 2048
 * key pair, puts the private key into the secret and answers the public key. The physical id carries
 * the public key (base64 DER, about 410 characters of the 1 KB CloudFormation allows), so that an
 * Update answers the same key without reading the private one back, and a Delete does nothing (the
 * secret's own removal policy applies). It answers CloudFormation itself, and never twice: the request
 * id is the secret version's token, so a repeated delivery of a Create cannot put a second key.
 */
export const keyGeneratorSource = `const crypto = require('node:crypto');
const { SecretsManagerClient, PutSecretValueCommand } = require('@aws-sdk/client-secrets-manager');

const prefix = 'maktaba-media-key:';
const publicPem = (id) =>
  crypto.createPublicKey({ key: Buffer.from(id.slice(prefix.length), 'base64'), format: 'der', type: 'spki' }).export({ type: 'spki', format: 'pem' });

async function create(event) {
  const pair = crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  await new SecretsManagerClient({}).send(
    new PutSecretValueCommand({ SecretId: event.ResourceProperties.SecretArn, SecretString: pair.privateKey, ClientRequestToken: event.RequestId }),
  );
  return prefix + pair.publicKey.toString('base64');
}

async function answer(event) {
  if (event.RequestType === 'Create') return create(event);
  if (event.RequestType === 'Update' && event.ResourceProperties.SecretArn !== event.OldResourceProperties.SecretArn) {
    throw new Error('The media signing key cannot move to another secret: add a second key instead (infra/media.ts)');
  }
  return event.PhysicalResourceId;
}

exports.handler = async (event) => {
  let response;
  try {
    const id = await answer(event);
    response = { Status: 'SUCCESS', PhysicalResourceId: id, Data: event.RequestType === 'Delete' ? undefined : { PublicKey: publicPem(id) } };
  } catch (error) {
    if (error.name === 'ResourceExistsException') return console.log('Request', event.RequestId, 'was answered by its first delivery');
    console.error(error);
    response = { Status: 'FAILED', Reason: String(error.message || error).slice(0, 500), PhysicalResourceId: event.PhysicalResourceId || event.RequestId };
  }
  const body = JSON.stringify({ ...response, StackId: event.StackId, RequestId: event.RequestId, LogicalResourceId: event.LogicalResourceId });
  const put = await fetch(event.ResponseURL, { method: 'PUT', body: Buffer.from(body) });
  if (!put.ok) console.error('CloudFormation refused the answer:', put.status, await put.text());
};
`;

/** How long CloudFront keeps a cached object when S3 sends no Cache-Control (audio and page image keys change with their content). */
export const mediaCacheTtl = { default: Duration.days(30), max: Duration.days(365) };

export interface MediaProps {
  uploads: s3.Bucket;
  audio: s3.Bucket;
  /** Where the distribution's log bucket writes its own server access logs. */
  accessLogs: s3.IBucket;
}

export class Media extends Construct {
  readonly distribution: cloudfront.Distribution;
  readonly keyGroup: cloudfront.KeyGroup;
  readonly publicKey: cloudfront.PublicKey;
  /** The private key (PKCS#8 PEM) that signs media URLs. */
  readonly signingKey: secretsmanager.Secret;
  readonly keyGenerator: lambda.Function;
  readonly keyGeneratorRole: iam.Role;
  /** The custom resource whose `PublicKey` attribute is the public key. */
  readonly keyPair: CustomResource;
  /** The cache policy of audio, page images and uploaded files. */
  readonly mediaCache: cloudfront.CachePolicy;
  /** The distribution's access logs. */
  readonly logs: s3.Bucket;
  /** The media settings' variables (lib/config.ts), for the functions that sign media URLs. */
  readonly environment: Record<string, string>;

  constructor(scope: Construct, id: string, props: MediaProps) {
    super(scope, id);
    const stack = Stack.of(this);

    // Written by the key generator only. No value of its own is ever set here: a changed
    // generateSecretString or secretStringValue would overwrite the key. The key is worth nothing
    // without this stack's key group, so it goes with the stack (Secrets Manager keeps it 30 days).
    this.signingKey = new secretsmanager.Secret(this, 'SigningKey', {
      description: 'Maktaba media: the private key (PEM) that signs CloudFront media URLs, written at deploy (infra/media.ts)',
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.keyGeneratorRole = functionRole(stack, 'MediaKeyGeneratorRole', 'Maktaba media: generates the URL signing key at deploy');
    this.keyGeneratorRole.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:PutSecretValue'], resources: [this.signingKey.secretArn] }),
    );
    const generatorLogs = new logs.LogGroup(this, 'KeyGeneratorLogs', { retention: logs.RetentionDays.ONE_MONTH });
    generatorLogs.grantWrite(this.keyGeneratorRole);
    // No tracing: it runs once per deploy, and CloudFormation shows its failure's reason.
    this.keyGenerator = new lambda.Function(this, 'KeyGenerator', {
      description: 'Maktaba media: generates the URL signing key pair at deploy',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: lambda.Code.fromInline(keyGeneratorSource),
      memorySize: 256,
      timeout: Duration.minutes(1),
      role: this.keyGeneratorRole,
      logGroup: generatorLogs,
    });
    // CloudFormation invokes it asynchronously: a retry after an answer was sent could only confuse.
    this.keyGenerator.configureAsyncInvoke({ retryAttempts: 0 });
    this.keyPair = new CustomResource(this, 'SigningKeyPair', {
      serviceToken: this.keyGenerator.functionArn,
      resourceType: 'Custom::MediaSigningKey',
      properties: { SecretArn: this.signingKey.secretArn },
      // A generator that never answers fails the deploy in minutes rather than CloudFormation's hour.
      serviceTimeout: Duration.minutes(5),
    });
    // After the whole function, its no-retry setting included.
    this.keyPair.node.addDependency(this.keyGenerator);

    this.publicKey = new cloudfront.PublicKey(this, 'SigningPublicKey', {
      encodedKey: this.keyPair.getAttString('PublicKey'),
      comment: 'Maktaba media: verifies signed media URLs',
    });
    this.keyGroup = new cloudfront.KeyGroup(this, 'SigningKeys', {
      items: [this.publicKey],
      comment: 'Maktaba media: the keys whose signatures the media distribution accepts',
    });

    this.mediaCache = new cloudfront.CachePolicy(this, 'CacheByKey', {
      comment: 'Maktaba media: one cached copy per object key, whatever the URL signature',
      queryStringBehavior: cloudfront.CacheQueryStringBehavior.none(),
      headerBehavior: cloudfront.CacheHeaderBehavior.none(),
      cookieBehavior: cloudfront.CacheCookieBehavior.none(),
      minTtl: Duration.seconds(0),
      defaultTtl: mediaCacheTtl.default,
      maxTtl: mediaCacheTtl.max,
      // MP3 and PNG do not compress: no Accept-Encoding variants in the cache.
      enableAcceptEncodingGzip: false,
      enableAcceptEncodingBrotli: false,
    });

    // CloudFront's standard logging writes through an ACL grant to its log-delivery account, which
    // the server access-logs bucket (BucketOwnerEnforced: ACLs refused) cannot take; standard logging
    // v2 needs its delivery set up in us-east-1. So the distribution logs to a bucket of its own whose
    // ACLs are enabled (objects still owned by the bucket owner), private like the others.
    this.logs = privateBucket(this, 'DistributionLogs', props.accessLogs, {
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
    });

    // One origin access control signs CloudFront's requests to both buckets. The audio bucket holds
    // nothing but the MP3s it serves, so CDK's grant (s3:GetObject on every key, for this distribution
    // only) is the right one. The uploads bucket is given to its origin as a reference, so CDK adds
    // no whole-bucket grant, and this construct grants the served prefixes alone (below).
    const originAccess = new cloudfront.S3OriginAccessControl(this, 'OriginAccess', {
      description: 'Maktaba media: CloudFront reads the audio and uploads buckets',
      signing: cloudfront.Signing.SIGV4_ALWAYS,
    });
    const audioOrigin = origins.S3BucketOrigin.withOriginAccessControl(props.audio, { originAccessControl: originAccess });
    Annotations.of(this).acknowledgeWarning(
      '@aws-cdk/aws-cloudfront-origins:updateImportedBucketPolicyOac',
      'The uploads bucket policy grants the media distribution its served prefixes only (infra/media.ts)',
    );
    const uploadsReference = s3.Bucket.fromBucketAttributes(this, 'ServedUploads', {
      bucketArn: props.uploads.bucketArn,
      bucketName: props.uploads.bucketName,
      bucketRegionalDomainName: props.uploads.bucketRegionalDomainName,
    });
    const uploadsOrigin = origins.S3BucketOrigin.withOriginAccessControl(uploadsReference, { originAccessControl: originAccess });

    const behavior = (origin: cloudfront.IOrigin, cachePolicy: cloudfront.ICachePolicy): cloudfront.BehaviorOptions => ({
      origin,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
      cachedMethods: cloudfront.CachedMethods.CACHE_GET_HEAD,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      cachePolicy,
      trustedKeyGroups: [this.keyGroup],
      // Browsers follow the API's redirect to a big answer with fetch, a cross-origin read: any origin
      // may read, as any origin may call the API; the signature is what authorizes a request.
      responseHeadersPolicy: cloudfront.ResponseHeadersPolicy.CORS_ALLOW_ALL_ORIGINS,
    });
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Maktaba media: audio, page images, exports and big answers by signed URL',
      // The path is the audio key: `<bookId>/<lineId>/<field>/<voice>_<hash>.mp3`.
      defaultBehavior: behavior(audioOrigin, this.mediaCache),
      additionalBehaviors: Object.fromEntries([
        ...servedUploads.cached.map((prefix) => [`${prefix}*`, behavior(uploadsOrigin, this.mediaCache)]),
        ...servedUploads.uncached.map((prefix) => [`${prefix}*`, behavior(uploadsOrigin, cloudfront.CachePolicy.CACHING_DISABLED)]),
      ]),
      enableLogging: true,
      logBucket: this.logs,
    });
    props.uploads.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'MediaDistributionReadsServedPrefixes',
        principals: [new iam.ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['s3:GetObject'],
        resources: [...servedUploads.cached, ...servedUploads.uncached].map((prefix) => props.uploads.arnForObjects(`${prefix}*`)),
        conditions: { StringEquals: { 'AWS:SourceArn': this.distribution.distributionArn } },
      }),
    );

    this.environment = environmentFor({
      mediaUrlBase: `https://${this.distribution.distributionDomainName}`,
      mediaKeyPairId: this.publicKey.publicKeyId,
      mediaSigningKeySecretArn: this.signingKey.secretArn,
    });

    new CfnOutput(stack, 'MediaDomainName', { value: this.distribution.distributionDomainName, description: 'The media distribution (signed URLs only)' });
    new CfnOutput(stack, 'MediaLogsBucketName', { value: this.logs.bucketName });
  }
}
