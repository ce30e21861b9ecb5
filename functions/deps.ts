import { SNSClient } from '@aws-sdk/client-sns';
import { dynamoDocumentClient } from '../lib/adapters/aws/clients.ts';
import { readSecret } from '../lib/adapters/aws/secrets.ts';
import { dynamoDeviceStore } from '../lib/adapters/dynamo/devices.ts';
import { dynamoNotificationStore } from '../lib/adapters/dynamo/notifications.ts';
import { dynamoUserStore } from '../lib/adapters/dynamo/users.ts';
import { logPush } from '../lib/adapters/push/log.ts';
import { snsPush } from '../lib/adapters/push/sns.ts';
import { createTokenVerifier } from '../lib/auth/tokens.ts';
import { config } from '../lib/config.ts';

/**
 * The composition root: picks the adapters for where the code runs (AWS, or the local runtime
 * with `ADAPTERS=local`) once per cold start. Handlers take what they need from here.
 */
function build() {
  const cfg = config();
  const db = { client: dynamoDocumentClient(), tableName: cfg.tableName };
  const auth = cfg.auth;
  const loadSecret = async () => {
    if (auth.mode === 'secret' && auth.secret) return auth.secret;
    if (auth.mode === 'secret' && auth.secretArn) return readSecret(auth.secretArn);
    throw new Error('No JWT secret configured (AUTH_JWT_SECRET, AUTH_JWT_SECRET_ARN or AUTH_JWKS_URL)');
  };
  return {
    db,
    users: dynamoUserStore(db),
    notifications: dynamoNotificationStore(db),
    devices: dynamoDeviceStore(db),
    push: cfg.adapters === 'local' ? logPush() : snsPush(new SNSClient({}), cfg.pushApplicationArns),
    verifyToken: createTokenVerifier(auth, loadSecret),
    now: () => new Date(),
  };
}

export type Deps = ReturnType<typeof build>;

let built: Deps | undefined;
export const deps = (): Deps => (built ??= build());
/** For the local runtime and tests, which set the environment before the first request. */
export const resetDeps = (): void => {
  built = undefined;
};
