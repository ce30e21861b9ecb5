import { ArnFormat, Aws, CustomResource, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { functionRole } from './permissions.ts';
import type { PlatformApplication, PushCredentials, PushPlatform } from './settings.ts';

/**
 * SNS platform applications made at deploy from credentials the operator keeps in Secrets Manager
 * (CloudFormation has no resource for them). A custom resource per platform reads its secret and calls
 * CreatePlatformApplication; a changed revision or secret re-applies the credentials with
 * SetPlatformApplicationAttributes; a stack deleted deletes the application (and with it SNS's endpoints).
 * The credentials never pass through the template: the function reads them itself.
 */

/** The SNS platform of each push platform: APNs (production or sandbox) and FCM, which SNS calls GCM. */
export const snsPlatform = (platform: PushPlatform, credentials: PushCredentials): string =>
  platform === 'android' ? 'GCM' : credentials.sandbox ? 'APNS_SANDBOX' : 'APNS';

/**
 * The application manager, inline (CloudFormation's ZipFile, at most 4 KB). An APNs secret holds a token
 * signing key `{"signingKey","keyId","teamId","bundleId"}`; an FCM secret holds the Firebase service
 * account key file (HTTP v1) as it is downloaded. SNS checks the credentials at create and update, so a
 * wrong key fails the deploy with SNS's reason. An answer never quotes the secret. A Delete of a resource
 * whose Create failed (its physical id is the request id) has nothing to delete.
 */
export const pushApplicationSource = `const sns = require('@aws-sdk/client-sns');
const { SecretsManagerClient, GetSecretValueCommand } = require('@aws-sdk/client-secrets-manager');
const client = new sns.SNSClient({});
const apnsKeys = ['signingKey', 'keyId', 'teamId', 'bundleId'];

async function attributes(p) {
  const secret = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: p.SecretArn }));
  let value;
  try {
    value = JSON.parse(secret.SecretString || '');
  } catch {
    throw new Error('The secret ' + p.SecretArn + ' does not hold JSON');
  }
  if (p.Platform === 'GCM') {
    if (value.type !== 'service_account' || !value.private_key || !value.client_email) {
      throw new Error('The secret ' + p.SecretArn + ' is not a Firebase service account key (type service_account, private_key, client_email)');
    }
    return { PlatformCredential: secret.SecretString };
  }
  const missing = apnsKeys.filter((k) => typeof value[k] !== 'string' || !value[k]);
  if (missing.length) throw new Error('The secret ' + p.SecretArn + ' lacks ' + missing.join(', ') + ' of an APNs token key');
  return { PlatformCredential: value.signingKey, PlatformPrincipal: value.keyId, ApplePlatformTeamID: value.teamId, ApplePlatformBundleID: value.bundleId };
}

async function answer(event) {
  const p = event.ResourceProperties;
  const id = event.PhysicalResourceId;
  if (event.RequestType === 'Delete') {
    if (id.startsWith('arn:')) await client.send(new sns.DeletePlatformApplicationCommand({ PlatformApplicationArn: id }));
    return id;
  }
  const old = event.OldResourceProperties;
  if (event.RequestType === 'Update' && old.Platform === p.Platform && old.Name === p.Name) {
    await client.send(new sns.SetPlatformApplicationAttributesCommand({ PlatformApplicationArn: id, Attributes: await attributes(p) }));
    return id;
  }
  // A Create, or another platform or name: a new application (CloudFormation then deletes the old one).
  const made = await client.send(new sns.CreatePlatformApplicationCommand({ Name: p.Name, Platform: p.Platform, Attributes: await attributes(p) }));
  return made.PlatformApplicationArn;
}

exports.handler = async (event) => {
  let response;
  try {
    response = { Status: 'SUCCESS', PhysicalResourceId: await answer(event) };
  } catch (error) {
    console.error(error.name, error.message);
    response = { Status: 'FAILED', Reason: String(error.message || error.name).slice(0, 500), PhysicalResourceId: event.PhysicalResourceId || event.RequestId };
  }
  const body = JSON.stringify({ ...response, StackId: event.StackId, RequestId: event.RequestId, LogicalResourceId: event.LogicalResourceId });
  const put = await fetch(event.ResponseURL, { method: 'PUT', body: Buffer.from(body) });
  if (!put.ok) console.error('CloudFormation refused the answer:', put.status, await put.text());
};
`;

export interface PushApplicationsProps {
  credentials: Partial<Record<PushPlatform, PushCredentials>>;
  /** Any text; a new one re-applies the credentials (after new ones are put into a secret). */
  revision?: string;
}

export class PushApplications extends Construct {
  /** The applications made here, with their endpoints' ARN pattern; none without credentials. */
  readonly applications: PlatformApplication[] = [];
  readonly manager?: lambda.Function;
  readonly managerRole?: iam.Role;
  readonly resources: CustomResource[] = [];

  constructor(scope: Construct, id: string, props: PushApplicationsProps) {
    super(scope, id);
    const given = (Object.entries(props.credentials) as [PushPlatform, PushCredentials][]).filter(([, c]) => c);
    if (given.length === 0) return;
    const stack = Stack.of(this);
    // One application name for every platform: SNS keeps them apart by platform (app/APNS/<name>, app/GCM/<name>).
    const name = Aws.STACK_NAME;
    const snsArn = (resource: 'app' | 'endpoint', resourceName: string) =>
      stack.formatArn({ service: 'sns', resource, resourceName, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });

    const role = functionRole(stack, 'PushApplicationsRole', 'Maktaba push: makes the SNS platform applications at deploy');
    this.managerRole = role;
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: given.map(([, c]) => c.secretArn) }),
    );
    // SNS defines no resource for CreatePlatformApplication; the application's own actions take its ARN.
    // An iOS application may move between APNS and APNS_SANDBOX: the old one is deleted after the move.
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sns:CreatePlatformApplication'], resources: ['*'] }));
    const platforms = given.flatMap(([platform]) => (platform === 'ios' ? ['APNS', 'APNS_SANDBOX'] : ['GCM']));
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['sns:SetPlatformApplicationAttributes', 'sns:DeletePlatformApplication'],
        resources: platforms.map((p) => snsArn('app', `${p}/${name}`)),
      }),
    );
    const managerLogs = new logs.LogGroup(this, 'ManagerLogs', { retention: logs.RetentionDays.ONE_MONTH });
    managerLogs.grantWrite(role);
    // No tracing: it runs once per deploy, and CloudFormation shows its failure's reason.
    const manager = new lambda.Function(this, 'Manager', {
      description: 'Maktaba push: makes the SNS platform applications from their credentials at deploy',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: lambda.Code.fromInline(pushApplicationSource),
      memorySize: 256,
      timeout: Duration.minutes(1),
      role,
      logGroup: managerLogs,
    });
    this.manager = manager;
    // CloudFormation invokes it asynchronously: a retry after an answer was sent could only confuse.
    manager.configureAsyncInvoke({ retryAttempts: 0 });

    for (const [platform, credentials] of given) {
      const resource = new CustomResource(this, platform === 'ios' ? 'Apns' : 'Fcm', {
        serviceToken: manager.functionArn,
        resourceType: 'Custom::PushPlatformApplication',
        properties: {
          Name: name,
          Platform: snsPlatform(platform, credentials),
          SecretArn: credentials.secretArn,
          ...(props.revision ? { Revision: props.revision } : {}),
        },
        serviceTimeout: Duration.minutes(5),
      });
      resource.node.addDependency(manager);
      this.resources.push(resource);
      this.applications.push({
        platform,
        // The physical id is the application's ARN.
        arn: resource.ref,
        endpointArns: snsArn('endpoint', `${snsPlatform(platform, credentials)}/${name}/*`),
      });
    }
  }
}

