import type { JobGrant } from './job-credentials.ts';
import type { User } from './users.ts';

/**
 * Who is calling, as resolved from the bearer token and the stored user record; or, on the routes
 * that take one (the OCR callbacks and the job's status), an OCR worker holding one job's credential.
 */
export type Caller = { kind: 'anonymous' } | { kind: 'user'; user: User } | { kind: 'job'; grant: JobGrant };

export const anonymous: Caller = { kind: 'anonymous' };
