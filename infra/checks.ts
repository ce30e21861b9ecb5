import { Validations, type CfnElement, type Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { booksIndexOf } from '../lib/adapters/opensearch/index-names.ts';
import type { Media } from './media.ts';
import type { PushApplications } from './push.ts';
import type { Search } from './search.ts';
import { objectGrants, uploadsPrefixes } from './permissions.ts';

/**
 * cdk-nag's AwsSolutions pack runs on every synth (infra/app.ts) and in the CDK tests; any finding
 * not acknowledged here fails the synth. Each acknowledgement names one finding and says why it
 * stands, so that a new wildcard or an unlogged resource cannot slip in under an old reason.
 */
export function addChecks(app: IConstruct): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}

export interface Findings {
  api: HttpApi;
  functions: readonly lambda.Function[];
  roles: readonly iam.Role[];
  /** The JWT key (absent with a JWKS URL), the Stripe keys and the OCR worker's token; an imported one is the operator's own. */
  secrets: { jwt?: secretsmanager.ISecret; stripe: secretsmanager.ISecret };
  uploads: s3.IBucket;
  audio: s3.IBucket;
  /** Endpoint ARN patterns of the configured SNS platform applications. */
  pushEndpoints: readonly string[];
  push: PushApplications;
  media: Media;
  search: Search;
}

const reasons = {
  apiAuthorization:
    'Each function authorizes its own routes (docs/DESIGN.md section 1): the spec’s per-route rules (plain-text 401/403, optional auth, ' +
    'an invalid token as anonymous on some routes, 404 for a deleted user, roles from the user record) cannot be expressed by a ' +
    'gateway authorizer; the webhook is authenticated by its Stripe signature and the worker callbacks by an editor token.',
  runtime: 'Node.js 22 is the runtime this service is built and tested for (the project targets it); moving to a newer one is a deliberate upgrade.',
  jwtRotation:
    'The HS256 key is shared with the identity service that signs the tokens; rotating it invalidates every issued token, so it is ' +
    'rotated by the operator together with that service (docs/operations.md: Deploying to AWS), not on a schedule.',
  stripeRotation:
    'Stripe issues these keys: they are rolled in the Stripe dashboard and the new values put here by the operator (docs/operations.md: Deploying to AWS); ' +
    'Secrets Manager cannot rotate them.',
  noResource:
    'X-Ray PutTraceSegments/PutTelemetryRecords (every function, active tracing), Polly SynthesizeSpeech (audio functions) and ' +
    'DynamoDB ListStreams (the search indexer’s stream trigger, which reads only the table’s stream) accept no resource other than *.',
  mediaKeyRotation:
    'The media signing key is a CloudFront key-group key, which Secrets Manager cannot rotate: rotating it deploys a second key into ' +
    'the key group, switches the functions to it and removes the old one once the URLs it signed have expired (infra/media.ts).',
  mediaGeo:
    'Readers are anywhere; whether a media request is served is decided by its URL’s signature (the trusted key group), which the ' +
    'API gives only to callers allowed the book, not by the reader’s country.',
  mediaWaf:
    'The media distribution is read-only (GET/HEAD) and serves only URLs signed with its key group: CloudFront refuses any other ' +
    'request at the edge, before S3. A web ACL for CloudFront must live in us-east-1 (a second stack) and would charge every play ' +
    'without protecting anything more.',
  mediaTls:
    'Media URLs use the distribution’s own *.cloudfront.net name with CloudFront’s default certificate (a custom domain needs a DNS ' +
    'name and a us-east-1 ACM certificate the project does not have); with it CloudFront keeps TLS 1.0 for old clients, while current ' +
    'clients negotiate TLS 1.2 or 1.3. HTTP is redirected to HTTPS and every object needs a signed URL.',
  searchVpc:
    'The search domain is not in a VPC: the functions that call it would have to be in the VPC too, and a function in a VPC reaches ' +
    'DynamoDB, S3, SQS and Secrets Manager only through a NAT gateway or interface endpoints, which cost more than the domain. ' +
    'Every request must be signed with SigV4 by a role the access policy or an identity policy allows, over HTTPS (TLS 1.2+) (infra/search.ts).',
  searchIps:
    'Lambda functions outside a VPC have no fixed addresses to allowlist. The access policy allows exactly the two search function ' +
    'roles, each its own actions on the pages index, the catalogue listing’s and the filed terms’; every request is SigV4-signed and HTTPS-only (infra/search.ts).',
  searchMasters:
    'Dedicated master nodes would be three more instances, several times the cost of the one or two t3 data nodes this index needs; ' +
    'the index is derived data, rebuilt from the table if the cluster is lost (docs/operations.md: Search on AWS).',
  searchZones:
    'One data node by default (searchDataNodes=1), which zone awareness cannot spread: searchDataNodes=2 turns it on. The index is ' +
    'derived data, rebuilt from the table after a loss, and a search outage does not touch the rest of the API (docs/operations.md: Search on AWS).',
  indexerDeadLetters:
    'This queue is itself a dead-letter queue: the search indexer’s stream trigger sends it the description of each batch it gave up ' +
    'on (an on-failure destination, which cdk-nag does not recognise as a redrive target). An operator reads it; an alarm watches it.',
  searchIndexPaths:
    'OpenSearch authorizes a request by its path: the indexer writes under the pages index and the catalogue listing’s index ' +
    '(_bulk, _update_by_query, _delete_by_query, _search), so the grant is those two indexes of this domain and the paths under them, nothing else.',
  pushEndpoints: 'SNS creates one endpoint per registered device, with an id known only then; the grant is limited to the endpoints of the configured platform application.',
  pushApplications:
    'SNS defines no resource for CreatePlatformApplication (the application’s ARN exists only after it); the role’s other actions ' +
    'name this stack’s applications, and it reads only the secrets the operator named (infra/push.ts).',
  notificationsHandlerPolicy:
    'CDK’s deploy-time handler of the audio bucket’s event notifications (infra/storage.ts) runs only while CloudFormation ' +
    'creates or updates that configuration; CDK gives its role AWSLambdaBasicExecutionRole (its own logs), whatever role it is handed.',
  objectPrefix: (what: string) => `Object keys are unknown in advance; the grant is limited to ${what}, the narrowest resource S3 offers.`,
};

const acknowledge = (scope: IConstruct, id: string, reason: string) => Validations.of(scope).acknowledge({ id, reason });

/** How cdk-nag writes a resource in its findings: a `Fn::Join` flattened, each reference as `<Ref>` or `<LogicalId.Attribute>`. */
function nagRendered(stack: Stack, value: string): string {
  const resolved: unknown = stack.resolve(value);
  if (typeof resolved === 'string') return resolved;
  const [separator, parts] = (resolved as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  const part = (p: unknown): string => {
    if (typeof p === 'string') return p;
    const ref = (p as { Ref?: string }).Ref;
    if (ref) return `<${ref}>`;
    const getAtt = (p as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt'];
    if (getAtt) return `<${getAtt.join('.')}>`;
    throw new Error(`no cdk-nag rendering for ${JSON.stringify(p)}`);
  };
  return parts.map(part).join(separator);
}

/** How cdk-nag names an object-prefix resource of a bucket in its IAM5 findings. */
function prefixFinding(stack: Stack, bucket: s3.IBucket, prefix: string): string {
  return `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(bucket.node.defaultChild as CfnElement)}.Arn>/${prefix}]`;
}

export function acknowledgeFindings(stack: Stack, found: Findings): void {
  acknowledge(found.api, 'AwsSolutions-APIG4', reasons.apiAuthorization);
  const { push } = found;
  for (const fn of [...found.functions, found.media.keyGenerator, ...(push.manager ? [push.manager] : [])]) acknowledge(fn, 'AwsSolutions-L1', reasons.runtime);
  if (push.managerRole) acknowledge(push.managerRole, 'AwsSolutions-IAM5[Resource::*]', reasons.pushApplications);
  for (const role of found.roles) acknowledge(role, 'AwsSolutions-IAM5[Resource::*]', reasons.noResource);
  for (const [secret, reason] of [
    [found.secrets.jwt, reasons.jwtRotation],
    [found.secrets.stripe, reasons.stripeRotation],
  ] as const) {
    if (secret instanceof secretsmanager.Secret) acknowledge(secret, 'AwsSolutions-SMG4', reason);
  }
  acknowledge(found.media.signingKey, 'AwsSolutions-SMG4', reasons.mediaKeyRotation);
  acknowledge(found.media.distribution, 'AwsSolutions-CFR1', reasons.mediaGeo);
  acknowledge(found.media.distribution, 'AwsSolutions-CFR2', reasons.mediaWaf);
  acknowledge(found.media.distribution, 'AwsSolutions-CFR4', reasons.mediaTls);
  for (const arn of found.pushEndpoints) acknowledge(stack, `AwsSolutions-IAM5[Resource::${nagRendered(stack, arn)}]`, reasons.pushEndpoints);
  const { search } = found;
  acknowledge(search.domain, 'AwsSolutions-OS1', reasons.searchVpc);
  acknowledge(search.domain, 'AwsSolutions-OS3', reasons.searchIps);
  acknowledge(search.domain, 'AwsSolutions-OS4', reasons.searchMasters);
  if (!search.zoneAware) acknowledge(search.domain, 'AwsSolutions-OS7', reasons.searchZones);
  acknowledge(search.indexerDeadLetters, 'AwsSolutions-SQS3', reasons.indexerDeadLetters);
  const notificationsHandler = stack.node.children.find((c) => c.node.id.startsWith('BucketNotificationsHandler'));
  if (notificationsHandler) {
    acknowledge(notificationsHandler, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', reasons.notificationsHandlerPolicy);
  }
  for (const index of [search.index, booksIndexOf(search.index)]) {
    acknowledge(stack, `AwsSolutions-IAM5[Resource::${nagRendered(stack, `${search.domainArn}/${index}/*`)}]`, reasons.searchIndexPaths);
  }
  const seen = new Set<string>();
  // The functions' prefixes, and the one only the OCR worker writes (its page images).
  const pageImages = { bucket: 'uploads', prefix: uploadsPrefixes.pageImages, holds: 'page images' } as const;
  for (const { bucket, prefix, holds } of [...Object.values(objectGrants), pageImages]) {
    const finding = prefixFinding(stack, found[bucket], `${prefix}*`);
    if (seen.has(finding)) continue;
    seen.add(finding);
    acknowledge(stack, finding, reasons.objectPrefix(`the ${bucket} bucket’s ${prefix ? `${prefix}* ` : ''}keys (${holds})`));
  }
}
