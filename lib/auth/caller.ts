import type { User } from './users.ts';

/** Who is calling, as resolved from the bearer token and the stored user record. */
export type Caller = { kind: 'anonymous' } | { kind: 'user'; user: User };

export const anonymous: Caller = { kind: 'anonymous' };
