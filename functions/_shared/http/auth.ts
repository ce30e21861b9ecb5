import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { anonymous, type Caller } from '../../../lib/auth/caller.ts';
import { isJobCredential, type JobCredentials } from '../../../lib/auth/job-credentials.ts';
import { InvalidTokenError, type VerifyToken } from '../../../lib/auth/tokens.ts';
import { isStaff, type User, type UserStore } from '../../../lib/auth/users.ts';
import { DomainError, type ErrorKind } from '../../../lib/errors.ts';
import type { AuthMode } from '../../routes.ts';

/** The auth layer's answers: plain text, exactly as docs/SPEC.md section 7 writes them. */
export const authTexts = {
  noToken: 'Unauthorized: No token provided',
  invalidToken: 'Forbidden: Invalid token',
  noPermission: 'Forbidden: You do not have the required permissions',
  userGone: 'User not found',
} as const;

/** The auth layer's refusals: plain text, whatever the route's group (docs/SPEC.md 7). */
const reject = (kind: ErrorKind, message: string) => new DomainError(kind, message, { body: 'plain-text' });

export function bearerToken(event: APIGatewayProxyEventV2): string | undefined {
  const header = event.headers?.authorization ?? event.headers?.Authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

export interface AuthDeps {
  verifyToken: VerifyToken;
  users: UserStore;
  /** The functions whose routes take job credentials have them (functions/_shared/job-credentials.ts). */
  jobCredentials?: JobCredentials;
  now: () => Date;
}

/**
 * Resolves the caller for a route's auth mode, or throws the spec's plain-text refusal. A route that
 * takes job credentials resolves one to its grant; whether the request stays within it is the domain's check.
 */
export async function resolveCaller(
  authDeps: () => Promise<AuthDeps> | AuthDeps,
  event: APIGatewayProxyEventV2,
  mode: AuthMode,
  { jobCredential = false }: { jobCredential?: boolean } = {},
): Promise<Caller> {
  if (mode === 'none') return anonymous;
  const deps = await authDeps();
  const token = bearerToken(event);
  if (token && jobCredential && isJobCredential(token)) {
    if (!deps.jobCredentials) throw new Error('a route takes job credentials but its function has none');
    const grant = await deps.jobCredentials.verify(token, deps.now());
    if (!grant) throw reject('forbidden', authTexts.invalidToken);
    return { kind: 'job', grant };
  }
  const lenient = mode === 'optional-lenient';
  if (!token) {
    if (mode === 'optional' || lenient) return anonymous;
    throw reject('unauthenticated', authTexts.noToken);
  }
  let userId: string;
  try {
    ({ userId } = await deps.verifyToken(token));
  } catch (error) {
    if (!(error instanceof InvalidTokenError)) throw error;
    if (lenient) return anonymous;
    throw reject('forbidden', authTexts.invalidToken);
  }
  const user: User | undefined = await deps.users.get(userId);
  if (!user) {
    // A deleted user's token stays cryptographically valid; it no longer names anyone.
    if (lenient) return anonymous;
    throw reject('not_found', authTexts.userGone);
  }
  if (mode === 'editor' && !isStaff(user)) throw reject('forbidden', authTexts.noPermission);
  if (mode === 'admin' && user.role !== 'admin') throw reject('forbidden', authTexts.noPermission);
  return { kind: 'user', user };
}
