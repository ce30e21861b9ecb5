import { kmsMacKey } from '../../lib/adapters/aws/kms-mac.ts';
import { jobCredentials, type JobCredentials } from '../../lib/auth/job-credentials.ts';
import { localMacKey } from '../../lib/auth/local-mac.ts';
import type { Config } from '../../lib/config.ts';
import { jwtSecretLoader } from './deps.ts';

/**
 * Job credentials (lib/auth/job-credentials.ts) for the functions that issue or check them, ocr-api
 * and ocr-callbacks alone: the KMS key on AWS, locally a key derived from the JWT secret. Only these
 * two bundles carry the KMS client.
 */
export const jobCredentialsOf = (cfg: Config): JobCredentials =>
  jobCredentials(cfg.jobCredentialKeyId ? kmsMacKey(cfg.jobCredentialKeyId) : localMacKey(jwtSecretLoader(cfg.auth)));
