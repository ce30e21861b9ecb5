import { createRemoteJWKSet, errors, jwtVerify, SignJWT, type JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from '../config.ts';

/**
 * Bearer token verification with jose against an explicit algorithm allow-list: a shared secret
 * allows only HMAC, a JWKS only asymmetric algorithms, so a token can never choose its own check.
 */
export const secretAlgorithms = ['HS256'];
export const jwksAlgorithms = ['RS256', 'ES256', 'PS256'];

export type VerifyToken = (token: string) => Promise<{ userId: string }>;

export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

export function createTokenVerifier(auth: AuthConfig, loadSecret: () => Promise<string>): VerifyToken {
  const options = { issuer: auth.issuer, audience: auth.audience };
  let verify: (token: string) => Promise<{ payload: { sub?: string } }>;
  if (auth.mode === 'jwks') {
    const jwks: JWTVerifyGetKey = createRemoteJWKSet(new URL(auth.jwksUrl));
    verify = (token) => jwtVerify(token, jwks, { ...options, algorithms: jwksAlgorithms });
  } else {
    let key: Promise<Uint8Array> | undefined;
    verify = async (token) => {
      // Loaded once per container; a failed load is forgotten so the next request tries again.
      key ??= loadSecret()
        .then((secret) => new TextEncoder().encode(secret))
        .catch((error: unknown) => {
          key = undefined;
          throw error;
        });
      return jwtVerify(token, await key, { ...options, algorithms: secretAlgorithms });
    };
  }
  return async (token) => {
    let payload: { sub?: string };
    try {
      ({ payload } = await verify(token));
    } catch (error) {
      // Only jose's verdicts mean a bad token; failing to load a key or a JWKS is our failure (500).
      if (error instanceof errors.JOSEError && !(error instanceof errors.JWKSTimeout)) {
        throw new InvalidTokenError(error.message);
      }
      throw error;
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new InvalidTokenError('token has no subject');
    return { userId: payload.sub };
  };
}

/** Signs a token the way the local runtime's CLI issues them (HS256, `sub` = user id). */
export async function signToken(
  secret: string,
  userId: string,
  expiresInSeconds: number,
  claims: { issuer?: string; audience?: string } = {},
): Promise<string> {
  let jwt = new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + expiresInSeconds);
  if (claims.issuer) jwt = jwt.setIssuer(claims.issuer);
  if (claims.audience) jwt = jwt.setAudience(claims.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}
