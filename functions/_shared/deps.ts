import { dynamoDocumentClient } from '../../lib/adapters/aws/clients.ts';
import { readSecret } from '../../lib/adapters/aws/secrets.ts';
import { dynamoSubscriptionStore } from '../../lib/adapters/dynamo/subscriptions.ts';
import { dynamoUserStore } from '../../lib/adapters/dynamo/users.ts';
import { createTokenVerifier } from '../../lib/auth/tokens.ts';
import { parseTierCatalogue } from '../../lib/billing/tiers.ts';
import { config, type Config } from '../../lib/config.ts';
import { once } from '../../lib/lazy.ts';

/**
 * The composition root shared by every function: configuration, the table, users, subscriptions and
 * the token verifier. Each function adds its own adapters on top (see its module), so a bundle
 * carries only the SDK clients its function uses.
 */
export const deps = once(() => {
  const cfg = config();
  const db = { client: dynamoDocumentClient(), tableName: cfg.tableName };
  const auth = cfg.auth;
  return {
    config: cfg,
    db,
    users: dynamoUserStore(db),
    subscriptions: dynamoSubscriptionStore(db),
    tierCatalogue: parseTierCatalogue(cfg.tierCatalogue),
    verifyToken: createTokenVerifier(auth, jwtSecretLoader(auth)),
    now: () => new Date(),
  };
});

/** The HS256 secret users' tokens are signed with: inline (locally) or read from Secrets Manager once per call site. */
export const jwtSecretLoader = (auth: Config['auth']) => async (): Promise<string> => {
  if (auth.mode === 'secret' && auth.secret) return auth.secret;
  if (auth.mode === 'secret' && auth.secretArn) return readSecret(auth.secretArn);
  throw new Error('No JWT secret configured (AUTH_JWT_SECRET, AUTH_JWT_SECRET_ARN or AUTH_JWKS_URL)');
};
