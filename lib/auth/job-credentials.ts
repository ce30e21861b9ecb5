import { timingSafeEqual } from 'node:crypto';

/**
 * A job credential (issue 28): what the OCR worker calls the service with for one job, instead of a
 * standing editor token. The service issues it when it queues the job and carries it in the job
 * message; the callbacks accept it for that job alone, for its owner, and up to its page cap; it
 * expires after the longest time a job message can wait in its queues (`jobCredentialLifetimeSeconds`).
 * A leaked message can report results for its one job, billed to the user who uploaded it, nothing else.
 *
 * Form: `mkjob1.<payload>.<mac>`, base64url, the MAC (HMAC-SHA-256) over `mkjob1.<payload>` by a key
 * that on AWS never leaves KMS (lib/adapters/aws/kms-mac.ts) and locally is derived from the local
 * signing secret. The prefix tells it from a JWT before any key is used.
 */
export interface JobGrant {
  jobId: string;
  /** The job's owner: the only user its results may name and bill. */
  userId: string;
  fileId: string;
  /** The most pages the job's results may number or count (`jobPageCap`). */
  maxPages: number;
  /** Epoch seconds. */
  expiresAt: number;
}

/** Computes and checks MACs with one key. */
export interface MacKey {
  sign(data: Uint8Array): Promise<Uint8Array>;
  verify(data: Uint8Array, mac: Uint8Array): Promise<boolean>;
}

export interface JobCredentials {
  issue(grant: Omit<JobGrant, 'expiresAt'>, now: Date): Promise<string>;
  /** The grant of a credential whose MAC is ours and which has not expired; undefined otherwise. */
  verify(credential: string, now: Date): Promise<JobGrant | undefined>;
}

export const jobCredentialPrefix = 'mkjob1.';
export const isJobCredential = (token: string): boolean => token.startsWith(jobCredentialPrefix);

/**
 * How long a job message can wait before its last task is read: the job queue's retention, then the
 * pages queue's, then a redrive from a dead-letter queue within its retention (infra/storage.ts sizes
 * the queues from these).
 */
export const jobQueueRetentionDays = 4;
export const deadLetterRetentionDays = 14;
export const jobCredentialLifetimeSeconds = (2 * jobQueueRetentionDays + deadLetterRetentionDays) * 24 * 3600;

const encoder = new TextEncoder();
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** Verified credentials kept per container: the pages of one job call many times with the same one. */
const cacheSize = 1_000;

export function jobCredentials(key: MacKey): JobCredentials {
  const verified = new Map<string, JobGrant>();
  return {
    async issue(grant, now) {
      const full: JobGrant = { ...grant, expiresAt: Math.floor(now.getTime() / 1000) + jobCredentialLifetimeSeconds };
      const signed = `${jobCredentialPrefix}${b64(encoder.encode(JSON.stringify(full)))}`;
      return `${signed}.${b64(await key.sign(encoder.encode(signed)))}`;
    },
    async verify(credential, now) {
      const grant = verified.get(credential) ?? (await check(key, credential));
      if (!grant || grant.expiresAt <= Math.floor(now.getTime() / 1000)) return undefined;
      if (!verified.has(credential)) {
        if (verified.size >= cacheSize) verified.delete(verified.keys().next().value!);
        verified.set(credential, grant);
      }
      return grant;
    },
  };
}

async function check(key: MacKey, credential: string): Promise<JobGrant | undefined> {
  if (!isJobCredential(credential) || credential.length > 2_000) return undefined;
  const dot = credential.lastIndexOf('.');
  const signed = credential.slice(0, dot);
  const mac = Buffer.from(credential.slice(dot + 1), 'base64url');
  if (dot <= jobCredentialPrefix.length || mac.length !== 32) return undefined;
  if (!(await key.verify(encoder.encode(signed), mac))) return undefined;
  try {
    const grant = JSON.parse(Buffer.from(signed.slice(jobCredentialPrefix.length), 'base64url').toString('utf8')) as JobGrant;
    const fields = [grant.jobId, grant.userId, grant.fileId];
    if (fields.some((f) => typeof f !== 'string') || !Number.isInteger(grant.maxPages) || !Number.isInteger(grant.expiresAt)) return undefined;
    return grant;
  } catch {
    return undefined;
  }
}

/** Constant-time comparison of two MACs (the local key's verify). */
export const sameMac = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && timingSafeEqual(a, b);
