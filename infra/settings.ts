import type { Node } from 'constructs';

/**
 * Deployment choices read from CDK context (`cdk synth -c jwksUrl=...` or cdk.json), validated once so
 * the stack only sees well-formed values. Everything is optional: with no context the stack generates
 * its own JWT secret and deploys without push.
 */

export type PushPlatform = 'ios' | 'android';

/** An SNS platform application, with the ARN pattern of the endpoints SNS creates under it. */
export interface PlatformApplication {
  platform: PushPlatform;
  arn: string;
  endpointArns: string;
}

export interface Settings {
  /** `jwks`: tokens are verified against a remote key set; `secret`: the stack generates an HS256 secret. */
  auth: { mode: 'jwks'; jwksUrl: string } | { mode: 'secret' };
  jwtIssuer?: string;
  jwtAudience?: string;
  pushApplications: PlatformApplication[];
  tierCatalogue?: string;
  /** An existing Secrets Manager secret holding `{"secretKey","webhookSecret"}`; else the stack makes one to fill in. */
  stripeSecretArn?: string;
}

const pushContext: Record<PushPlatform, string> = {
  ios: 'pushIosApplicationArn',
  android: 'pushAndroidApplicationArn',
};

function text(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`context ${key} must be a string`);
  return value;
}

/** `arn:aws:sns:eu-west-1:123456789012:app/APNS/Maktaba` has endpoints `...:endpoint/APNS/Maktaba/<id>`. */
export function platformApplication(platform: PushPlatform, arn: string): PlatformApplication {
  const match = /^(arn:[\w-]+:sns:[\w-]+:\d{12}:)app\/([\w.-]+)\/([\w.-]+)$/.exec(arn);
  if (!match) throw new Error(`${pushContext[platform]} is not an SNS platform application ARN: ${arn}`);
  const [, prefix, platformName, appName] = match;
  return { platform, arn, endpointArns: `${prefix}endpoint/${platformName}/${appName}/*` };
}

export function readSettings(node: Node): Settings {
  const jwksUrl = text(node, 'jwksUrl');
  const pushApplications = (Object.keys(pushContext) as PushPlatform[]).flatMap((platform) => {
    const arn = text(node, pushContext[platform]);
    return arn ? [platformApplication(platform, arn)] : [];
  });
  return {
    auth: jwksUrl ? { mode: 'jwks', jwksUrl } : { mode: 'secret' },
    jwtIssuer: text(node, 'jwtIssuer'),
    jwtAudience: text(node, 'jwtAudience'),
    pushApplications,
    tierCatalogue: text(node, 'tierCatalogue'),
    stripeSecretArn: text(node, 'stripeSecretArn'),
  };
}
