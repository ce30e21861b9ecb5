import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { traced } from './tracing.ts';

/** Reads a secret string once; the caller caches the promise for the life of the container. */
export async function readSecret(secretId: string): Promise<string> {
  const out = await traced(new SecretsManagerClient({})).send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!out.SecretString) throw new Error(`secret ${secretId} has no string value`);
  return out.SecretString;
}
