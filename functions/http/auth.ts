import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { anonymous, type Caller } from '../../lib/auth/caller.ts';
import { InvalidTokenError, type VerifyToken } from '../../lib/auth/tokens.ts';
import { isStaff, type User, type UserStore } from '../../lib/auth/users.ts';
import type { AuthMode } from '../routes.ts';
import { text, type HttpResult } from './responses.ts';

/** The auth layer's answers: plain text, exactly as SPEC.md section 7 writes them. */
export const authTexts = {
  noToken: 'Unauthorized: No token provided',
  invalidToken: 'Forbidden: Invalid token',
  noPermission: 'Forbidden: You do not have the required permissions',
  userGone: 'User not found',
} as const;

/** Thrown to answer the request at once with the auth layer's response. */
export class AuthRejection extends Error {
  constructor(readonly response: HttpResult) {
    super(String(response.body));
  }
}

const reject = (status: number, body: string) => new AuthRejection(text(status, body));

export function bearerToken(event: APIGatewayProxyEventV2): string | undefined {
  const header = event.headers?.authorization ?? event.headers?.Authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

export interface AuthDeps {
  verifyToken: VerifyToken;
  users: UserStore;
}

/** Resolves the caller for a route's auth mode, or throws AuthRejection with the spec's answer. */
export async function resolveCaller(authDeps: () => Promise<AuthDeps> | AuthDeps, event: APIGatewayProxyEventV2, mode: AuthMode): Promise<Caller> {
  if (mode === 'none') return anonymous;
  const deps = await authDeps();
  const token = bearerToken(event);
  const lenient = mode === 'optional-lenient';
  if (!token) {
    if (mode === 'optional' || lenient) return anonymous;
    throw reject(401, authTexts.noToken);
  }
  let userId: string;
  try {
    ({ userId } = await deps.verifyToken(token));
  } catch (error) {
    if (!(error instanceof InvalidTokenError)) throw error;
    if (lenient) return anonymous;
    throw reject(403, authTexts.invalidToken);
  }
  const user: User | undefined = await deps.users.get(userId);
  if (!user) {
    // A deleted user's token stays cryptographically valid; it no longer names anyone.
    if (lenient) return anonymous;
    throw reject(404, authTexts.userGone);
  }
  if (mode === 'editor' && !isStaff(user)) throw reject(403, authTexts.noPermission);
  return { kind: 'user', user };
}
