import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jobCredentialLifetimeSeconds, jobCredentials, type JobGrant } from '../../lib/auth/job-credentials.ts';
import { localMacKey } from '../../lib/auth/local-mac.ts';

/** Job credentials (lib/auth/job-credentials.ts) with the local key: what they grant, and what they never do. */
const credentials = () => jobCredentials(localMacKey(async () => 'the service secret'));
const grant = { jobId: '3f0c1c9e-8a4b-4c1e-9d7a-2b6f0e5a1c3d', userId: 'a'.repeat(24), fileId: 'b'.repeat(24), maxPages: 2000 };
const now = new Date('2026-11-26T12:00:00Z');
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

describe('a job credential', () => {
  it('grants its job, owner, file and page cap until the job messages can wait no longer', async () => {
    const c = credentials();
    const credential = await c.issue(grant, now);
    const expected: JobGrant = { ...grant, expiresAt: seconds(now) + jobCredentialLifetimeSeconds };
    expect(await c.verify(credential, now)).toEqual(expected);
    expect(jobCredentialLifetimeSeconds).toBe(22 * 24 * 3600); // 4 + 4 days in the queues, 14 in a dead-letter queue
    expect(await c.verify(credential, new Date((expected.expiresAt - 1) * 1000))).toEqual(expected);
    expect(await c.verify(credential, new Date(expected.expiresAt * 1000))).toBeUndefined();
  });

  it('is checked by the key, not by who holds it: another key, or any changed byte, grants nothing', async () => {
    const credential = await credentials().issue(grant, now);
    expect(await jobCredentials(localMacKey(async () => 'another secret')).verify(credential, now)).toBeUndefined();
    for (let i = 'mkjob1.'.length; i < credential.length; i += 7) {
      const changed = `${credential.slice(0, i)}${credential[i] === 'A' ? 'B' : 'A'}${credential.slice(i + 1)}`;
      expect(await credentials().verify(changed, now), `byte ${i}`).toBeUndefined();
    }
  });

  it('never throws on what a client sends, and grants nothing for it', async () => {
    const c = credentials();
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.string().map((s) => `mkjob1.${s}`), fc.tuple(fc.base64String(), fc.base64String()).map(([a, b]) => `mkjob1.${a}.${b}`)), async (token) => {
        expect(await c.verify(token, now)).toBeUndefined();
      }),
    );
  });
});
