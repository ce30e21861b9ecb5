import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTokenVerifier, maxTokenLifetimeSeconds } from '../../lib/auth/tokens.ts';
import { projectRoot } from '../../infra/local/state.ts';
import { cli } from '../support/processes.ts';

/**
 * The token issuers (the local CLI's `token`, scripts/worker-token.ts) refuse a lifetime the verifier
 * would refuse, with a one-line message and a non-zero exit (local-runtime.md), rather than print a
 * token that fails on first use.
 */
describe('token lifetimes at the command line', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'maktaba-tokens-'));
  const secret = 'c'.repeat(64);
  // The CLI signs with the local stack's secret; `token` needs nothing else of a running stack.
  writeFileSync(join(dataDir, 'jwt-secret'), secret);
  const env = { DATA_DIR: dataDir };
  const verify = createTokenVerifier({ mode: 'secret', secret }, async () => secret);

  it('issues a 24-hour token by default and one of the maximum lifetime on request, both accepted', async () => {
    const plain = await cli(['token', 'u1'], env);
    expect(plain).toMatchObject({ code: 0, stderr: '' });
    const exp = decodeJwt(plain.stdout.trim()).exp! - Math.floor(Date.now() / 1000);
    expect(exp).toBeGreaterThan(24 * 3600 - 60);
    expect(exp).toBeLessThanOrEqual(24 * 3600);
    const longest = await cli(['token', 'u1', '--expires-in', String(maxTokenLifetimeSeconds)], env);
    expect(longest.code).toBe(0);
    await expect(verify(longest.stdout.trim())).resolves.toEqual({ userId: 'u1' });
  });

  it('refuses an --expires-in above the maximum with a one-line message', async () => {
    const refused = await cli(['token', 'u1', '--expires-in', String(maxTokenLifetimeSeconds + 1)], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe('--expires-in takes a whole number of seconds from 1 to 2592000 (30 days)\n');
  });

  it('makes scripts/worker-token.ts refuse it too, before it touches AWS', async () => {
    const tsx = join(projectRoot, 'node_modules', '.bin', 'tsx');
    const args = ['scripts/worker-token.ts', '--table', 'Maktaba', '--secret-arn', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:jwt'];
    const run = (extra: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(tsx, [...args, ...extra], { cwd: projectRoot }, (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
    const refused = await run(['--expires-in', String(maxTokenLifetimeSeconds + 1)]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe('worker-token: --expires-in takes a whole number of seconds from 1 to 2592000 (30 days)\n');
  });
});
