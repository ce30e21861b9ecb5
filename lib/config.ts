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
}

const env = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
};

function readAuth(): AuthConfig {
  const issuer = env('AUTH_JWT_ISSUER');
  const audience = env('AUTH_JWT_AUDIENCE');
  const jwksUrl = env('AUTH_JWKS_URL');
  if (jwksUrl) {
    // A key set signs for many applications: only its issuer and audience make a token ours.
    if (!issuer || !audience) {
      const missing = [...(issuer ? [] : ['AUTH_JWT_ISSUER']), ...(audience ? [] : ['AUTH_JWT_AUDIENCE'])];
      throw new Error(`AUTH_JWKS_URL needs ${missing.join(' and ')}`);
    }
    return { mode: 'jwks', jwksUrl, issuer, audience };
  }
  return { mode: 'secret', secret: env('AUTH_JWT_SECRET'), secretArn: env('AUTH_JWT_SECRET_ARN'), issuer, audience };
}

function readMedia(): Config['media'] {
  const urlBase = env('MEDIA_URL_BASE');
  const keyPairId = env('MEDIA_KEY_PAIR_ID');
  const signingKeySecretArn = env('MEDIA_SIGNING_KEY_SECRET_ARN');
  if (!urlBase && !keyPairId && !signingKeySecretArn) return undefined;
  if (!urlBase || !keyPairId || !signingKeySecretArn) {
    throw new Error('MEDIA_URL_BASE, MEDIA_KEY_PAIR_ID and MEDIA_SIGNING_KEY_SECRET_ARN go together');
  }
  return { urlBase: urlBase.replace(/\/+$/, ''), keyPairId, signingKeySecretArn };
}

export function readConfig(): Config {
  return {
    tableName: env('TABLE_NAME') ?? 'maktaba',
    uploadsBucket: env('UPLOADS_BUCKET') ?? 'maktaba-uploads',
    audioBucket: env('AUDIO_BUCKET') ?? 'maktaba-audio',
    ocrQueueUrl: env('OCR_QUEUE_URL') ?? '',
    audioQueueUrl: env('AUDIO_QUEUE_URL') ?? '',
    auth: readAuth(),
    pushApplicationArns: {
      ...(env('PUSH_IOS_APPLICATION_ARN') ? { ios: env('PUSH_IOS_APPLICATION_ARN') } : {}),
      ...(env('PUSH_ANDROID_APPLICATION_ARN') ? { android: env('PUSH_ANDROID_APPLICATION_ARN') } : {}),
    },
    adapters: env('ADAPTERS') === 'local' ? 'local' : 'aws',
    tierCatalogue: env('TIER_CATALOGUE'),
    voiceMap: env('VOICE_MAP'),
    stripe: {
      secretKey: env('STRIPE_SECRET_KEY'),
      webhookSecret: env('STRIPE_WEBHOOK_SECRET'),
      secretArn: env('STRIPE_SECRET_ARN'),
    },
    media: readMedia(),
  };
}

export const config = once(readConfig);
