import * as secretsmanager from '@aws-sdk/client-secrets-manager';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as sns from '@aws-sdk/client-sns';
import { CreatePlatformApplicationCommand, DeletePlatformApplicationCommand, SetPlatformApplicationAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import { App } from 'aws-cdk-lib';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deployedFunctions, type DeployedFunction } from '../../infra/functions.ts';
import { pushApplicationSource } from '../../infra/push.ts';
import { readSettings } from '../../infra/settings.ts';
import './ocr-worker-stub.ts';
import { actions, allStatements, envOf, logicalId, resources, roleStatements, statementsOf, synth, type Synth } from './template.ts';

/** Push platform applications the stack makes from the operator's credentials (infra/push.ts). */

const apnsSecret = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:maktaba/apns-AbCdEf';
const fcmSecret = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:maktaba/fcm-GhIjKl';
let s: Synth;

beforeAll(() => {
  s = synth({ pushApnsSecretArn: apnsSecret, pushApnsSandbox: 'true', pushFcmSecretArn: fcmSecret, pushCredentialsRevision: '2026-11' });
}, 120_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- CloudFormation JSON
type Json = any;
const resourcesOfType = (type: string): Record<string, Json> =>
  Object.fromEntries(Object.entries(s.template.toJSON().Resources as Record<string, Json>).filter(([, r]) => r.Type === type));
const applicationId = (platform: string) => Object.entries(resourcesOfType('Custom::PushPlatformApplication')).find(([, r]) => r.Properties.Platform === platform)![0];
/** `arn:<partition>:sns:<region>:<account>:<resource>/<platform>/<stack name><tail>`, as CloudFormation joins it. */
const arnOf = (resource: string, platform: string, tail = '') => ({
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${resource}/${platform}/`, { Ref: 'AWS::StackName' }, ...(tail ? [tail] : [])]],
});

describe('platform applications from credentials', () => {
  it('makes one application per platform from its secret, named after the stack, APNs in the sandbox when asked', () => {
    const apps = Object.values(resourcesOfType('Custom::PushPlatformApplication')).map((r) => r.Properties);
    const manager = { 'Fn::GetAtt': [logicalId(s.stack, s.stack.push.manager!), 'Arn'] };
    expect(apps).toEqual([
      { ServiceToken: manager, ServiceTimeout: '300', Name: { Ref: 'AWS::StackName' }, Platform: 'APNS_SANDBOX', SecretArn: apnsSecret, Revision: '2026-11' },
      { ServiceToken: manager, ServiceTimeout: '300', Name: { Ref: 'AWS::StackName' }, Platform: 'GCM', SecretArn: fcmSecret, Revision: '2026-11' },
    ]);
  });

  it('gives the pushing functions the applications’ ARNs and endpoint grants under them', () => {
    const ios = { Ref: applicationId('APNS_SANDBOX') };
    const android = { Ref: applicationId('GCM') };
    const pushing = deployedFunctions().filter((name: DeployedFunction) => statementsOf(s, name).flatMap(actions).includes('sns:Publish'));
    expect(pushing.sort()).toEqual(['announcement-worker', 'audio-worker', 'notifications-api', 'ocr-callbacks', 'sweeper']);
    for (const name of pushing) expect(envOf(s, name)).toMatchObject({ PUSH_IOS_APPLICATION_ARN: ios, PUSH_ANDROID_APPLICATION_ARN: android });
    const statements = statementsOf(s, 'notifications-api').filter((st) => actions(st).some((a) => a.startsWith('sns:')));
    expect(statements).toContainEqual(expect.objectContaining({ Action: 'sns:CreatePlatformEndpoint', Resource: [ios, android] }));
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: ['sns:Publish', 'sns:GetEndpointAttributes', 'sns:SetEndpointAttributes', 'sns:DeleteEndpoint'],
        Resource: [arnOf('endpoint', 'APNS_SANDBOX', '/*'), arnOf('endpoint', 'GCM', '/*')],
      }),
    );
  });

  it('lets only the manager read the credentials and manage applications, and only this stack’s', () => {
    const manager = s.stack.push.manager!;
    expect(roleStatements(s, s.stack.push.managerRole!).map((st) => ({ Action: st.Action, Resource: st.Resource }))).toEqual([
      { Action: 'secretsmanager:GetSecretValue', Resource: [apnsSecret, fcmSecret] },
      { Action: 'sns:CreatePlatformApplication', Resource: '*' },
      {
        Action: ['sns:SetPlatformApplicationAttributes', 'sns:DeletePlatformApplication'],
        Resource: ['APNS', 'APNS_SANDBOX', 'GCM'].map((p) => arnOf('app', p)),
      },
      { Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logicalId(s.stack, manager.logGroup), 'Arn'] } },
    ]);
    const readers = allStatements(s.template).filter((st) => resources(st).some((r) => r === apnsSecret || r === fcmSecret));
    expect(readers).toHaveLength(1);
    const managing = allStatements(s.template).filter((st) => actions(st).some((a) => /PlatformApplication/.test(a)));
    expect(managing).toHaveLength(2);
  });

  it('runs the inline manager on Node 22, once per request', () => {
    const fn = s.template.toJSON().Resources[logicalId(s.stack, s.stack.push.manager!)];
    expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Handler: 'index.handler', Code: { ZipFile: pushApplicationSource } });
    s.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: logicalId(s.stack, s.stack.push.manager!) }, MaximumRetryAttempts: 0 });
  });
});

describe('push context', () => {
  const settings = (context: Record<string, string>) => readSettings(new App({ context }).node);

  it('takes an application or its credentials for a platform, not both', () => {
    expect(() => settings({ pushIosApplicationArn: 'arn:aws:sns:eu-west-1:123456789012:app/APNS/Maktaba', pushApnsSecretArn: apnsSecret })).toThrow(
      /pushIosApplicationArn and pushApnsSecretArn/,
    );
    expect(settings({ pushIosApplicationArn: 'arn:aws:sns:eu-west-1:123456789012:app/APNS/Maktaba', pushFcmSecretArn: fcmSecret })).toMatchObject({
      pushApplications: [{ platform: 'ios' }],
      pushCredentials: { android: { secretArn: fcmSecret } },
    });
  });

  it('refuses a secret that is not named by its complete ARN, and a sandbox flag that is not true or false', () => {
    expect(() => settings({ pushFcmSecretArn: 'maktaba/fcm' })).toThrow(/pushFcmSecretArn must be a Secrets Manager secret’s complete ARN|complete ARN/);
    expect(() => settings({ pushApnsSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:maktaba/apns' })).toThrow(/complete ARN/);
    expect(() => settings({ pushApnsSecretArn: apnsSecret, pushApnsSandbox: 'yes' })).toThrow(/pushApnsSandbox must be true or false/);
    expect(settings({ pushApnsSecretArn: apnsSecret }).pushCredentials).toEqual({ ios: { secretArn: apnsSecret, sandbox: false } });
  });
});

describe('the manager’s code', () => {
  type Answer = { Status: string; Reason?: string; PhysicalResourceId: string; RequestId: string; LogicalResourceId: string };
  const snsMock = mockClient(SNSClient);
  const secrets = mockClient(SecretsManagerClient);
  afterEach(() => {
    snsMock.reset();
    secrets.reset();
  });

  const signingKey = '-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg\n-----END PRIVATE KEY-----';
  const apns = { signingKey, keyId: 'ABC123DEFG', teamId: 'TEAM123456', bundleId: 'org.maktaba.app' };
  const fcm = JSON.stringify({ type: 'service_account', project_id: 'maktaba', private_key: signingKey, client_email: 'push@maktaba.iam.gserviceaccount.com' });
  const appArn = 'arn:aws:sns:eu-west-1:123456789012:app/APNS/Maktaba';

  /** The inline source run as Lambda runs it, with the real SDK (mocked clients) and a stand-in for the response URL. */
  async function run(event: Record<string, unknown>): Promise<Answer[]> {
    const answers: Answer[] = [];
    const fetch = async (_url: string, init: { body: Buffer }) => {
      answers.push(JSON.parse(init.body.toString()) as Answer);
      return new Response('', { status: 200 });
    };
    const modules: Record<string, unknown> = { '@aws-sdk/client-sns': sns, '@aws-sdk/client-secrets-manager': secretsmanager };
    const require = (name: string) => {
      if (!(name in modules)) throw new Error(`The manager needs ${name}, which Lambda's Node.js 22 may not have`);
      return modules[name];
    };
    const exports: { handler?: (event: unknown) => Promise<void> } = {};
    new Function('exports', 'require', 'fetch', 'console', pushApplicationSource)(exports, require, fetch, { log: () => {}, error: () => {} });
    await exports.handler!(event);
    return answers;
  }

  const event = (type: 'Create' | 'Update' | 'Delete', properties: Record<string, string>, extra: Record<string, unknown> = {}) => ({
    RequestType: type,
    RequestId: 'b6a1e0c2-5d7e-4f0a-9c3b-1a2b3c4d5e6f',
    ResponseURL: 'https://cloudformation-custom-resource-response.s3.amazonaws.com/answer?signature',
    StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/Maktaba/1',
    LogicalResourceId: 'PushApns',
    ResourceType: 'Custom::PushPlatformApplication',
    ResourceProperties: { ServiceToken: 'arn:fn', ...properties },
    ...extra,
  });
  const ios = { Name: 'Maktaba', Platform: 'APNS', SecretArn: apnsSecret };

  it('fits CloudFormation’s inline code limit (4 KB)', () => {
    expect(pushApplicationSource.length).toBeLessThanOrEqual(4096);
  });

  it('on Create, makes an APNs application from the token key and answers its ARN', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: apnsSecret }).resolves({ SecretString: JSON.stringify(apns) });
    snsMock.on(CreatePlatformApplicationCommand).resolves({ PlatformApplicationArn: appArn });
    const answers = await run(event('Create', ios));
    expect(snsMock.commandCalls(CreatePlatformApplicationCommand)[0]!.args[0].input).toEqual({
      Name: 'Maktaba',
      Platform: 'APNS',
      Attributes: { PlatformCredential: signingKey, PlatformPrincipal: 'ABC123DEFG', ApplePlatformTeamID: 'TEAM123456', ApplePlatformBundleID: 'org.maktaba.app' },
    });
    expect(answers).toEqual([{ Status: 'SUCCESS', PhysicalResourceId: appArn, StackId: event('Create', ios).StackId, RequestId: event('Create', ios).RequestId, LogicalResourceId: 'PushApns' }]);
  });

  it('on Create, gives FCM the service account key file whole', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: fcmSecret }).resolves({ SecretString: fcm });
    snsMock.on(CreatePlatformApplicationCommand).resolves({ PlatformApplicationArn: 'arn:aws:sns:eu-west-1:123456789012:app/GCM/Maktaba' });
    const answers = await run(event('Create', { Name: 'Maktaba', Platform: 'GCM', SecretArn: fcmSecret }));
    expect(snsMock.commandCalls(CreatePlatformApplicationCommand)[0]!.args[0].input).toEqual({ Name: 'Maktaba', Platform: 'GCM', Attributes: { PlatformCredential: fcm } });
    expect(answers[0]).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'arn:aws:sns:eu-west-1:123456789012:app/GCM/Maktaba' });
  });

  it('fails a deploy whose secret is not the platform’s credentials, saying what is missing and never quoting the secret', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: apnsSecret }).resolves({ SecretString: JSON.stringify({ signingKey, keyId: 'ABC123DEFG' }) });
    const [missing] = await run(event('Create', ios));
    expect(missing).toMatchObject({ Status: 'FAILED', PhysicalResourceId: event('Create', ios).RequestId, Reason: expect.stringMatching(/lacks teamId, bundleId/) });
    expect(JSON.stringify(missing)).not.toContain('PRIVATE KEY');
    secrets.on(GetSecretValueCommand, { SecretId: fcmSecret }).resolves({ SecretString: `{"private_key": "${signingKey.replace(/\n/g, '\\n')}"` });
    const [notJson] = await run(event('Create', { Name: 'Maktaba', Platform: 'GCM', SecretArn: fcmSecret }));
    expect(notJson).toMatchObject({ Status: 'FAILED', Reason: `The secret ${fcmSecret} does not hold JSON` });
    secrets.on(GetSecretValueCommand, { SecretId: fcmSecret }).resolves({ SecretString: JSON.stringify(apns) });
    const [wrongKind] = await run(event('Create', { Name: 'Maktaba', Platform: 'GCM', SecretArn: fcmSecret }));
    expect(wrongKind).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/not a Firebase service account key/) });
    expect(JSON.stringify([notJson, wrongKind])).not.toContain('PRIVATE KEY');
    expect(snsMock.calls()).toHaveLength(0);
  });

  it('answers SNS’s refusal of the credentials as the deploy’s failure', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify(apns) });
    snsMock.on(CreatePlatformApplicationCommand).rejects(Object.assign(new Error('Invalid parameter: Attributes Reason: Platform credentials are invalid'), { name: 'InvalidParameterException' }));
    const [answer] = await run(event('Create', ios));
    expect(answer).toMatchObject({ Status: 'FAILED', Reason: 'Invalid parameter: Attributes Reason: Platform credentials are invalid' });
  });

  it('on Update of the same application (a new revision or secret), re-applies the credentials to it', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify(apns) });
    snsMock.on(SetPlatformApplicationAttributesCommand).resolves({});
    const answers = await run(event('Update', { ...ios, Revision: '2' }, { PhysicalResourceId: appArn, OldResourceProperties: { ServiceToken: 'arn:fn', ...ios } }));
    expect(snsMock.commandCalls(SetPlatformApplicationAttributesCommand)[0]!.args[0].input).toMatchObject({ PlatformApplicationArn: appArn, Attributes: { PlatformPrincipal: 'ABC123DEFG' } });
    expect(snsMock.commandCalls(CreatePlatformApplicationCommand)).toHaveLength(0);
    expect(answers[0]).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: appArn });
  });

  it('on Update to the sandbox, makes a new application (CloudFormation deletes the old one)', async () => {
    const sandbox = 'arn:aws:sns:eu-west-1:123456789012:app/APNS_SANDBOX/Maktaba';
    secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify(apns) });
    snsMock.on(CreatePlatformApplicationCommand).resolves({ PlatformApplicationArn: sandbox });
    const answers = await run(event('Update', { ...ios, Platform: 'APNS_SANDBOX' }, { PhysicalResourceId: appArn, OldResourceProperties: { ServiceToken: 'arn:fn', ...ios } }));
    expect(snsMock.commandCalls(CreatePlatformApplicationCommand)[0]!.args[0].input).toMatchObject({ Platform: 'APNS_SANDBOX' });
    expect(answers[0]).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: sandbox });
  });

  it('on Delete, deletes the application; after a failed Create there is none, and nothing is called', async () => {
    snsMock.on(DeletePlatformApplicationCommand).resolves({});
    const deleted = await run(event('Delete', ios, { PhysicalResourceId: appArn }));
    expect(snsMock.commandCalls(DeletePlatformApplicationCommand)[0]!.args[0].input).toEqual({ PlatformApplicationArn: appArn });
    expect(deleted[0]).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: appArn });
    snsMock.reset();
    const none = await run(event('Delete', ios, { PhysicalResourceId: event('Create', ios).RequestId }));
    expect(none[0]).toMatchObject({ Status: 'SUCCESS' });
    expect(snsMock.calls()).toHaveLength(0);
    expect(secrets.calls()).toHaveLength(0);
  });
});
