import { dynamoDocumentClient } from '../lib/adapters/aws/clients.ts';
import { readSecret } from '../lib/adapters/aws/secrets.ts';
import { dynamoSubscriptionStore } from '../lib/adapters/dynamo/subscriptions.ts';
import { dynamoUserStore } from '../lib/adapters/dynamo/users.ts';
import { jobCredentials, type MacKey } from '../lib/auth/job-credentials.ts';
import { localMacKey } from '../lib/auth/local-mac.ts';
import { createTokenVerifier } from '../lib/auth/tokens.ts';
import { parseTierCatalogue } from '../lib/billing/tiers.ts';
import { config } from '../lib/config.ts';
import { once } from '../lib/lazy.ts';

/**
 * The composition root shared by every function: configuration, the table, users, subscriptions and
 * the token verifier. Each function adds its own adapters on top (see its module), so a bundle
 * carries only the SDK clients its function uses.
 */
export const deps = once(() => {
  const cfg = config();
  const db = { client: dynamoDocumentClient(), tableName: cfg.tableName };
  const auth = cfg.auth;
  const loadSecret = async () => {
    if (auth.mode === 'secret' && auth.secret) return auth.secret;
    if (auth.mode === 'secret' && auth.secretArn) return readSecret(auth.secretArn);
    throw new Error('No JWT secret configured (AUTH_JWT_SECRET, AUTH_JWT_SECRET_ARN or AUTH_JWKS_URL)');
  };
  return {
    config: cfg,
    db,
    users: dynamoUserStore(db),
    subscriptions: dynamoSubscriptionStore(db),
    tierCatalogue: parseTierCatalogue(cfg.tierCatalogue),
    verifyToken: createTokenVerifier(auth, loadSecret),
    jobCredentials: jobCredentials(cfg.jobCredentialKeyId ? kmsKey(cfg.jobCredentialKeyId) : localMacKey(loadSecret)),
    now: () => new Date(),
  };
});

/** The KMS key, its client loaded on first use: only the functions that issue or check credentials carry it. */
function kmsKey(keyId: string): MacKey {
  const key = once(async () => (await import('../lib/adapters/aws/kms-mac.ts')).kmsMacKey(keyId));
  return { sign: async (data) => (await key()).sign(data), verify: async (data, mac) => (await key()).verify(data, mac) };
}

export type Deps = ReturnType<typeof deps>;

