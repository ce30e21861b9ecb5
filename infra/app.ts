import { App } from 'aws-cdk-lib';
import { addChecks } from './checks.ts';
import { MaktabaStack } from './stack.ts';

/**
 * The CDK app (`npm run synth`, `cdk deploy`). The stack is pinned to an account only when the CLI
 * found credentials; otherwise it is environment-agnostic (the CLI's fallback region alone does not
 * pin it), so synth needs no AWS account and the stack looks nothing up. cdk-nag checks every synth.
 */
const app = new App();
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;
const stackName: unknown = app.node.tryGetContext('stackName');

new MaktabaStack(app, typeof stackName === 'string' && stackName !== '' ? stackName : 'Maktaba', {
  env: account ? { account, region } : undefined,
});
addChecks(app);
