import type { Node } from 'constructs';
import type { Setting } from '../lib/config.ts';
import { parseVoiceMap } from '../lib/adapters/speech/polly.ts';
import { parseTierCatalogue } from '../lib/billing/tiers.ts';
import { parseOrigins } from './cors.ts';
import { audioWorkerConcurrency, deployedFunctions, type DeployedFunction } from './functions.ts';
import { defaultOcrWorkerConcurrency, defaultOcrWorkerPackage, ocrWorkerPackages, type OcrWorkerPackage } from './ocr-worker-lambda.ts';

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

/**
 * Credentials in a Secrets Manager secret of the operator's, from which the stack makes the platform
 * application itself (infra/push.ts); `sandbox` sends iOS pushes through APNs' development service.
 */
export interface PushCredentials {
  secretArn: string;
  sandbox?: boolean;
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
  /** Platform applications the operator made, by ARN (`pushIosApplicationArn`, `pushAndroidApplicationArn`). */
  pushApplications: PlatformApplication[];
  /** Or credentials the stack makes them from (`pushApnsSecretArn`, `pushFcmSecretArn`); one of the two per platform. */
  pushCredentials: Partial<Record<PushPlatform, PushCredentials>>;
  /** `pushCredentialsRevision`: a new value re-applies the credentials after new ones are put into a secret. */
  pushCredentialsRevision?: string;
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
  /** API Gateway throttling, per route: every route's default, and the lower share of anonymous read routes. */
  throttle: { route: Throttle; publicRead: Throttle };
  /** Concurrency reserved per function; a function not named reserves none (the default). */
  reservedConcurrency: Partial<Record<DeployedFunction, number>>;
  /**
   * The built-in OCR worker (`ocrWorker`, default `on`; `off` for operators who bring their own, who
   * get the external worker role instead), its pages functions at once (`ocrWorkerConcurrency`), and
   * how its code is deployed (`ocrWorkerPackage`: `image`, the default, or `zip`).
   */
  ocrWorker: { enabled: boolean; concurrency: number; package: OcrWorkerPackage };
  /** The OpenSearch domain of full-text search (search.ts): data node type and count, and each node's gp3 volume. */
  search: SearchSettings;
}

export interface SearchSettings {
  /** `searchInstanceType`, default `t3.small.search`. */
  instanceType: string;
  /** `searchDataNodes`, default 1; 2 or more (an even number) spreads them over two availability zones. */
  dataNodes: number;
  /** `searchVolumeGb`: each data node's gp3 volume, default 10 GB (OpenSearch's smallest). */
  volumeGb: number;
}

/**
 * The smallest domain that serves the project: one t3.small.search node (2 vCPU, 2 GiB) with 10 GB of
 * gp3, about $27 a month in us-east-1. Pages are small (a few KB of terms each), so 10 GB holds
 * millions of them.
 */
export const defaultSearch: SearchSettings = { instanceType: 't3.small.search', dataNodes: 1, volumeGb: 10 };

/** Requests a second (steady) and the burst above it, as API Gateway takes them. */
export interface Throttle {
  rate: number;
  burst: number;
}

/**
 * API Gateway's route limits (an HTTP API applies them to each route on its own). The account's regional
 * quota is 10,000 requests a second and Lambda's default concurrency 1,000: a route at 100 a second of
 * requests taking up to 300 ms holds at most 30 executions, so no single hot route can take what the
 * worker callbacks and the audio worker need. Routes anyone may call without an account get a fifth
 * of that each (20, burst 40).
 */
export const defaultThrottle: Settings['throttle'] = {
  route: { rate: 100, burst: 200 },
  publicRead: { rate: 20, burst: 40 },
};

/** The context key of each platform's application ARN, which is also the functions' setting (lib/config.ts) that carries it. */
export const pushContext = {
  ios: 'pushIosApplicationArn',
  android: 'pushAndroidApplicationArn',
} as const satisfies Record<PushPlatform, Setting>;
const pushSecretContext: Record<PushPlatform, string> = {
  ios: 'pushApnsSecretArn',
  android: 'pushFcmSecretArn',
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

/** A secret's complete ARN (with the six characters Secrets Manager appends), which IAM grants name exactly. */
function secretArn(node: Node, key: string): string | undefined {
  const arn = text(node, key);
  if (arn && !/^arn:[\w-]+:secretsmanager:[\w-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/.test(arn)) {
    throw new Error(`context ${key} must be a Secrets Manager secret's complete ARN (ending in -xxxxxx): ${arn}`);
  }
  return arn;
}

function flag(node: Node, key: string): boolean {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '' || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new Error(`context ${key} must be true or false: ${String(value)}`);
}

/** Each platform's application: by ARN, or made from credentials, never both. */
function push(node: Node): Pick<Settings, 'pushApplications' | 'pushCredentials' | 'pushCredentialsRevision'> {
  const pushApplications: PlatformApplication[] = [];
  const pushCredentials: Settings['pushCredentials'] = {};
  for (const platform of Object.keys(pushContext) as PushPlatform[]) {
    const arn = text(node, pushContext[platform]);
    const secret = secretArn(node, pushSecretContext[platform]);
    if (arn && secret) throw new Error(`context ${pushContext[platform]} and ${pushSecretContext[platform]}: give one, the application or its credentials`);
    if (arn) pushApplications.push(platformApplication(platform, arn));
    if (secret) pushCredentials[platform] = platform === 'ios' ? { secretArn: secret, sandbox: flag(node, 'pushApnsSandbox') } : { secretArn: secret };
  }
  return { pushApplications, pushCredentials, pushCredentialsRevision: text(node, 'pushCredentialsRevision') };
}

/** A positive number (a rate) or, with `whole`, a positive whole number (a burst); `-c` gives strings. */
function positive(node: Node, key: string, fallback: number, whole: boolean): number {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!(n > 0) || (whole && !Number.isInteger(n))) throw new Error(`context ${key} must be a positive ${whole ? 'whole ' : ''}number: ${String(value)}`);
  return n;
}

function throttle(node: Node): Settings['throttle'] {
  const read = (prefix: string, fallback: Throttle): Throttle => ({
    rate: positive(node, `${prefix}ThrottleRate`, fallback.rate, false),
    burst: positive(node, `${prefix}ThrottleBurst`, fallback.burst, true),
  });
  const route = read('api', defaultThrottle.route);
  const publicRead = read('publicRead', defaultThrottle.publicRead);
  if (publicRead.rate > route.rate || publicRead.burst > route.burst) {
    throw new Error(
      `context publicReadThrottleRate and publicReadThrottleBurst (${publicRead.rate}, ${publicRead.burst}) must not be above ` +
        `apiThrottleRate and apiThrottleBurst (${route.rate}, ${route.burst}): anonymous reads get the lower share`,
    );
  }
  return { route, publicRead };
}

/**
 * `{"ocr-callbacks": 20}`: reserved concurrency by function. None by default: a new account's
 * concurrency limit can be as low as 10, and Lambda refuses a reservation that leaves under 10
 * unreserved, which would fail the deploy.
 */
function reservedConcurrency(node: Node): Settings['reservedConcurrency'] {
  const raw = json(node, 'reservedConcurrency', (text) => {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('must be an object of function names to numbers');
  });
  if (!raw) return {};
  const known = new Set<string>(deployedFunctions());
  const reserved: Settings['reservedConcurrency'] = {};
  for (const [name, count] of Object.entries(JSON.parse(raw) as Record<string, unknown>)) {
    if (!known.has(name)) throw new Error(`context reservedConcurrency: no function ${name} (functions: ${[...known].join(', ')})`);
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
      throw new Error(`context reservedConcurrency: ${name} must be a positive whole number: ${JSON.stringify(count)}`);
    }
    // Fewer than the queue trigger's maximum concurrency throttles messages back to the queue.
    if (name === 'audio-worker' && count < audioWorkerConcurrency) {
      throw new Error(`context reservedConcurrency: audio-worker needs at least ${audioWorkerConcurrency}, its queue trigger's maximum concurrency`);
    }
    reserved[name as DeployedFunction] = count;
  }
  return reserved;
}

function workerPrincipal(node: Node): string | undefined {
  const principal = text(node, 'ocrWorkerPrincipal');
  if (principal && !/^(\d{12}|arn:[\w-]+:iam::\d{12}:(root|(role|user)\/[\w+=,.@/-]+))$/.test(principal)) {
    throw new Error(`ocrWorkerPrincipal must be an account id or an IAM role, user or root ARN: ${principal}`);
  }
  return principal;
}

/** SQS triggers take a maximum concurrency of 2 to 1,000. */
function ocrWorker(node: Node): Settings['ocrWorker'] {
  const mode = text(node, 'ocrWorker') ?? 'on';
  if (mode !== 'on' && mode !== 'off') throw new Error(`context ocrWorker must be on or off: ${mode}`);
  const concurrency = positive(node, 'ocrWorkerConcurrency', defaultOcrWorkerConcurrency, true);
  if (concurrency < 2 || concurrency > 1000) throw new Error(`context ocrWorkerConcurrency must be from 2 to 1000: ${concurrency}`);
  const pkg = text(node, 'ocrWorkerPackage') ?? defaultOcrWorkerPackage;
  if (!(ocrWorkerPackages as readonly string[]).includes(pkg)) throw new Error(`context ocrWorkerPackage must be ${ocrWorkerPackages.join(' or ')}: ${pkg}`);
  return { enabled: mode === 'on', concurrency, package: pkg as OcrWorkerPackage };
}

/**
 * OpenSearch instance types are `<family>.<size>.search`. Data nodes: 1, or an even number, which
 * zone awareness over two availability zones needs (each zone holds half). Volumes: gp3 takes 10 GB at
 * least; each instance type's maximum is checked by OpenSearch at deploy.
 */
function search(node: Node): SearchSettings {
  const instanceType = text(node, 'searchInstanceType') ?? defaultSearch.instanceType;
  if (!/^[a-z][a-z0-9-]*\.[a-z0-9]+\.search$/.test(instanceType)) {
    throw new Error(`context searchInstanceType must be an OpenSearch instance type such as t3.small.search: ${instanceType}`);
  }
  const dataNodes = positive(node, 'searchDataNodes', defaultSearch.dataNodes, true);
  if (dataNodes > 1 && dataNodes % 2 !== 0) {
    throw new Error(`context searchDataNodes must be 1 or an even number (zone awareness spreads them over two availability zones): ${dataNodes}`);
  }
  const volumeGb = positive(node, 'searchVolumeGb', defaultSearch.volumeGb, true);
  if (volumeGb < 10) throw new Error(`context searchVolumeGb must be at least 10 (gp3's smallest volume): ${volumeGb}`);
  return { instanceType, dataNodes, volumeGb };
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
  const alarmEmail = text(node, 'alarmEmail');
  if (alarmEmail && !/^[^@\s]+@[^@\s]+$/.test(alarmEmail)) throw new Error(`alarmEmail is not an email address: ${alarmEmail}`);
  return {
    auth: jwksUrl ? { mode: 'jwks', jwksUrl } : { mode: 'secret' },
    jwtIssuer,
    jwtAudience,
    ...push(node),
    tierCatalogue: json(node, 'tierCatalogue', parseTierCatalogue),
    voiceMap: json(node, 'voiceMap', parseVoiceMap),
    stripeSecretArn: text(node, 'stripeSecretArn'),
    corsOrigins: parseOrigins(text(node, 'corsOrigins')),
    alarmEmail,
    ocrWorkerPrincipal: workerPrincipal(node),
    throttle: throttle(node),
    reservedConcurrency: reservedConcurrency(node),
    ocrWorker: ocrWorker(node),
    search: search(node),
  };
}
