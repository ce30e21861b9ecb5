import { generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTokenVerifier, InvalidTokenError, signToken } from '../../lib/auth/tokens.ts';

const secret = 'a'.repeat(64);
const verify = createTokenVerifier({ mode: 'secret', secret }, async () => secret);

describe('bearer token verification', () => {
  it('accepts a token signed with the secret and returns its subject as the user id', async () => {
    const token = await signToken(secret, '65a1b2c3d4e5f60718293a4b', 60);
    await expect(verify(token)).resolves.toEqual({ userId: '65a1b2c3d4e5f60718293a4b' });
  });

  it('rejects an expired token', async () => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('u1')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(new TextEncoder().encode(secret));
    await expect(verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('rejects a token signed with another secret', async () => {
    await expect(verify(await signToken('b'.repeat(64), 'u1', 60))).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('rejects an unsigned (alg none) token', async () => {
    const token = new UnsecuredJWT({}).setSubject('u1').setExpirationTime('1h').encode();
    await expect(verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('rejects an HMAC algorithm outside the allow-list', async () => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject('u1')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(secret));
    await expect(verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('rejects an asymmetric token when configured with a shared secret', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'RS256' }).setSubject('u1').setExpirationTime('1h').sign(privateKey);
    await expect(verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('rejects a token without a subject', async () => {
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(secret));
    await expect(verify(token)).rejects.toThrow('token has no subject');
  });

  it('checks issuer and audience when configured', async () => {
    const strict = createTokenVerifier({ mode: 'secret', secret, issuer: 'maktaba', audience: 'app' }, async () => secret);
    await expect(strict(await signToken(secret, 'u1', 60))).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(strict(await signToken(secret, 'u1', 60, { issuer: 'maktaba', audience: 'app' }))).resolves.toEqual({ userId: 'u1' });
  });

  it('rejects garbage', async () => {
    await expect(verify('not-a-jwt')).rejects.toBeInstanceOf(InvalidTokenError);
  });
});

describe('secret loading', () => {
  it('loads the secret once, and tries again after a failed load', async () => {
    let loads = 0;
    const flaky = createTokenVerifier({ mode: 'secret', secretArn: 'arn:secret' }, async () => {
      loads++;
      if (loads === 1) throw new Error('Secrets Manager unavailable');
      return secret;
    });
    const token = await signToken(secret, 'u1', 60);
    // Our failure to load the key is not the caller's bad token: it must surface as a 500, not a 403.
    const failure = await flaky(token).catch((error: unknown) => error);
    expect(failure).not.toBeInstanceOf(InvalidTokenError);
    expect((failure as Error).message).toBe('Secrets Manager unavailable');
    await expect(flaky(token)).resolves.toEqual({ userId: 'u1' });
    await expect(flaky(token)).resolves.toEqual({ userId: 'u1' });
    expect(loads).toBe(2);
  });
});
