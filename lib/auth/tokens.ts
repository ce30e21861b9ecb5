import { createRemoteJWKSet, errors, jwtVerify, SignJWT, type JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from '../config.ts';
import { onceAsync } from '../lazy.ts';

/**
 * Bearer token verification with jose against an explicit algorithm allow-list: a shared secret
 * allows only HMAC, a JWKS only asymmetric algorithms, so a token can never choose its own check.
 */
export const secretAlgorithms = ['HS256'];
export const jwksAlgorithms = ['RS256', 'ES256', 'PS256'];

/**
 * The longest a token may be valid: 30 days. `exp` is required, and a token is refused when its
 * `exp` lies more than this ahead of now or (with `iat`) more than this after its `iat`, so no token
 * stays usable for longer, whoever signed it. 30 days is the longest lifetime the project issues
 * itself (scripts/worker-token.ts, the OCR worker's token); the local CLI's default is 24 h
 * (docs/local-runtime.md). Identity providers issue far shorter ones (Cognito: 5 min to 1 day).
 */
export const maxTokenLifetimeSeconds = 30 * 24 * 60 * 60;

const lifetimeRule = `a whole number of seconds from 1 to ${maxTokenLifetimeSeconds} (30 days)`;

/** An `--expires-in` value of the token issuers (infra/local/cli.ts, scripts/worker-token.ts). */
export function parseTokenLifetime(raw: string | undefined, defaultSeconds: number): number {
  if (raw === undefined) return defaultSeconds;
  const seconds = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(seconds >= 1 && seconds <= maxTokenLifetimeSeconds)) throw new Error(`--expires-in takes ${lifetimeRule}`);
  return seconds;
}

/** Why a verified token's lifetime is refused, or undefined when it is within the maximum. */
function lifetimeFault(payload: { exp?: number; iat?: number }, now: number): string | undefined {
  const { exp, iat } = payload;
  if (typeof exp !== 'number') return 'token has no expiry';
  if (exp - now > maxTokenLifetimeSeconds) return 'token expires too far ahead';
  if (typeof iat === 'number' && exp - iat > maxTokenLifetimeSeconds) return 'token lifetime is too long';
  return undefined;
}

export type VerifyToken = (token: string) => Promise<{ userId: string }>;

export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

export function createTokenVerifier(auth: AuthConfig, loadSecret: () => Promise<string>): VerifyToken {
  // `exp` is required; jose then refuses an expired token (lifetimeFault refuses one too long).
  const options = { issuer: auth.issuer, audience: auth.audience, requiredClaims: ['exp'] };
  let verify: (token: string) => Promise<{ payload: { sub?: string; exp?: number; iat?: number } }>;
  if (auth.mode === 'jwks') {
    const jwks: JWTVerifyGetKey = createRemoteJWKSet(new URL(auth.jwksUrl));
    verify = (token) => jwtVerify(token, jwks, { ...options, algorithms: jwksAlgorithms });
  } else {
    // Loaded once per container; a failed load is tried again by the next request.
    const key = onceAsync(async () => new TextEncoder().encode(await loadSecret()));
    verify = async (token) => jwtVerify(token, await key(), { ...options, algorithms: secretAlgorithms });
  }
  return async (token) => {
    let payload: { sub?: string; exp?: number; iat?: number };
    try {
      ({ payload } = await verify(token));
    } catch (error) {
      // Only jose's verdicts mean a bad token; failing to load a key or a JWKS is our failure (500).
      if (error instanceof errors.JOSEError && !(error instanceof errors.JWKSTimeout)) {
        throw new InvalidTokenError(error.message);
      }
      throw error;
    }
    const fault = lifetimeFault(payload, Math.floor(Date.now() / 1000));
    if (fault) throw new InvalidTokenError(fault);
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new InvalidTokenError('token has no subject');
    return { userId: payload.sub };
  };
}

/**
 * Signs a token the way the local runtime's CLI issues them (HS256, `sub` = user id), for at most
 * the maximum lifetime: it never signs a token the verifier would refuse.
 */
export async function signToken(
  secret: string,
  userId: string,
  expiresInSeconds: number,
  claims: { issuer?: string; audience?: string } = {},
): Promise<string> {
  if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1 || expiresInSeconds > maxTokenLifetimeSeconds) {
    throw new RangeError(`a token lives from 1 s to at most ${maxTokenLifetimeSeconds} s (30 days)`);
  }
  let jwt = new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + expiresInSeconds);
  if (claims.issuer) jwt = jwt.setIssuer(claims.issuer);
  if (claims.audience) jwt = jwt.setAudience(claims.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}
