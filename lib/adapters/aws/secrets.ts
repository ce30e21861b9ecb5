import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** Reads a secret string once; the caller caches the promise for the life of the container. */
export async function readSecret(secretId: string): Promise<string> {
  const out = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!out.SecretString) throw new Error(`secret ${secretId} has no string value`);
  return out.SecretString;
}
