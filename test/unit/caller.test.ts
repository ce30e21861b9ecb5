import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { authTexts, resolveCaller } from '../../functions/_shared/http/auth.ts';
import { jobCredentials } from '../../lib/auth/job-credentials.ts';
import { localMacKey } from '../../lib/auth/local-mac.ts';
import { errorResponse, messageStyle } from '../../functions/_shared/http/errors.ts';
import { DomainError } from '../../lib/errors.ts';
import type { AuthMode } from '../../functions/routes.ts';
import { createTokenVerifier, signToken } from '../../lib/auth/tokens.ts';
import type { Role, User, UserStore } from '../../lib/auth/users.ts';

const secret = 'c'.repeat(64);
const user = (userId: string, role: Role): User => ({
  userId,
  role,
  username: userId,
  email: `${userId}@example.com`,
  profilePicture: null,
  profilePictureKey: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});
const people = new Map([
  ['member', user('member', 'member')],
  ['editor', user('editor', 'editor')],
  ['admin', user('admin', 'admin')],
]);
const users: UserStore = {
  get: async (id) => people.get(id),
  getMany: async () => new Map(),
  put: async () => undefined,
  delete: async () => false,
};
const deps = {
  users,
  verifyToken: createTokenVerifier({ mode: 'secret', secret }, async () => secret),
  jobCredentials: jobCredentials(localMacKey(async () => secret)),
  now: () => new Date(),
};
const event = (authorization?: string) => ({ headers: authorization ? { authorization } : {} }) as APIGatewayProxyEventV2;
const bearer = async (userId: string) => `Bearer ${await signToken(secret, userId, 60)}`;

async function outcome(mode: AuthMode, authorization?: string) {
  try {
    const caller = await resolveCaller(() => deps, event(authorization), mode);
    return caller.kind === 'user' ? caller.user.role : 'anonymous';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    // As any route answers it, whatever its group: plain text.
    const response = errorResponse(error, messageStyle, 'unused');
    expect(response.headers?.['content-type']).toMatch(/^text\/plain/);
    return `${response.statusCode} ${response.body}`;
  }
}

describe('caller resolution per auth mode', () => {
  it('required: 401 without a token, 403 for a bad one, plain 404 for a deleted user', async () => {
    expect(await outcome('required')).toBe(`401 ${authTexts.noToken}`);
    expect(await outcome('required', 'Bearer x.y.z')).toBe(`403 ${authTexts.invalidToken}`);
    expect(await outcome('required', await bearer('nobody'))).toBe(`404 ${authTexts.userGone}`);
    expect(await outcome('required', await bearer('member'))).toBe('member');
    expect(await outcome('required', 'Basic dXNlcjpwYXNz')).toBe(`401 ${authTexts.noToken}`);
  });

  it('editor: members are refused, editors and admins pass', async () => {
    expect(await outcome('editor', await bearer('member'))).toBe(`403 ${authTexts.noPermission}`);
    expect(await outcome('editor', await bearer('editor'))).toBe('editor');
    expect(await outcome('editor', await bearer('admin'))).toBe('admin');
    expect(await outcome('editor')).toBe(`401 ${authTexts.noToken}`);
  });

  it('optional: anonymous without a token, 403 for a bad one', async () => {
    expect(await outcome('optional')).toBe('anonymous');
    expect(await outcome('optional', 'Bearer x.y.z')).toBe(`403 ${authTexts.invalidToken}`);
    expect(await outcome('optional', await bearer('admin'))).toBe('admin');
  });

  it('optional-lenient: a bad token or a deleted user counts as anonymous', async () => {
    expect(await outcome('optional-lenient', 'Bearer x.y.z')).toBe('anonymous');
    expect(await outcome('optional-lenient', await bearer('nobody'))).toBe('anonymous');
    expect(await outcome('optional-lenient', await bearer('editor'))).toBe('editor');
  });

  it('none: the token is not even read', async () => {
    expect(await outcome('none', 'Bearer x.y.z')).toBe('anonymous');
  });
});
