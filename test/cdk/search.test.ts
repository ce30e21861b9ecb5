import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context, DynamoDBStreamEvent } from 'aws-lambda';
import { App, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeKey, routes } from '../../functions/routes.ts';
import { indexerDeps, indexStreamBatch } from '../../functions/search-indexer/handler.ts';
import { deployedFunctions, type DeployedFunction } from '../../infra/functions.ts';
import { indexedEntities, searchDomainName, searchEngineVersion } from '../../infra/search.ts';
import { drainStream } from '../../infra/local/stream-poller.ts';
import { MaktabaStack } from '../../infra/stack.ts';
import { searchReadKeys } from '../../infra/permissions.ts';
import { entities } from '../../lib/adapters/dynamo/entities.ts';
import { dynamoDocumentClient } from '../../lib/adapters/aws/clients.ts';
import { keys } from '../../lib/adapters/dynamo/keys.ts';
import { tableSchema } from '../../lib/adapters/dynamo/schema.ts';
import { variables } from '../../lib/config.ts';
import { newJobId, newObjectId } from '../../lib/ids.ts';
import { newBookText } from '../../lib/ocr/book-text.ts';
import { newPage } from '../../lib/ocr/pages/page.ts';
import { tokenFor } from '../support/api.ts';
import { testStores } from '../support/stores.ts';
import './ocr-worker-stub.ts';
import { actions, allStatements, deadLetterAlarm, envOf, fn, logicalId, resources, statementsOf, synth, type Statement, type Synth } from './template.ts';

/**
 * Full-text search on AWS (infra/search.ts): the OpenSearch domain, who may do what on it, the
 * indexer's stream trigger, and their alarms. Two synths with cdk-nag (each bundles the functions):
 * the defaults, and every search setting given.
 */

const overrides = { searchInstanceType: 'm7g.large.search', searchDataNodes: '2', searchVolumeGb: '50' };

let plain: Synth;
let sized: Synth;

beforeAll(() => {
  plain = synth({});
  sized = synth(overrides);
}, 120_000);

const resourceOf = (s: Synth, id: string) => s.template.toJSON().Resources[id];
const domainOf = (s: Synth) => resourceOf(s, logicalId(s.stack, s.stack.search.domain));
const domainProps = (s: Synth) => domainOf(s).Properties;

/** A template value as text: a `Fn::Join` flattened, `Ref` as `${name}` and `Fn::GetAtt` as `${id.attribute}`. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as { Ref?: string; 'Fn::GetAtt'?: string[]; 'Fn::Join'?: [string, unknown[]] };
  if (v.Ref) return `\${${v.Ref}}`;
  if (v['Fn::GetAtt']) return `\${${v['Fn::GetAtt'].join('.')}}`;
  if (v['Fn::Join']) return v['Fn::Join'][1].map(text).join(v['Fn::Join'][0]);
  throw new Error(`not a template string: ${JSON.stringify(value)}`);
}

/** The domain's ARN as the template writes it: built from its name (infra/search.ts). */
const domainArn = (s: Synth) => `arn:\${AWS::Partition}:es:\${AWS::Region}:\${AWS::AccountId}:domain/${s.stack.search.domainName}`;

/** Each `action resource` pair of some statements, resources as text, sorted. */
const pairs = (statements: Statement[]) => statements.flatMap((st) => actions(st).flatMap((a) => resources(st).map((r) => `${a} ${text(r)}`))).sort();

const esStatements = (s: Synth, name: DeployedFunction) => statementsOf(s, name).filter((st) => actions(st).some((a) => a.startsWith('es:')));

describe('the OpenSearch domain', () => {
  it('runs the newest OpenSearch 2.x of aws-cdk-lib (t3 instances are not offered on 3.x)', () => {
    const versions = Object.values(opensearch.EngineVersion)
      .filter((v): v is opensearch.EngineVersion => v instanceof opensearch.EngineVersion)
      .map((v) => v.version)
      .filter((v) => /^OpenSearch_2\.\d+$/.test(v));
    const newest = versions.sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1])).at(-1);
    expect(searchEngineVersion.version).toBe(newest);
    expect(domainProps(plain).EngineVersion).toBe('OpenSearch_2.19');
    // Upgraded in place, never replaced by a new, empty domain.
    expect(domainOf(plain).UpdatePolicy).toEqual({ EnableVersionUpgrade: true });
  });

  it('is one t3.small.search data node with 10 GB of gp3 by default, in one zone, with no dedicated masters', () => {
    expect(domainProps(plain).ClusterConfig).toEqual({
      InstanceType: 't3.small.search',
      InstanceCount: 1,
      DedicatedMasterEnabled: false,
      MultiAZWithStandbyEnabled: false,
      ZoneAwarenessEnabled: false,
    });
    expect(domainProps(plain).EBSOptions).toEqual({ EBSEnabled: true, VolumeType: 'gp3', VolumeSize: 10 });
  });

  it('takes the instance type, the data nodes (two zones from 2) and the volume from context', () => {
    expect(domainProps(sized).ClusterConfig).toEqual({
      InstanceType: 'm7g.large.search',
      InstanceCount: 2,
      DedicatedMasterEnabled: false,
      MultiAZWithStandbyEnabled: false,
      ZoneAwarenessEnabled: true,
      ZoneAwarenessConfig: { AvailabilityZoneCount: 2 },
    });
    expect(domainProps(sized).EBSOptions).toEqual({ EBSEnabled: true, VolumeType: 'gp3', VolumeSize: 50 });
  });

  it('refuses an instance type that is not one, data nodes that are not 1 or an even number, and volumes under 10 GB', () => {
    const stackWith = (context: Record<string, string>) => () => new MaktabaStack(new App({ context }), 'Bad');
    expect(stackWith({ searchInstanceType: 't3.small' })).toThrow(/searchInstanceType must be an OpenSearch instance type/);
    expect(stackWith({ searchInstanceType: 'T3.SMALL.SEARCH' })).toThrow(/searchInstanceType/);
    expect(stackWith({ searchDataNodes: '3' })).toThrow(/searchDataNodes must be 1 or an even number/);
    expect(stackWith({ searchDataNodes: '0' })).toThrow(/searchDataNodes must be a positive whole number/);
    expect(stackWith({ searchDataNodes: 'two' })).toThrow(/searchDataNodes must be a positive whole number/);
    expect(stackWith({ searchVolumeGb: '5' })).toThrow(/searchVolumeGb must be at least 10/);
    expect(stackWith({ searchVolumeGb: '12.5' })).toThrow(/searchVolumeGb must be a positive whole number/);
  });

  it('encrypts at rest and between nodes, takes HTTPS only with TLS 1.2 at least, and has no fine-grained access control and no VPC', () => {
    const props = domainProps(plain);
    expect(props.EncryptionAtRestOptions).toEqual({ Enabled: true });
    expect(props.NodeToNodeEncryptionOptions).toEqual({ Enabled: true });
    expect(props.DomainEndpointOptions).toEqual({ EnforceHTTPS: true, TLSSecurityPolicy: 'Policy-Min-TLS-1-2-2019-07' });
    expect(props.AdvancedSecurityOptions).toBeUndefined();
    expect(props.VPCOptions).toBeUndefined();
    expect(props.CognitoOptions).toBeUndefined();
  });

  it('is retained with the stack’s data, and named from the stack (its access policy names its ARN)', () => {
    expect(domainOf(plain)).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(domainProps(plain).DomainName).toBe(searchDomainName('Test'));
    expect(searchDomainName('Maktaba')).toMatch(/^maktaba-search-[0-9a-f]{6}$/);
    expect(searchDomainName('Maktaba')).not.toBe(searchDomainName('maktaba'));
    for (const name of ['A'.repeat(128), '9lives-Prod_Stack', 'x']) {
      expect(searchDomainName(name), name).toMatch(/^[a-z][a-z0-9-]{2,27}$/);
    }
    plain.template.hasOutput('SearchDomainEndpoint', { Value: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalId(plain.stack, plain.stack.search.domain), 'DomainEndpoint'] }]] } });
  });

  it('sends error logs and search and indexing slow logs to log groups of a month, under a resource policy of its own (no custom resource)', () => {
    const groups = plain.stack.search.logGroups;
    const arn = (g: keyof typeof groups) => ({ 'Fn::GetAtt': [logicalId(plain.stack, groups[g]), 'Arn'] });
    expect(domainProps(plain).LogPublishingOptions).toEqual({
      ES_APPLICATION_LOGS: { Enabled: true, CloudWatchLogsLogGroupArn: arn('app') },
      SEARCH_SLOW_LOGS: { Enabled: true, CloudWatchLogsLogGroupArn: arn('slowSearch') },
      INDEX_SLOW_LOGS: { Enabled: true, CloudWatchLogsLogGroupArn: arn('slowIndex') },
    });
    for (const g of Object.values(groups)) expect(resourceOf(plain, logicalId(plain.stack, g)).Properties.RetentionInDays).toBe(30);
    const policies = Object.entries(plain.template.findResources('AWS::Logs::ResourcePolicy'));
    expect(policies).toHaveLength(1);
    const [policyId, policy] = policies[0]!;
    const document = JSON.parse(text(policy.Properties.PolicyDocument)) as { Statement: Statement[] };
    expect(document.Statement).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'es.amazonaws.com' },
        Action: ['logs:PutLogEvents', 'logs:CreateLogStream'],
        Resource: (['app', 'slowSearch', 'slowIndex'] as const).map((g) => text(arn(g))),
        Condition: { StringEquals: { 'aws:SourceAccount': '${AWS::AccountId}' }, ArnLike: { 'aws:SourceArn': domainArn(plain) } },
      },
    ]);
    // OpenSearch checks at creation that it may write to them.
    expect(domainOf(plain).DependsOn).toContain(policyId);
    // No Lambda-backed custom resource for the log policy or the access policy (the two there are the
    // media signing key's and the audio bucket's notification configuration, test/cdk/stack.test.ts).
    expect(Object.values(plain.template.toJSON().Resources as Record<string, { Type: string }>).filter((r) => r.Type.startsWith('Custom::'))).toEqual([
      expect.objectContaining({ Type: 'Custom::S3BucketNotifications' }),
      expect.objectContaining({ Type: 'Custom::MediaSigningKey' }),
    ]);
  });
});

describe('who may do what on the domain', () => {
  // The pages index, and the catalogue listing's beside it (lib/adapters/opensearch/index-names.ts).
  const indexes = ['pages', 'pages-books'];
  /** The filed terms' index (similar terms), beside them. */
  const terms = 'pages-terms';
  const searchApiActions = (s: Synth) =>
    [...indexes, terms].flatMap((index) => [`es:ESHttpHead ${domainArn(s)}/${index}`, `es:ESHttpPost ${domainArn(s)}/${index}/_search`]).sort();
  /** Filing terms (putPages): HEAD and PUT the index, POST its _bulk; no _mapping, no update, no delete, no search. */
  const filingTerms = (s: Synth) => [`es:ESHttpHead ${domainArn(s)}/${terms}`, `es:ESHttpPut ${domainArn(s)}/${terms}`, `es:ESHttpPost ${domainArn(s)}/${terms}/_bulk`];
  /** Read after write's writes (lib/search/read-after-write.ts), the terms of its pages, and the listing's searches. */
  const writePathActions = (s: Synth) =>
    [
      ...['es:ESHttpHead', 'es:ESHttpPut'].flatMap((a) => indexes.flatMap((index) => [`${a} ${domainArn(s)}/${index}`, `${a} ${domainArn(s)}/${index}/_mapping`])),
      ...indexes.flatMap((index) => [`es:ESHttpPost ${domainArn(s)}/${index}/_bulk`, `es:ESHttpPost ${domainArn(s)}/${index}/_update_by_query`]),
      `es:ESHttpPost ${domainArn(s)}/pages-books/_search`,
      ...filingTerms(s),
    ].sort();
  const writePathRoles: readonly DeployedFunction[] = ['ocr-api', 'ocr-callbacks'];
  const searchRoles: readonly DeployedFunction[] = ['search-api', 'search-indexer', ...writePathRoles];
  const indexerActions = (s: Synth) =>
    [
      ...['es:ESHttpHead', 'es:ESHttpPut', 'es:ESHttpPost'].flatMap((a) => indexes.flatMap((index) => [`${a} ${domainArn(s)}/${index}`, `${a} ${domainArn(s)}/${index}/*`])),
      ...filingTerms(s),
    ].sort();

  it('lets search-api only search the pages, listing and terms indexes (HEAD each, POST _search): no PUT, no _bulk, no by-query writes', () => {
    for (const s of [plain, sized]) {
      expect(pairs(esStatements(s, 'search-api'))).toEqual(searchApiActions(s));
      const all = pairs(esStatements(s, 'search-api')).join('\n');
      expect(all).not.toMatch(/ESHttpPut|ESHttpDelete|ESHttpPatch|ESHttpGet|_bulk|_by_query|\/pages(-books|-terms)?\/\*/);
    }
  });

  it('lets search-indexer HEAD, PUT and POST the pages and listing indexes and under them, and file terms (HEAD, PUT, POST _bulk), and nothing else of the domain', () => {
    for (const s of [plain, sized]) {
      expect(pairs(esStatements(s, 'search-indexer'))).toEqual(indexerActions(s));
      expect(pairs(esStatements(s, 'search-indexer')).filter((p) => p.includes(`/${terms}`))).toEqual(filingTerms(s).sort());
    }
  });

  it('lets ocr-api and ocr-callbacks write what they change (_bulk, _update_by_query), create an index or add its fields, file terms, and search the listing: no delete, no search of the pages or terms', () => {
    for (const s of [plain, sized]) {
      for (const name of writePathRoles) {
        expect(pairs(esStatements(s, name)), name).toEqual(writePathActions(s));
        expect(pairs(esStatements(s, name)).join('\n'), name).not.toMatch(/_delete_by_query|ESHttpDelete|ESHttpGet|\/pages(-terms)?\/_search|\/\*|pages-terms\/_(mapping|update_by_query)/);
      }
    }
  });

  it('gives no other function anything of the domain', () => {
    for (const name of deployedFunctions().filter((n) => !searchRoles.includes(n))) {
      expect(esStatements(plain, name), name).toEqual([]);
    }
  });

  it('allows exactly those roles those actions in the domain’s own access policy: no one else, no one anonymous', () => {
    const policy = domainProps(plain).AccessPolicies as { Statement: Statement[] };
    const role = (name: DeployedFunction) => ({ AWS: { 'Fn::GetAtt': [logicalId(plain.stack, fn(plain.stack, name).role!), 'Arn'] } });
    const by = (name: DeployedFunction) => policy.Statement.filter((st) => JSON.stringify(st.Principal) === JSON.stringify(role(name)));
    expect(searchRoles.reduce((n, name) => n + by(name).length, 0)).toBe(policy.Statement.length);
    expect(pairs(by('search-api'))).toEqual(searchApiActions(plain));
    expect(pairs(by('search-indexer'))).toEqual(indexerActions(plain));
    for (const name of writePathRoles) expect(pairs(by(name)), name).toEqual(writePathActions(plain));
    for (const st of policy.Statement) {
      expect(st.Effect).toBe('Allow');
      expect(JSON.stringify(st.Principal)).not.toContain('*');
      expect(st.Condition).toBeUndefined();
    }
  });

  it('lets search-api and the indexer read only BookTexts and their pages (and search-api users’ items by key), on the table alone, writing nothing', () => {
    const table = { 'Fn::GetAtt': [logicalId(plain.stack, plain.stack.table), 'Arn'] };
    const dynamo = (name: DeployedFunction) =>
      statementsOf(plain, name)
        .filter((st) => actions(st).some((a) => a.startsWith('dynamodb:')))
        .map((st) => ({ actions: actions(st), resources: resources(st), ...(st.Condition ? { condition: st.Condition } : {}) }));
    const leadingKeys = (...patterns: string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': patterns } });
    // Not the subscriptions, usage, Stripe events, uploads or jobs the rest of the table holds.
    expect(dynamo('search-api')).toEqual([
      { actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], resources: [table], condition: leadingKeys('BOOKTEXT#*') },
      { actions: ['dynamodb:GetItem'], resources: [table], condition: leadingKeys('USER#*') },
    ]);
    // With the stream trigger's reads of the table's stream (ListStreams accepts no resource but *).
    expect(dynamo('search-indexer')).toEqual([
      { actions: ['dynamodb:BatchGetItem'], resources: [table], condition: leadingKeys('BOOKTEXT#*') },
      { actions: ['dynamodb:ListStreams'], resources: ['*'] },
      {
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: [{ 'Fn::GetAtt': [logicalId(plain.stack, plain.stack.table), 'StreamArn'] }],
      },
    ]);
    expect(searchReadKeys).toEqual({ bookTexts: `${keys.bookTextPartition('')}*`, users: `${keys.userPartition('')}*` });
  });

  it('gives the functions of the domain (search-api, search-indexer, ocr-api, ocr-callbacks) SEARCH_ENDPOINT (https://<domain endpoint>) and SEARCH_INDEX=pages, and no other function', () => {
    const endpoint = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalId(plain.stack, plain.stack.search.domain), 'DomainEndpoint'] }]] };
    for (const name of deployedFunctions()) {
      const env = envOf(plain, name);
      if (searchRoles.includes(name)) {
        expect(env, name).toMatchObject({ [variables.searchEndpoint]: endpoint, [variables.searchIndex]: 'pages' });
      } else {
        expect(env, name).not.toHaveProperty(variables.searchEndpoint);
        expect(env, name).not.toHaveProperty(variables.searchIndex);
      }
      expect(env, name).not.toHaveProperty(variables.searchDb);
    }
  });
});

describe('the indexer’s trigger', () => {
  const mapping = (s: Synth) => {
    const indexer = logicalId(s.stack, fn(s.stack, 'search-indexer'));
    const found = Object.values(s.template.findResources('AWS::Lambda::EventSourceMapping')).filter((m) => m.Properties.FunctionName.Ref === indexer);
    expect(found).toHaveLength(1);
    return found[0]!.Properties;
  };

  it('streams every change of the table with its old and new image', () => {
    const table = resourceOf(plain, logicalId(plain.stack, plain.stack.table));
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  it('reads the stream from its start in batches of 100 or 1 s, one at a time per shard, halving failed batches and taking partial failures', () => {
    expect(mapping(plain)).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [logicalId(plain.stack, plain.stack.table), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 1,
      ParallelizationFactor: 1,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: 5,
      MaximumRecordAgeInSeconds: 86_400,
    });
  });

  it('passes only BookText and BookTextPage items, by their entity attribute after the change or before it', () => {
    const names = [entities.bookText.name, entities.bookTextPage.name];
    expect(indexedEntities).toEqual(names);
    const patterns = (mapping(plain).FilterCriteria.Filters as { Pattern: string }[]).map((f) => JSON.parse(f.Pattern) as unknown);
    expect(patterns).toEqual([{ dynamodb: { NewImage: { entity: { S: names } } } }, { dynamodb: { OldImage: { entity: { S: names } } } }]);
  });

  it('sends batches it gave up on to an encrypted, TLS-only dead-letter queue of its own, kept 14 days', () => {
    const queue = logicalId(plain.stack, plain.stack.search.indexerDeadLetters);
    expect(mapping(plain).DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': [queue, 'Arn'] } } });
    expect(resourceOf(plain, queue).Properties).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 1_209_600 });
    plain.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queue }],
      PolicyDocument: { Statement: [Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })] },
    });
    expect(pairs(statementsOf(plain, 'search-indexer').filter((st) => actions(st).some((a) => a.startsWith('sqs:'))))).toEqual(
      ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'].map((a) => `${a} \${${queue}.Arn}`),
    );
    plain.template.hasOutput('SearchIndexerDeadLetterQueueUrl', { Value: { Ref: queue } });
  });

  it('gives the indexer 1024 MB and 60 s, and search-api the default 512 MB and 10 s', () => {
    const props = (name: DeployedFunction) => resourceOf(plain, logicalId(plain.stack, fn(plain.stack, name))).Properties;
    expect(props('search-indexer')).toMatchObject({ MemorySize: 1024, Timeout: 60 });
    expect(props('search-api')).toMatchObject({ MemorySize: 512, Timeout: 10 });
  });
});

describe('search routes', () => {
  it('sends GET /ocr/search and GET /ocr/books/{bookTextId}/search to search-api, optional auth, after GET /ocr/books/{bookTextId}', () => {
    const keys = routes.map(routeKey);
    const at = keys.indexOf('GET /ocr/books/{bookTextId}');
    expect(keys.slice(at + 1, at + 3)).toEqual(['GET /ocr/search', 'GET /ocr/books/{bookTextId}/search']);
    for (const route of routes.slice(at + 1, at + 3)) expect(route).toMatchObject({ function: 'search-api', auth: 'optional' });
  });
});

describe('search alarms', () => {
  const alarms = (s: Synth) => Object.values(s.template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
  const domainDimensions = (s: Synth) => [
    { Name: 'ClientId', Value: { Ref: 'AWS::AccountId' } },
    { Name: 'DomainName', Value: { Ref: logicalId(s.stack, s.stack.search.domain) } },
  ];

  it('alarms when the indexer falls behind: records over 60 s old for 5 minutes', () => {
    expect(alarms(plain).filter((a) => a.MetricName === 'IteratorAge')).toEqual([
      expect.objectContaining({
        Namespace: 'AWS/Lambda',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(plain.stack, fn(plain.stack, 'search-indexer')) } }],
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 5,
        Threshold: 60_000,
        ComparisonOperator: 'GreaterThanThreshold',
      }),
    ]);
  });

  it('alarms on a message in the indexer’s dead-letter queue, and on its errors and throttles like every function', () => {
    const queue = logicalId(plain.stack, plain.stack.search.indexerDeadLetters);
    expect(alarms(plain)).toContainEqual(expect.objectContaining(deadLetterAlarm(queue)));
    for (const name of ['search-api', 'search-indexer'] as const) {
      for (const metric of ['Errors', 'Throttles']) {
        expect(alarms(plain), `${name} ${metric}`).toContainEqual(
          expect.objectContaining({ MetricName: metric, Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(plain.stack, fn(plain.stack, name)) } }] }),
        );
      }
    }
  });

  it('alarms on a red cluster, and on a data node with a quarter of its volume or less free', () => {
    for (const [s, volumeGb] of [
      [plain, 10],
      [sized, 50],
    ] as const) {
      expect(alarms(s).filter((a) => a.Namespace === 'AWS/ES')).toEqual([
        expect.objectContaining({
          MetricName: 'ClusterStatus.red',
          Dimensions: domainDimensions(s),
          Statistic: 'Maximum',
          Period: 60,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        }),
        expect.objectContaining({
          MetricName: 'FreeStorageSpace',
          Dimensions: domainDimensions(s),
          Statistic: 'Minimum',
          Threshold: (volumeGb * 1024) / 4,
          ComparisonOperator: 'LessThanOrEqualToThreshold',
        }),
      ]);
    }
  });
});

describe('search and cdk-nag', () => {
  /** The findings acknowledged on a construct and its children, by id. */
  const acknowledged = (s: Synth) =>
    new Map(
      s.stack.node
        .findAll()
        .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
        .flatMap((m) => Object.entries(m.data as Record<string, string>))
        .map(([id, reason]) => [id.replace(/^\w+::/, ''), reason]),
    );

  it('passes the checks (the synths above run them) with the domain’s VPC, IP, master-node and index-path findings acknowledged, each with its reason', () => {
    const found = acknowledged(plain);
    for (const id of ['AwsSolutions-OS1', 'AwsSolutions-OS3', 'AwsSolutions-OS4', 'AwsSolutions-SQS3']) expect(found.get(id), id).toMatch(/.{80,}/);
    expect(found.get('AwsSolutions-OS1')).toMatch(/NAT gateway or interface endpoints/);
    for (const index of ['pages', 'pages-books']) {
      const indexPaths = `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:es:<AWS::Region>:<AWS::AccountId>:domain/${plain.stack.search.domainName}/${index}/*]`;
      expect(found.get(indexPaths), index).toMatch(/pages index and the catalogue listing’s index/);
    }
    // The filed terms' index is granted by exact paths: no wildcard, nothing to acknowledge.
    expect([...found.keys()].filter((id) => id.includes('pages-terms'))).toEqual([]);
    // The encryption, HTTPS, anonymous-access and slow-log rules pass without any acknowledgement.
    for (const id of ['AwsSolutions-OS2', 'AwsSolutions-OS5', 'AwsSolutions-OS8', 'AwsSolutions-OS9']) expect(found.has(id), id).toBe(false);
  });

  it('acknowledges the single zone only for a single data node', () => {
    expect(acknowledged(plain).get('AwsSolutions-OS7')).toMatch(/searchDataNodes=2/);
    expect(acknowledged(sized).has('AwsSolutions-OS7')).toBe(false);
  });

  it('grants nothing on the domain to anyone but the search roles, ocr-api and ocr-callbacks (read after write)', () => {
    const onDomain = allStatements(plain.template).filter((st) => actions(st).some((a) => a.startsWith('es:')));
    const roles = ['search-api', 'search-indexer', 'ocr-api', 'ocr-callbacks'] as const;
    expect(onDomain).toHaveLength(roles.reduce((n, name) => n + esStatements(plain, name).length, 0));
  });
});

describe('every table read of the search functions’ code is one their grants allow', () => {
  /**
   * Local runs enforce no IAM, so this runs the functions' own code on DynamoDB Local (search-api's
   * handler with a token, for both routes; the indexer over the stream's records of a new book),
   * records every DynamoDB call they make, and checks each against the statements the template gives
   * that function: its action, its table or index, and every partition key it names against the
   * `dynamodb:LeadingKeys` patterns. A new read of another record (a File, a subscription) fails here.
   */
  type Call = { action: string; resource: string; partitionKeys: string[] };
  const calls: Call[] = [];
  let recording = false;
  const stores = testStores();
  const at = new Date().toISOString();
  const word = `zumurrud${randomUUID().slice(0, 8)}`;
  let bookTextId: string;
  let bearer: string;

  const plainKey = (v: unknown): string => (typeof v === 'string' ? v : ((v as { S?: string })?.S ?? JSON.stringify(v)));
  const keyOf = (item: Record<string, unknown>) => plainKey(item[tableSchema.partitionKey]);
  const docCommands: Record<string, string> = {
    Get: 'GetItem',
    BatchGet: 'BatchGetItem',
    Put: 'PutItem',
    Update: 'UpdateItem',
    Delete: 'DeleteItem',
    BatchWrite: 'BatchWriteItem',
    TransactGet: 'TransactGetItems',
    TransactWrite: 'TransactWriteItems',
  };
  /** A command as IAM sees it: its action, the table or index it reads, and the partition keys it names. */
  function callOf(commandName: string, input: Record<string, unknown>): Call {
    const name = commandName.replace(/Command$/, '');
    const action = `dynamodb:${docCommands[name] ?? name}`;
    const tableName = process.env.TABLE_NAME!;
    const index = input.IndexName as string | undefined;
    const resource = `\${table}${index ? `/index/${index}` : ''}`;
    if (input.Key) return { action, resource, partitionKeys: [keyOf(input.Key as Record<string, unknown>)] };
    if (input.RequestItems) {
      const requests = (input.RequestItems as Record<string, { Keys?: Record<string, unknown>[] }>)[tableName];
      return { action, resource, partitionKeys: (requests?.Keys ?? []).map(keyOf) };
    }
    if (input.KeyConditionExpression) {
      // The partition key's equality: `#name = :value` or `pk = :value`.
      const [, nameRef, valueRef] = /([#\w]+)\s*=\s*(:\w+)/.exec(String(input.KeyConditionExpression)) ?? [];
      const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
      const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
      const attribute = names[nameRef ?? ''] ?? nameRef;
      const keyAttribute = index ? tableSchema.indexes.find((i) => i.name === index)?.partitionKey : tableSchema.partitionKey;
      return { action, resource, partitionKeys: attribute === keyAttribute ? [plainKey(values[valueRef ?? ''])] : ['(no partition key)'] };
    }
    return { action, resource, partitionKeys: ['(no key: a scan or a batch of writes)'] };
  }

  const glob = (pattern: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  /** Whether one statement of the function allows the call (Allow, no condition but LeadingKeys). */
  function allows(name: DeployedFunction, call: Call): boolean {
    return statementsOf(plain, name).some((st) => {
      if (st.Effect !== 'Allow' || !actions(st).includes(call.action)) return false;
      const table = logicalId(plain.stack, plain.stack.table);
      if (!resources(st).some((r) => text(r).replace(`\${${table}.Arn}`, '${table}') === call.resource)) return false;
      if (st.Condition === undefined) return true;
      const condition = st.Condition as Record<string, Record<string, string[]>>;
      const patterns = condition['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
      if (!patterns || Object.keys(condition).length !== 1 || Object.keys(condition['ForAllValues:StringLike']!).length !== 1) return false;
      return call.partitionKeys.every((key) => patterns.some((p) => glob(p).test(key)));
    });
  }

  async function recorded<T>(run: () => Promise<T>): Promise<{ result: T; calls: Call[] }> {
    calls.length = 0;
    recording = true;
    try {
      const result = await run();
      return { result, calls: [...calls] };
    } finally {
      recording = false;
    }
  }

  const context = { awsRequestId: 'grants', functionName: 'search-api', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  const get = (routeKey: string, path: string, pathParameters: Record<string, string> = {}) =>
    ({
      version: '2.0',
      routeKey,
      rawPath: path,
      rawQueryString: `q=${word}`,
      queryStringParameters: { q: word },
      pathParameters,
      headers: { authorization: bearer },
      requestContext: { http: { method: 'GET', path }, requestId: randomUUID(), routeKey },
      isBase64Encoded: false,
    }) as unknown as APIGatewayProxyEventV2;

  beforeAll(async () => {
    dynamoDocumentClient().middlewareStack.add(
      (next, context) => async (args) => {
        if (recording) calls.push(callOf(context.commandName ?? '', args.input as Record<string, unknown>));
        return next(args);
      },
      { step: 'initialize', name: 'recordSearchReads' },
    );
    const userId = newObjectId();
    await stores.users.put({ userId, username: 'reader', email: `${userId}@example.com`, role: 'editor', profilePicture: null, profilePictureKey: null, createdAt: at, updatedAt: at });
    bearer = `Bearer ${await tokenFor(userId)}`;
    const book = newBookText(
      { bookTextId: newObjectId(), jobId: newJobId(), fileId: newObjectId(), userId, fileName: 'a.pdf', status: 'completed', visibility: 'public', language: 'en' },
      at,
    );
    if (!(await stores.ocrJobs.create(book))) throw new Error('not created');
    bookTextId = book.bookTextId;
    await stores.pages.putPages([newPage(bookTextId, 1, { text: `the ${word} of page one` }, at), newPage(bookTextId, 2, { text: `and ${word} again` }, at)]);
  });

  it('the indexer reads only what its grants allow', async () => {
    const handler = (event: DynamoDBStreamEvent) => indexStreamBatch(indexerDeps(), event);
    const { calls: made } = await recorded(() => drainStream({ handler, bookTextIds: [bookTextId] }));
    expect(made.map((c) => c.action)).toContain('dynamodb:BatchGetItem');
    expect(made.flatMap((c) => c.partitionKeys)).toContain(keys.bookTextPartition(bookTextId));
    for (const call of made) expect(allows('search-indexer', call), JSON.stringify(call)).toBe(true);
  });

  it('search-api reads only what its grants allow, on both routes', async () => {
    const { handler } = await import('../../functions/search-api/handler.ts');
    const all = await recorded(() => handler(get('GET /ocr/search', '/ocr/search'), context));
    expect(JSON.parse((all.result as { body: string }).body).hits.map((h: { pageNumber: number }) => h.pageNumber).sort()).toEqual([1, 2]);
    const one = await recorded(() => handler(get('GET /ocr/books/{bookTextId}/search', `/ocr/books/${bookTextId}/search`, { bookTextId }), context));
    expect(JSON.parse((one.result as { body: string }).body).total).toBe(2);
    const made = [...all.calls, ...one.calls];
    // The caller's user record, one book, the hits' books and pages: each path was taken.
    expect(made.map((c) => `${c.action} ${c.partitionKeys[0]?.split('#')[0]}`).sort()).toEqual(
      expect.arrayContaining(['dynamodb:GetItem USER', 'dynamodb:GetItem BOOKTEXT', 'dynamodb:BatchGetItem BOOKTEXT']),
    );
    for (const call of made) expect(allows('search-api', call), JSON.stringify(call)).toBe(true);
  });

  it('would refuse a read of any other record, a Query, or an index (so the checks above can fail)', () => {
    const table = '${table}';
    expect(allows('search-api', { action: 'dynamodb:GetItem', resource: table, partitionKeys: [keys.file('f').pk] })).toBe(false);
    expect(allows('search-api', { action: 'dynamodb:BatchGetItem', resource: table, partitionKeys: [keys.bookText('b').pk, keys.subscription('u').pk] })).toBe(false);
    expect(allows('search-api', { action: 'dynamodb:BatchGetItem', resource: table, partitionKeys: [keys.user('u').pk] })).toBe(false);
    expect(allows('search-api', { action: 'dynamodb:Query', resource: table, partitionKeys: [keys.bookText('b').pk] })).toBe(false);
    expect(allows('search-indexer', { action: 'dynamodb:GetItem', resource: table, partitionKeys: [keys.bookText('b').pk] })).toBe(false);
    expect(allows('search-indexer', { action: 'dynamodb:BatchGetItem', resource: `${table}/index/gsi1`, partitionKeys: ['OWNER#u'] })).toBe(false);
    expect(allows('search-api', { action: 'dynamodb:GetItem', resource: table, partitionKeys: [keys.user('u').pk] })).toBe(true);
  });
});
