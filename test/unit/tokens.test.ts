import { generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTokenVerifier, InvalidTokenError, maxTokenLifetimeSeconds, parseTokenLifetime, signToken } from '../../lib/auth/tokens.ts';
import { readConfig } from '../../lib/config.ts';

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

  it('rejects a correctly signed token that never expires (no exp claim)', async () => {
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setIssuedAt().sign(new TextEncoder().encode(secret));
    await expect(verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('rejects a token that expires further ahead than the maximum lifetime, and accepts one at the maximum', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expiringAt = (exp: number) =>
      new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setIssuedAt().setExpirationTime(exp).sign(new TextEncoder().encode(secret));
    await expect(verify(await expiringAt(now + maxTokenLifetimeSeconds + 3600))).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(verify(await expiringAt(now + 100 * 365 * 24 * 3600))).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(verify(await expiringAt(now + maxTokenLifetimeSeconds))).resolves.toEqual({ userId: 'u1' });
  });

  it('rejects a token whose exp lies further after its iat than the maximum, even when it expires soon', async () => {
    const now = Math.floor(Date.now() / 1000);
    const day = 24 * 3600;
    const token = (iat: number | undefined, exp: number) => {
      let jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setExpirationTime(exp);
      if (iat !== undefined) jwt = jwt.setIssuedAt(iat);
      return jwt.sign(new TextEncoder().encode(secret));
    };
    await expect(verify(await token(now - 40 * day, now + day))).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(verify(await token(now - 29 * day, now + day))).resolves.toEqual({ userId: 'u1' });
    // iat is optional: exp alone bounds how long the token stays usable.
    await expect(verify(await token(undefined, now + day))).resolves.toEqual({ userId: 'u1' });
  });

  it('allows at most 30 days', () => {
    expect(maxTokenLifetimeSeconds).toBe(30 * 24 * 60 * 60);
  });

  it('rejects garbage', async () => {
    await expect(verify('not-a-jwt')).rejects.toBeInstanceOf(InvalidTokenError);
  });
});

describe('issuing tokens', () => {
  it('never signs a token the verifier would refuse', async () => {
    await expect(signToken(secret, 'u1', maxTokenLifetimeSeconds + 1)).rejects.toThrow(/at most 2592000/);
    await expect(signToken(secret, 'u1', 0)).rejects.toThrow();
    await expect(verify(await signToken(secret, 'u1', maxTokenLifetimeSeconds))).resolves.toEqual({ userId: 'u1' });
  });

  it('reads an --expires-in value: the default when absent, a whole number of seconds up to the maximum', () => {
    expect(parseTokenLifetime(undefined, 86_400)).toBe(86_400);
    expect(parseTokenLifetime('600', 86_400)).toBe(600);
    expect(parseTokenLifetime(String(maxTokenLifetimeSeconds), 86_400)).toBe(maxTokenLifetimeSeconds);
    for (const bad of [String(maxTokenLifetimeSeconds + 1), '0', '-5', '1.5', 'soon', '']) {
      expect(() => parseTokenLifetime(bad, 86_400), bad).toThrow('--expires-in takes a whole number of seconds from 1 to 2592000 (30 days)');
    }
  });
});

describe('configuration', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('refuses JWKS mode without both an issuer and an audience', () => {
    vi.stubEnv('AUTH_JWKS_URL', 'https://id.example.com/.well-known/jwks.json');
    vi.stubEnv('AUTH_JWT_ISSUER', '');
    vi.stubEnv('AUTH_JWT_AUDIENCE', '');
    expect(() => readConfig()).toThrow(/AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE/);
    vi.stubEnv('AUTH_JWT_ISSUER', 'https://id.example.com/');
    expect(() => readConfig()).toThrow(/AUTH_JWT_AUDIENCE/);
    vi.stubEnv('AUTH_JWT_AUDIENCE', 'maktaba');
    expect(readConfig().auth).toEqual({
      mode: 'jwks',
      jwksUrl: 'https://id.example.com/.well-known/jwks.json',
      issuer: 'https://id.example.com/',
      audience: 'maktaba',
    });
  });

  it('needs neither in secret mode', () => {
    vi.stubEnv('AUTH_JWKS_URL', '');
    vi.stubEnv('AUTH_JWT_ISSUER', '');
    vi.stubEnv('AUTH_JWT_AUDIENCE', '');
    vi.stubEnv('AUTH_JWT_SECRET', secret);
    expect(readConfig().auth).toMatchObject({ mode: 'secret', secret });
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
