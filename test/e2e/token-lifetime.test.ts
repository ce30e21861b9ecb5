import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenVerifier, maxTokenLifetimeSeconds } from '../../lib/auth/tokens.ts';
import { projectRoot } from '../../infra/local/state.ts';
import { cli, freePort, startService } from '../support/processes.ts';

/**
 * The token issuers (the local CLI's `token`, scripts/worker-token.ts) refuse a lifetime the verifier
 * would refuse, with a one-line message and a non-zero exit (docs/local-runtime.md), rather than print a
 * token that fails on first use.
 */
describe('token lifetimes at the command line', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'maktaba-tokens-'));
  const secret = 'c'.repeat(64);
  // The CLI signs with the local stack's secret, for a user of the running stack.
  writeFileSync(join(dataDir, 'jwt-secret'), secret);
  const env: Record<string, string> = { DATA_DIR: dataDir, HOST: '127.0.0.1', OCR_WORKER: 'off' };
  const verify = createTokenVerifier({ mode: 'secret', secret }, async () => secret);
  let stop: (() => Promise<number | null>) | undefined;
  let u1 = '';
  beforeAll(async () => {
    env.PORT = String(await freePort());
    stop = (await startService(env)).stop;
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify({ users: [{ key: 'u1', username: 'u1' }] }));
    u1 = (JSON.parse((await cli(['seed', seedFile], env)).stdout) as { users: { u1: { userId: string } } }).users.u1.userId;
  }, 120_000);
  afterAll(() => stop?.());

  it('issues a 24-hour token by default and one of the maximum lifetime on request, both accepted', async () => {
    const plain = await cli(['token', u1], env);
    expect(plain).toMatchObject({ code: 0, stderr: '' });
    const exp = decodeJwt(plain.stdout.trim()).exp! - Math.floor(Date.now() / 1000);
    expect(exp).toBeGreaterThan(24 * 3600 - 60);
    expect(exp).toBeLessThanOrEqual(24 * 3600);
    const longest = await cli(['token', u1, '--expires-in', String(maxTokenLifetimeSeconds)], env);
    expect(longest.code).toBe(0);
    await expect(verify(longest.stdout.trim())).resolves.toEqual({ userId: u1 });
  });

  it('refuses a token for a user the stack does not have, and prints the usage for a wrong or missing argument', async () => {
    expect(await cli(['token', 'nosuchuser'], env)).toEqual({ code: 1, stdout: '', stderr: 'no user nosuchuser\n' });
    for (const args of [['token'], ['billing', 'invoices'], ['no-such-command'], ['token', u1, '--no-such-option']]) {
      const wrong = await cli(args, env);
      expect(wrong.code, args.join(' ')).not.toBe(0);
      expect(wrong.stdout).toBe('');
      const [reason, ...rest] = wrong.stderr.trimEnd().split('\n');
      expect(reason, args.join(' ')).toMatch(/^(token|billing invoices): wrong or missing arguments$|^unknown command: no-such-command$|no-such-option/);
      expect(rest[0]).toBe('usage: npm run --silent cli -- COMMAND');
    }
    for (const args of [[], ['--help']]) {
      const help = await cli(args, env);
      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toMatch(/^usage: npm run --silent cli -- COMMAND\n {2}seed FILE\n {2}token USER_ID/);
    }
  });

  it('refuses an --expires-in above the maximum with a one-line message', async () => {
    const refused = await cli(['token', u1, '--expires-in', String(maxTokenLifetimeSeconds + 1)], env);
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
