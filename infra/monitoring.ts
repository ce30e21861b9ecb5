import { CfnOutput, Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { metricNames, metricsNamespace, serviceName } from '../functions/_shared/metric-names.ts';
import { invoicingSchedule } from '../lib/billing/invoicing.ts';
import { owedUsageSchedule } from '../lib/billing/owed-usage.ts';

/**
 * Alarms an operator acts on, all sent to one topic: a function that fails or is throttled, a
 * message in a dead-letter queue (a job that failed five times and needs a look), an overage
 * invoice that waits too long or could not be made, a search index falling behind the table, and a
 * search domain that is down or filling up.
 */
export class Alarms extends Construct {
  readonly topic: sns.Topic;
  private readonly action: actions.SnsAction;

  constructor(scope: Construct, id: string, props: { email?: string }) {
    super(scope, id);
    // CloudWatch cannot publish to a topic under the AWS managed SNS key, so the topic has its own key.
    const key = new kms.Key(this, 'Key', { description: 'Encrypts the Maktaba alarm topic', enableKeyRotation: true });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new sns.Topic(this, 'Topic', { displayName: 'Maktaba alarms', masterKey: key, enforceSSL: true });
    if (props.email) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
    this.action = new actions.SnsAction(this.topic);
    new CfnOutput(scope, 'AlarmTopicArn', { value: this.topic.topicArn, description: 'Subscribe to receive the alarms' });
  }

  /** Any error (an invocation that threw or timed out) and any throttle, per five minutes. */
  watchFunction(id: string, fn: lambda.IFunction): void {
    this.alarm(`${id}Errors`, fn.metricErrors({ period: Duration.minutes(5) }), `${fn.node.id}: invocations failed`);
    this.alarm(`${id}Throttles`, fn.metricThrottles({ period: Duration.minutes(5) }), `${fn.node.id}: invocations throttled`);
  }

  /** A dead letter waiting: the maximum over a minute is at least one. */
  watchDeadLetters(id: string, queue: sqs.IQueue, what: string): void {
    this.alarm(
      `${id}DeadLetters`,
      queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: cloudwatch.Stats.MAXIMUM }),
      `${what}: messages in the dead-letter queue`,
    );
  }

  /**
   * The billing worker's work: a completion owing its usage record for over an hour (owed-usage.ts); its outbox (lib/billing/invoicing.ts): a usage log `pending` for longer than the
   * threshold (several attempts failed, or the worker is not running: every run reports the oldest
   * wait, so a missing report alarms too), any log settled `invoice_failed`, and any settled
   * `no_customer` (pages owed by a user with no Stripe customer: revenue the operator must collect).
   */
  watchInvoices(functionName: string): void {
    const metric = (metricName: string, statistic: string) =>
      new cloudwatch.Metric({
        namespace: metricsNamespace,
        metricName,
        dimensionsMap: { service: serviceName, function: functionName },
        period: Duration.minutes(5),
        statistic,
      });
    this.alarm(
      'PendingInvoice',
      metric(metricNames.oldestPendingInvoice, cloudwatch.Stats.MAXIMUM),
      `Overage invoices: a usage log has waited over ${invoicingSchedule.oldestPendingAlarmSeconds / 60} minutes for its invoice, or the billing worker reported nothing`,
      { threshold: invoicingSchedule.oldestPendingAlarmSeconds, treatMissingData: cloudwatch.TreatMissingData.BREACHING },
    );
    // Completed jobs not yet billed (lib/billing/owed-usage.ts): the worker records them within minutes, so an hour means it cannot.
    this.alarm(
      'OwedUsage',
      metric(metricNames.oldestOwedUsage, cloudwatch.Stats.MAXIMUM),
      `Page usage: a completed OCR job has owed its usage record for over ${owedUsageSchedule.oldestOwedAlarmSeconds / 60} minutes (not billed), or the billing worker reported nothing`,
      { threshold: owedUsageSchedule.oldestOwedAlarmSeconds, treatMissingData: cloudwatch.TreatMissingData.BREACHING },
    );
    this.alarm(
      'FailedInvoices',
      metric(metricNames.overageInvoicesFailed, cloudwatch.Stats.SUM),
      'Overage invoices: every attempt failed for a usage log (paymentStatus invoice_failed)',
    );
    this.alarm(
      'OverageWithoutCustomer',
      metric(metricNames.overageWithoutCustomer, cloudwatch.Stats.SUM),
      'Overage invoices: a user owes overage but has no Stripe customer to charge (paymentStatus no_customer)',
    );
  }

  /**
   * A stream trigger falling behind: the age of the last record of each batch read stays above the
   * limit (the maximum of every minute, five minutes running). An idle stream reports nothing, which
   * is fine.
   */
  watchIteratorAge(id: string, fn: lambda.IFunction, what: string, limitSeconds: number, minutes: number): void {
    this.alarm(
      `${id}IteratorAge`,
      fn.metric('IteratorAge', { period: Duration.minutes(1), statistic: cloudwatch.Stats.MAXIMUM }),
      `${what}: records wait over ${limitSeconds} s for ${minutes} minutes (IteratorAge)`,
      {
        threshold: limitSeconds * 1000,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: minutes,
      },
    );
  }

  /**
   * An OpenSearch domain (search.ts): a red cluster (a primary shard unassigned: searches and writes
   * of it fail) in any minute, and a data node with a quarter of its volume or less free (AWS's
   * recommended alarm; at about 5% free OpenSearch blocks writes).
   */
  watchSearchDomain(id: string, domain: opensearch.IDomain, volumeGb: number): void {
    this.alarm(
      `${id}ClusterRed`,
      domain.metricClusterStatusRed({ period: Duration.minutes(1), statistic: cloudwatch.Stats.MAXIMUM }),
      'Search: the OpenSearch cluster is red (a primary shard is unassigned)',
    );
    const quarterMb = (volumeGb * 1024) / 4;
    this.alarm(
      `${id}FreeStorage`,
      domain.metricFreeStorageSpace({ period: Duration.minutes(5), statistic: cloudwatch.Stats.MINIMUM }),
      `Search: a data node has ${quarterMb} MB (a quarter of its volume) or less free (FreeStorageSpace)`,
      { threshold: quarterMb, comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD },
    );
  }

  private alarm(
    id: string,
    metric: cloudwatch.IMetric,
    description: string,
    options: {
      threshold?: number;
      treatMissingData?: cloudwatch.TreatMissingData;
      comparisonOperator?: cloudwatch.ComparisonOperator;
      evaluationPeriods?: number;
    } = {},
  ): void {
    const alarm = new cloudwatch.Alarm(this, id, {
      metric,
      threshold: options.threshold ?? 1,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      comparisonOperator: options.comparisonOperator ?? cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: options.treatMissingData ?? cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
  }
}
