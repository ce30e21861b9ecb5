import { createHash } from 'node:crypto';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { indexedEntities } from '../lib/adapters/dynamo/stream-changes.ts';
import { defaultNames, environmentFor } from '../lib/config.ts';
import { searchIndexerTrigger } from './functions.ts';
import type { Alarms } from './monitoring.ts';
import type { SearchSettings } from './settings.ts';
import { deadLetterQueue } from './storage.ts';

/**
 * Full-text search on AWS (issue 17; docs/operations.md, "Search on AWS"): a managed OpenSearch domain, the index
 * of pages in it, and the trigger that keeps the index in step with the table (the search indexer on
 * the table's stream).
 *
 * - **Version**: OpenSearch 2.19, the newest 2.x this aws-cdk-lib offers. T3 instances (the default
 *   t3.small.search) are not offered on OpenSearch 3.x; 2.19 is also the version a domain must be on
 *   before moving to 3.x. Version upgrades are in place (`enableVersionUpgrade`), never a new domain.
 * - **Access**: IAM only. No fine-grained access control (no internal users or roles to manage): every
 *   request is signed with SigV4 by a function role, and the domain's own access policy allows exactly
 *   the search roles the exact actions of their search kinds (permissions.ts, `searchGrants`), which
 *   their identity policies hold too. Nobody anonymous; other principals of the account only through
 *   identity policies of their own (an operator's).
 * - **Network**: not in a VPC. The functions that call the domain would have to be in the VPC too,
 *   and a function in a VPC reaches DynamoDB, S3, SQS and Secrets Manager only through a NAT gateway
 *   (about $33 a month each) or interface endpoints (about $7 a month each, per zone): more than the
 *   domain. The domain is protected by SigV4 (IAM) on every request, HTTPS only (TLS 1.2 at least),
 *   encryption at rest and between nodes.
 * - **Logs**: error (application) logs and search and indexing slow logs go to log groups of their own
 *   (a month). Slow logs are written only above the thresholds an index sets (index settings of the
 *   adapter; none are set now).
 * - **Data**: retained when the stack is deleted, like the table; the index can always be rebuilt
 *   from the table.
 */

/** The newest OpenSearch 2.x of the installed aws-cdk-lib: t3 instances are not offered on 3.x. */
export const searchEngineVersion = opensearch.EngineVersion.OPENSEARCH_2_19;

/** The items the search indexer is given (entities.ts): the books and their pages, nothing else. */
export { indexedEntities };

/** The index alarm: records waiting longer than this, this many minutes running, mean the index is falling behind. */
export const indexerLag = { seconds: 60, minutes: 5 } as const;

/**
 * The domain's name: a readable prefix of the stack's name and a hash of all of it (domain names are
 * 3 to 28 lowercase letters, digits and hyphens, unique in an account and region; stack names are
 * case-sensitive and up to 128 characters). Named rather than generated so that the domain's access
 * policy can name the domain's ARN (a resource cannot refer to its own generated ARN).
 */
export function searchDomainName(stackName: string): string {
  const readable =
    stackName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^[^a-z]+/, '')
      .slice(0, 14)
      .replace(/-+$/, '') || 'maktaba';
  const hash = createHash('sha256').update(stackName).digest('hex').slice(0, 6);
  return `${readable}-search-${hash}`;
}

export interface SearchProps {
  settings: SearchSettings;
  alarms: Alarms;
}

export class Search extends Construct {
  readonly domain: opensearch.Domain;
  readonly domainName: string;
  /** `arn:<partition>:es:<region>:<account>:domain/<name>`, built from the name (searchDomainName). */
  readonly domainArn: string;
  /** Data nodes in two availability zones (two or more of them). */
  readonly zoneAware: boolean;
  /** The index of pages: the adapter's default (lib/config.ts), set explicitly in SEARCH_INDEX. */
  readonly index: string = defaultNames.searchIndex;
  /** SEARCH_ENDPOINT and SEARCH_INDEX, for the functions with a search kind (stack.ts). */
  readonly environment: Record<string, string>;
  readonly logGroups: { app: logs.LogGroup; slowSearch: logs.LogGroup; slowIndex: logs.LogGroup };
  /** Descriptions of stream batches the indexer gave up on (searchIndexerTrigger). */
  readonly indexerDeadLetters: sqs.Queue;
  /** The domain's access policy: one statement per search statement of a function role (allow). */
  readonly accessPolicy = new iam.PolicyDocument();
  private readonly alarms: Alarms;

  constructor(scope: Construct, id: string, props: SearchProps) {
    super(scope, id);
    const { settings } = props;
    this.alarms = props.alarms;
    const stack = Stack.of(this);
    this.domainName = searchDomainName(stack.stackName);
    this.domainArn = stack.formatArn({ service: 'es', resource: 'domain', resourceName: this.domainName });

    const logGroup = (logId: string) => new logs.LogGroup(this, logId, { retention: logs.RetentionDays.ONE_MONTH });
    this.logGroups = { app: logGroup('AppLogs'), slowSearch: logGroup('SlowSearchLogs'), slowIndex: logGroup('SlowIndexLogs') };
    // OpenSearch writes to the log groups under a CloudWatch Logs resource policy. CDK's own makes it
    // with a custom resource (a Lambda function); this one is plain CloudFormation, limited to this
    // account's domain of this name.
    const logsPolicy = new logs.ResourcePolicy(this, 'LogsPolicy', {
      policyStatements: [
        new iam.PolicyStatement({
          principals: [new iam.ServicePrincipal('es.amazonaws.com')],
          actions: ['logs:PutLogEvents', 'logs:CreateLogStream'],
          resources: Object.values(this.logGroups).map((g) => g.logGroupArn),
          conditions: { StringEquals: { 'aws:SourceAccount': stack.account }, ArnLike: { 'aws:SourceArn': this.domainArn } },
        }),
      ],
    });

    this.zoneAware = settings.dataNodes > 1;
    this.domain = new opensearch.Domain(this, 'Domain', {
      domainName: this.domainName,
      version: searchEngineVersion,
      enableVersionUpgrade: true,
      capacity: {
        dataNodes: settings.dataNodes,
        dataNodeInstanceType: settings.instanceType,
        // No dedicated master nodes (three more instances) and no standby: not for a t3 domain of this size.
        multiAzWithStandbyEnabled: false,
      },
      // Two or more data nodes are spread over two zones; the index's replicas are the adapter's (ensureIndex).
      zoneAwareness: this.zoneAware ? { enabled: true, availabilityZoneCount: 2 } : { enabled: false },
      ebs: { enabled: true, volumeType: ec2.EbsDeviceVolumeType.GP3, volumeSize: settings.volumeGb },
      encryptionAtRest: { enabled: true },
      nodeToNodeEncryption: true,
      enforceHttps: true,
      tlsSecurityPolicy: opensearch.TLSSecurityPolicy.TLS_1_2,
      logging: {
        appLogEnabled: true,
        appLogGroup: this.logGroups.app,
        slowSearchLogEnabled: true,
        slowSearchLogGroup: this.logGroups.slowSearch,
        slowIndexLogEnabled: true,
        slowIndexLogGroup: this.logGroups.slowIndex,
      },
      suppressLogsResourcePolicy: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // OpenSearch checks at creation that it may write to the log groups.
    this.domain.node.addDependency(logsPolicy);
    // Set on the CloudFormation resource itself: CDK's `accessPolicies` applies a policy after creation
    // with a custom resource (another Lambda function), which leaves the domain without one until then.
    (this.domain.node.defaultChild as opensearch.CfnDomain).accessPolicies = this.accessPolicy;

    this.environment = environmentFor({ searchEndpoint: `https://${this.domain.domainEndpoint}`, searchIndex: this.index });
    this.indexerDeadLetters = deadLetterQueue(this, 'IndexerDeadLetters');
    this.alarms.watchSearchDomain('Search', this.domain, settings.volumeGb);
    this.alarms.watchDeadLetters('SearchIndexer', this.indexerDeadLetters, 'Search indexer');
  }

  /** Lets a role make exactly these search statements (its identity policy holds them too: permissions.ts). */
  allow(role: iam.IRole, statements: readonly iam.PolicyStatement[]): void {
    for (const statement of statements) {
      this.accessPolicy.addStatements(
        new iam.PolicyStatement({ principals: [new iam.ArnPrincipal(role.roleArn)], actions: statement.actions, resources: statement.resources }),
      );
    }
  }

  /**
   * The search indexer on the table's stream (functions.ts, `searchIndexerTrigger`): only BookText and
   * BookTextPage items reach it, by their `entity` attribute after the change or, for a removal, before
   * it (two filters: a record matching either is passed). Its lag has an alarm of its own.
   */
  triggerIndexer(indexer: lambda.Function, table: dynamodb.ITable): void {
    const trigger = searchIndexerTrigger;
    const entity = { S: lambda.FilterRule.or(...indexedEntities) };
    indexer.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: trigger.batchSize,
        maxBatchingWindow: Duration.seconds(trigger.maxBatchingWindowSeconds),
        parallelizationFactor: trigger.parallelizationFactor,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: trigger.retryAttempts,
        maxRecordAge: Duration.seconds(trigger.maxRecordAgeSeconds),
        onFailure: new SqsDlq(this.indexerDeadLetters),
        filters: [
          lambda.FilterCriteria.filter({ dynamodb: { NewImage: { entity } } }),
          lambda.FilterCriteria.filter({ dynamodb: { OldImage: { entity } } }),
        ],
      }),
    );
    this.alarms.watchIteratorAge('SearchIndexer', indexer, 'Search indexer', indexerLag.seconds, indexerLag.minutes);
  }
}
