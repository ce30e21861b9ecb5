import { App, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { DeployedFunction } from '../../infra/functions.ts';
import { addChecks } from '../../infra/checks.ts';
import { MaktabaStack } from '../../infra/stack.ts';

/** What the CDK template tests share: a synth as `npm run synth` does it, and readers of its template. */

export interface Synth {
  stack: MaktabaStack;
  template: Template;
}

export type Statement = { Action: string | string[]; Effect: string; Resource: unknown; Principal?: unknown; Condition?: unknown; Sid?: string };

/** Synthesizes with cdk-nag's AwsSolutions checks, as `npm run synth` does: an unacknowledged finding throws. */
export function synth(context: Record<string, string>): Synth {
  const app = new App({ context });
  const stack = new MaktabaStack(app, 'Test');
  addChecks(app);
  return { stack, template: Template.fromStack(stack) };
}

export const logicalId = (stack: MaktabaStack, construct: Construct): string =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

export const fn = (stack: MaktabaStack, name: DeployedFunction) => {
  const f = stack.functions.get(name);
  if (!f) throw new Error(`no function ${name}`);
  return f;
};

/** Every statement of the inline policies attached to a role. */
export function roleStatements(s: Synth, role: iam.IRole): Statement[] {
  const policies = s.template.findResources('AWS::IAM::Policy', { Properties: { Roles: Match.arrayWith([{ Ref: logicalId(s.stack, role) }]) } });
  return Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}

/** Every statement of the inline policies attached to a function's role. */
export const statementsOf = (s: Synth, name: DeployedFunction): Statement[] => roleStatements(s, fn(s.stack, name).role!);

export const actions = (s: Statement): string[] => [s.Action].flat();
export const resources = (s: Statement): unknown[] => [s.Resource].flat();
export const allStatements = (t: Template): Statement[] =>
  Object.values(t.findResources('AWS::IAM::Policy')).flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
export const envOf = (s: Synth, name: DeployedFunction): Record<string, unknown> =>
  s.template.toJSON().Resources[logicalId(s.stack, fn(s.stack, name))].Properties.Environment.Variables;

/** The alarm on a message in a dead-letter queue (its logical id): one is enough. */
export const deadLetterAlarm = (queueId: string) => ({
  Namespace: 'AWS/SQS',
  MetricName: 'ApproximateNumberOfMessagesVisible',
  Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
  Threshold: 1,
});
