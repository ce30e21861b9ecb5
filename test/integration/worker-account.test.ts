import { describe, expect, it } from 'vitest';
import { createTokenVerifier, signToken } from '../../lib/auth/tokens.ts';
import { workerAccount } from '../../lib/auth/worker-account.ts';
import { newObjectId } from '../../lib/ids.ts';
import { testStores } from '../support/stores.ts';

/** scripts/worker-token.ts: the OCR worker's editor account and a token the functions accept for it. */
describe('the OCR worker account', () => {
  const users = testStores().users;
  const now = new Date('2026-11-23T10:00:00.000Z');

  it('creates an editor when no user is named, and signs a token the verifier accepts for it', async () => {
    const user = await workerAccount(users, undefined, now);
    expect(await users.get(user.userId)).toMatchObject({ role: 'editor', username: 'ocr-worker', createdAt: now.toISOString() });
    const secret = 'a-secret-of-the-stack-that-is-long-enough';
    const token = await signToken(secret, user.userId, 60);
    const verify = createTokenVerifier({ mode: 'secret' }, async () => secret);
    await expect(verify(token)).resolves.toEqual({ userId: user.userId });
  });

  it('uses a named editor or admin as it is, and refuses members and unknown ids', async () => {
    const base = { username: 'x', email: 'x@example.com', profilePicture: null, profilePictureKey: null, createdAt: now.toISOString(), updatedAt: now.toISOString() };
    const admin = { ...base, userId: newObjectId(), role: 'admin' as const };
    const member = { ...base, userId: newObjectId(), role: 'member' as const };
    await users.put(admin);
    await users.put(member);
    await expect(workerAccount(users, admin.userId, now)).resolves.toEqual(admin);
    await expect(workerAccount(users, member.userId, now)).rejects.toThrow(/not an editor or admin/);
    await expect(workerAccount(users, newObjectId(), now)).rejects.toThrow(/no user/);
    expect((await users.get(member.userId))!.role).toBe('member');
  });
});
