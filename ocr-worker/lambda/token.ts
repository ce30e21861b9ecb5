import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ApiRefused, type ServiceApi } from '../client/service-api.ts';

/** What the worker logs and fails with while its token secret is still empty (README: "Deploying to AWS"). */
export const emptyTokenMessage =
  'The OCR worker token secret is empty: put an editor token into it with scripts/worker-token.ts (README, "The built-in OCR worker")';

/**
 * The secret's value as a token: `{"token": "..."}` (the shape the stack creates, empty) or the bare
 * token. An empty one is an error an operator can act on, not a 401 from the API.
 */
export function tokenOf(secret: string | undefined): string {
  let token = (secret ?? '').trim();
  if (token.startsWith('{')) {
    const parsed = JSON.parse(token) as { token?: unknown };
    token = typeof parsed.token === 'string' ? parsed.token.trim() : '';
  }
  if (!token) throw new Error(emptyTokenMessage);
  return token;
}

export interface SecretToken {
  /** The token, read from Secrets Manager once and kept. */
  get(): Promise<string>;
  /** Forgets the kept token: the next get() reads the secret again (after a 401: the token was replaced). */
  forget(): void;
}

export function secretToken(client: SecretsManagerClient, secretId: string): SecretToken {
  let cached: Promise<string> | undefined;
  return {
    get() {
      cached ??= client.send(new GetSecretValueCommand({ SecretId: secretId })).then((out) => tokenOf(out.SecretString));
      cached.catch(() => (cached = undefined)); // a failed read is tried again by the next call
      return cached;
    },
    forget() {
      cached = undefined;
    },
  };
}

/**
 * The API with one more try after a 401, with the secret read again: an operator who replaces an
 * expired token in the secret does not have to restart the worker's containers.
 */
export function reauthenticating(api: ServiceApi, token: SecretToken): ServiceApi {
  const retry = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ApiRefused && error.status === 401)) throw error;
      token.forget();
      return call();
    }
  };
  return {
    postPage: (result) => retry(() => api.postPage(result)),
    postResult: (result) => retry(() => api.postResult(result)),
    jobStatus: (jobId) => retry(() => api.jobStatus(jobId)),
  };
}
