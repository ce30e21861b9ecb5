import type { Node } from 'constructs';
import { parseVoiceMap } from '../lib/adapters/speech/polly.ts';
import { parseCatalogue } from '../lib/billing/tiers.ts';
import { parseOrigins } from './cors.ts';

/**
 * Deployment choices read from CDK context (`cdk synth -c jwksUrl=...` or cdk.json), validated once so
 * the stack only sees well-formed values: a bad value fails `cdk synth`, not the first request. Everything
 * is optional: with no context the stack generates its own JWT secret and deploys without push.
 */

export type PushPlatform = 'ios' | 'android';

/** An SNS platform application, with the ARN pattern of the endpoints SNS creates under it. */
export interface PlatformApplication {
  platform: PushPlatform;
  arn: string;
  endpointArns: string;
}

export interface Settings {
  /**
   * `jwks`: tokens are verified against a remote key set, and must carry this issuer and audience
   * (a provider's key set signs tokens for every application it serves); `secret`: the stack
   * generates an HS256 secret (issuer and audience optional).
   */
  auth: { mode: 'jwks'; jwksUrl: string } | { mode: 'secret' };
  jwtIssuer?: string;
  jwtAudience?: string;
  pushApplications: PlatformApplication[];
  tierCatalogue?: string;
  /** Overrides of the Polly voice behind spec voices, as JSON (`VOICE_MAP`). */
  voiceMap?: string;
  /** An existing Secrets Manager secret holding `{"secretKey","webhookSecret"}`; else the stack makes one to fill in. */
  stripeSecretArn?: string;
  /** Origins the web client is served from; `*` (the default) lets any origin call the API with a bearer token. */
  corsOrigins: string[];
  /** Subscribed to the alarm topic when given (the subscription must be confirmed from the mail). */
  alarmEmail?: string;
  /** Who may assume the OCR worker role: an account id or an IAM ARN; default this stack's account. */
  ocrWorkerPrincipal?: string;
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

/** A JSON value given as context: a string from `-c`, or an object from cdk.json. */
function json(node: Node, key: string, validate: (json: string) => unknown): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  const raw = typeof value === 'string' ? value : JSON.stringify(value);
  try {
    validate(raw);
  } catch (error) {
    throw new Error(`context ${key}: ${(error as Error).message}`);
  }
  return raw;
}

/** `arn:aws:sns:eu-west-1:123456789012:app/APNS/Maktaba` has endpoints `...:endpoint/APNS/Maktaba/<id>`. */
export function platformApplication(platform: PushPlatform, arn: string): PlatformApplication {
  const match = /^(arn:[\w-]+:sns:[\w-]+:\d{12}:)app\/([\w.-]+)\/([\w.-]+)$/.exec(arn);
  if (!match) throw new Error(`${pushContext[platform]} is not an SNS platform application ARN: ${arn}`);
  const [, prefix, platformName, appName] = match;
  return { platform, arn, endpointArns: `${prefix}endpoint/${platformName}/${appName}/*` };
}

function workerPrincipal(node: Node): string | undefined {
  const principal = text(node, 'ocrWorkerPrincipal');
  if (principal && !/^(\d{12}|arn:[\w-]+:iam::\d{12}:(root|(role|user)\/[\w+=,.@/-]+))$/.test(principal)) {
    throw new Error(`ocrWorkerPrincipal must be an account id or an IAM role, user or root ARN: ${principal}`);
  }
  return principal;
}

export function readSettings(node: Node): Settings {
  const jwksUrl = text(node, 'jwksUrl');
  if (jwksUrl && !/^https:\/\//.test(jwksUrl)) throw new Error(`jwksUrl must be an https URL: ${jwksUrl}`);
  const jwtIssuer = text(node, 'jwtIssuer');
  const jwtAudience = text(node, 'jwtAudience');
  const missingClaims = Object.entries({ jwtIssuer, jwtAudience }).flatMap(([key, value]) => (value ? [] : [key]));
  if (jwksUrl && missingClaims.length) {
    throw new Error(`jwksUrl needs ${missingClaims.join(' and ')}: tokens from an identity provider are accepted only for this issuer and audience`);
  }
  const pushApplications = (Object.keys(pushContext) as PushPlatform[]).flatMap((platform) => {
    const arn = text(node, pushContext[platform]);
    return arn ? [platformApplication(platform, arn)] : [];
  });
  const alarmEmail = text(node, 'alarmEmail');
  if (alarmEmail && !/^[^@\s]+@[^@\s]+$/.test(alarmEmail)) throw new Error(`alarmEmail is not an email address: ${alarmEmail}`);
  return {
    auth: jwksUrl ? { mode: 'jwks', jwksUrl } : { mode: 'secret' },
    jwtIssuer,
    jwtAudience,
    pushApplications,
    tierCatalogue: json(node, 'tierCatalogue', parseCatalogue),
    voiceMap: json(node, 'voiceMap', parseVoiceMap),
    stripeSecretArn: text(node, 'stripeSecretArn'),
    corsOrigins: parseOrigins(text(node, 'corsOrigins')),
    alarmEmail,
    ocrWorkerPrincipal: workerPrincipal(node),
  };
}
