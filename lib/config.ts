import { once } from './lazy.ts';

/**
 * Runtime configuration, read from the environment on first use and kept for the container (once
 * per cold start): the local runtime and the tests set the environment before that first use. The
 * CDK stack (infra/stack.ts) and the local runtime (infra/local/state.ts) set these variables;
 * lib/ and functions/ read no others, save those of the SDK and Powertools (AWS_*, LOG_LEVEL).
 */
export type AuthConfig =
  | { mode: 'secret'; secret?: string; secretArn?: string; issuer?: string; audience?: string }
  | { mode: 'jwks'; jwksUrl: string; issuer: string; audience: string };

export interface Config {
  tableName: string;
  uploadsBucket: string;
  audioBucket: string;
  ocrQueueUrl: string;
  audioQueueUrl: string;
  /** The announcements' fan-out queue (lib/notifications/announcements.ts). */
  announcementQueueUrl: string;
  auth: AuthConfig;
  /** SNS platform application ARNs by device platform; a missing one means no push for that platform. */
  pushApplicationArns: Partial<Record<'ios' | 'android', string>>;
  /** `local` selects the offline adapters (push log, speech, billing ledger) used by `npm start`. */
  adapters: 'aws' | 'local';
  tierCatalogue?: string;
  /** Overrides of the Polly voices behind the spec's voices, as JSON (lib/adapters/speech/polly.ts). */
  voiceMap?: string;
  /**
   * Stripe's API key and webhook signing secret: inline, or in one Secrets Manager secret (JSON
   * `{"secretKey": "sk_...", "webhookSecret": "whsec_..."}`) named by STRIPE_SECRET_ARN.
   */
  stripe: { secretKey?: string; webhookSecret?: string; secretArn?: string };
  /**
   * The media distribution that serves audio, page images and big answers by signed URL (issue 14;
   * infra/media.ts). Absent locally: the embedded S3's presigned URLs serve instead.
   */
  media?: { urlBase: string; keyPairId: string; signingKeySecretArn: string };
  /**
   * The search engine of issue 17 (lib/search/engine.ts): a managed OpenSearch domain on AWS
   * (`endpoint`, `index`, the function's region), else the embedded SQLite FTS5 file at `dbPath`
   * (the local runtime's, under DATA_DIR; `:memory:` in tests).
   */
  search: { endpoint?: string; index: string; dbPath: string };
  /** The KMS key that signs job credentials; absent: derived from the local JWT secret (lib/auth/local-mac.ts). */
  jobCredentialKeyId?: string;
}

/**
 * Every setting's environment variable: the one list that readConfig reads and that the CDK stack
 * (infra/stack.ts, infra/media.ts), the local runtime and the tests (infra/local/state.ts) set,
 * through `environmentFor`.
 */
export const variables = {
  tableName: 'TABLE_NAME',
  uploadsBucket: 'UPLOADS_BUCKET',
  audioBucket: 'AUDIO_BUCKET',
  ocrQueueUrl: 'OCR_QUEUE_URL',
  audioQueueUrl: 'AUDIO_QUEUE_URL',
  announcementQueueUrl: 'ANNOUNCEMENT_QUEUE_URL',
  /** `local` selects the offline adapters (functions/_shared/adapters/). */
  adapters: 'ADAPTERS',
  jwtSecret: 'AUTH_JWT_SECRET',
  jwtSecretArn: 'AUTH_JWT_SECRET_ARN',
  jwksUrl: 'AUTH_JWKS_URL',
  jwtIssuer: 'AUTH_JWT_ISSUER',
  jwtAudience: 'AUTH_JWT_AUDIENCE',
  pushIosApplicationArn: 'PUSH_IOS_APPLICATION_ARN',
  pushAndroidApplicationArn: 'PUSH_ANDROID_APPLICATION_ARN',
  tierCatalogue: 'TIER_CATALOGUE',
  voiceMap: 'VOICE_MAP',
  stripeSecretKey: 'STRIPE_SECRET_KEY',
  stripeWebhookSecret: 'STRIPE_WEBHOOK_SECRET',
  stripeSecretArn: 'STRIPE_SECRET_ARN',
  /** `https://<distribution domain>`, no trailing slash; a URL's path is the object key. */
  mediaUrlBase: 'MEDIA_URL_BASE',
  /** The CloudFront public key id that a signed URL names as its `Key-Pair-Id`. */
  mediaKeyPairId: 'MEDIA_KEY_PAIR_ID',
  /** The secret whose string is the private key (PKCS#8 PEM) that signs media URLs. */
  mediaSigningKeySecretArn: 'MEDIA_SIGNING_KEY_SECRET_ARN',
  /** The OpenSearch domain's endpoint (`https://...es.amazonaws.com`); unset: the embedded engine. */
  searchEndpoint: 'SEARCH_ENDPOINT',
  /** The index of pages in that domain. */
  searchIndex: 'SEARCH_INDEX',
  /** The embedded engine's SQLite file (or `:memory:`). */
  searchDb: 'SEARCH_DB',
  /** The KMS HMAC key that signs job credentials (lib/auth/job-credentials.ts); unset: a key derived from the local JWT secret. */
  jobCredentialKeyId: 'JOB_CREDENTIAL_KEY_ID',
} as const;
export type Setting = keyof typeof variables;

/** The environment that gives these settings; an unset or empty one is left out. */
export const environmentFor = (settings: Partial<Record<Setting, string | undefined>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(settings)
      .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
      .map(([setting, value]) => [variables[setting as Setting], value]),
  );

/** The resource names when none is set: the local runtime's (infra/local/state.ts). */
export const defaultNames = {
  tableName: 'maktaba',
  uploadsBucket: 'maktaba-uploads',
  audioBucket: 'maktaba-audio',
  searchIndex: 'pages',
  searchDb: ':memory:',
} as const;

const env = (setting: Setting): string | undefined => {
  const value = process.env[variables[setting]];
  return value === undefined || value === '' ? undefined : value;
};

function readAuth(): AuthConfig {
  const issuer = env('jwtIssuer');
  const audience = env('jwtAudience');
  const jwksUrl = env('jwksUrl');
  if (jwksUrl) {
    // A key set signs for many applications: only its issuer and audience make a token ours.
    if (!issuer || !audience) {
      const missing = [...(issuer ? [] : [variables.jwtIssuer]), ...(audience ? [] : [variables.jwtAudience])];
      throw new Error(`${variables.jwksUrl} needs ${missing.join(' and ')}`);
    }
    return { mode: 'jwks', jwksUrl, issuer, audience };
  }
  return { mode: 'secret', secret: env('jwtSecret'), secretArn: env('jwtSecretArn'), issuer, audience };
}

function readMedia(): Config['media'] {
  const urlBase = env('mediaUrlBase');
  const keyPairId = env('mediaKeyPairId');
  const signingKeySecretArn = env('mediaSigningKeySecretArn');
  if (!urlBase && !keyPairId && !signingKeySecretArn) return undefined;
  if (!urlBase || !keyPairId || !signingKeySecretArn) {
    throw new Error(`${variables.mediaUrlBase}, ${variables.mediaKeyPairId} and ${variables.mediaSigningKeySecretArn} go together`);
  }
  return { urlBase: urlBase.replace(/\/+$/, ''), keyPairId, signingKeySecretArn };
}

export function readConfig(): Config {
  return {
    tableName: env('tableName') ?? defaultNames.tableName,
    uploadsBucket: env('uploadsBucket') ?? defaultNames.uploadsBucket,
    audioBucket: env('audioBucket') ?? defaultNames.audioBucket,
    ocrQueueUrl: env('ocrQueueUrl') ?? '',
    audioQueueUrl: env('audioQueueUrl') ?? '',
    announcementQueueUrl: env('announcementQueueUrl') ?? '',
    auth: readAuth(),
    pushApplicationArns: {
      ...(env('pushIosApplicationArn') ? { ios: env('pushIosApplicationArn') } : {}),
      ...(env('pushAndroidApplicationArn') ? { android: env('pushAndroidApplicationArn') } : {}),
    },
    adapters: env('adapters') === 'local' ? 'local' : 'aws',
    tierCatalogue: env('tierCatalogue'),
    voiceMap: env('voiceMap'),
    stripe: {
      secretKey: env('stripeSecretKey'),
      webhookSecret: env('stripeWebhookSecret'),
      secretArn: env('stripeSecretArn'),
    },
    media: readMedia(),
    search: {
      endpoint: env('searchEndpoint'),
      index: env('searchIndex') ?? defaultNames.searchIndex,
      dbPath: env('searchDb') ?? defaultNames.searchDb,
    },
    jobCredentialKeyId: env('jobCredentialKeyId'),
  };
}

export const config = once(readConfig);
