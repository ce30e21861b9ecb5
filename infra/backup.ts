import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as backup from 'aws-cdk-lib/aws-backup';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/**
 * AWS Backup of the table (docs/restore.md). Point-in-time recovery already restores the table to any
 * second of the last 35 days; these backups reach further back (a bad write noticed late) and live in
 * a vault of their own, apart from the table, where no one may delete them before their time.
 *
 * The buckets are not in the plan: they are versioned (storage.ts), no function role may read or
 * delete an object version, and a deleted or replaced object stays recoverable for the recovery
 * window. A backup of them would be a second copy of every scan, paid for every month, against what
 * versioning already undoes.
 */

/** Weekly, Sunday 03:00 UTC: one full copy of the table a week. */
export const tableBackupSchedule = { weekDay: 'SUN', hour: '3', minute: '0' } as const;

/** Each weekly backup is kept 13 weeks: a quarter's reach beyond point-in-time recovery's 35 days, 13 copies at a time. */
export const tableBackupRetentionDays = 91;

export class TableBackups extends Construct {
  readonly vault: backup.BackupVault;
  readonly plan: backup.BackupPlan;
  /** AWS Backup's role for the table: takes the backups, and is the role a restore job is given. */
  readonly role: iam.IRole;

  constructor(scope: Construct, id: string, props: { table: dynamodb.ITable }) {
    super(scope, id);
    // Retained with the stack's data; recovery points go only when their retention ends (lifecycle),
    // never by hand: the vault's access policy denies deleting one or changing its lifecycle.
    this.vault = new backup.BackupVault(this, 'Vault', { removalPolicy: RemovalPolicy.RETAIN, blockRecoveryPointDeletion: true });
    this.plan = new backup.BackupPlan(this, 'Plan', {
      backupPlanName: `${Stack.of(this).stackName}-table`,
      backupVault: this.vault,
      backupPlanRules: [
        new backup.BackupPlanRule({
          ruleName: 'WeeklyTable',
          scheduleExpression: events.Schedule.cron(tableBackupSchedule),
          deleteAfter: Duration.days(tableBackupRetentionDays),
        }),
      ],
    });
    // The role also restores (docs/restore.md passes it to start-restore-job): a restore makes a new table.
    const selection = this.plan.addSelection('Table', { resources: [backup.BackupResource.fromDynamoDbTable(props.table)], allowRestores: true });
    this.role = selection.grantPrincipal as iam.IRole;
    for (const policy of ['AWSBackupServiceRolePolicyForBackup', 'AWSBackupServiceRolePolicyForRestores']) {
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/${policy}]`,
        reason:
          'AWS Backup’s own service role policies for taking and restoring backups, kept current by AWS as the services it backs up ' +
          'change; the role is assumable only by backup.amazonaws.com, and the plan selects the table alone.',
      });
    }
  }
}
