import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/state.ts';
import { isRunning } from '../../lib/processes.ts';
import { checkedFetch } from '../support/api.ts';
import { freePort, startService, type Service } from '../support/processes.ts';

/**
 * Issue 29: `npm start` after a kill, and while a store dies. Killed (the whole process group, as a
 * closed terminal does, or the service process alone), it leaves no store process behind and starts
 * again on the same DATA_DIR; a store that dies is logged and restarted, and GET /health says so.
 */

/** A zombie (ended, not yet reaped by whoever adopted it) is not alive (lib/processes.ts). */
const alive = (pid: number): boolean => isRunning({ pid });

/** Polls until `check` holds (no timing is asserted: the deadline only ends a wait that would never end). */
async function waitUntil(what: string, check: () => boolean | Promise<boolean>, deadlineMs = 60_000): Promise<void> {
  for (const end = Date.now() + deadlineMs; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    if (await check()) return;
  }
  throw new Error(`not within ${deadlineMs / 1000} s: ${what}`);
}

const stackOf = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'local.json'), 'utf8')) as LocalStack;

const health = async (url: string) => {
  const res = await checkedFetch(`${url}/health`); // held to the API document
  return { status: res.status, body: (await res.json()) as { status: string; stores: Record<string, string> } };
};
const allOk = { table: 'ok', uploads: 'ok', audio: 'ok', ocrQueue: 'ok', audioQueue: 'ok' };
/**
 * A store just started may miss its probe's 2 s bound on its first, cold, request (DynamoDB Local on
 * a busy machine): waited for, then the whole answer checked.
 */
async function expectHealthy(url: string): Promise<void> {
  await waitUntil('GET /health is ok', async () => (await health(url)).status === 200);
  expect(await health(url)).toEqual({ status: 200, body: { status: 'ok', stores: allOk } });
}

describe('local runtime: recovery', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'maktaba-recovery-'));
  const lock = join(dataDir, 'search.sqlite.lock');
  let service: Service | undefined;
  let stoppedPid: number | undefined;
  afterAll(async () => {
    if (stoppedPid) process.kill(stoppedPid, 'SIGCONT');
    await service?.stop();
  });

  it('starts again on the same DATA_DIR after a SIGKILL of its process group, or of its own process, leaving no store running', async () => {
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', OCR_WORKER: 'off' };
    service = await startService(env, { detached: true });
    const first = stackOf(dataDir);
    expect(first.processes).toEqual({ dynamodb: expect.any(Number), s3: expect.any(Number) });
    // The index is built and held from start (an empty table is indexed at once).
    await waitUntil('the search index is open', () => existsSync(lock));

    // The whole group, as a closed terminal or `kill -9 -PGID` ends it: nothing may close the index.
    process.kill(-service.child.pid!, 'SIGKILL');
    const firstPids = [service.child.pid!, first.pid, first.processes!.dynamodb, first.processes!.s3];
    await waitUntil('every process of the killed group has ended', () => firstPids.every((pid) => !alive(pid)));
    expect(existsSync(lock)).toBe(true); // what used to keep every later start out

    service = await startService(env, { detached: true });
    expect(service.stderr()).toContain(`removed ${lock}, left by process ${first.pid}, which ended without closing the index (killed)`);
    await expectHealthy(service.url);

    // The service process alone (`kill -9` of local.json's pid): its stores end by themselves.
    const second = stackOf(dataDir);
    process.kill(second.pid, 'SIGKILL');
    await waitUntil('the stores of the killed service have ended', () => !alive(second.processes!.dynamodb) && !alive(second.processes!.s3));
    await waitUntil('its launcher has ended', () => service!.child.exitCode !== null || service!.child.signalCode !== null);

    service = await startService(env, { detached: true });
    await expectHealthy(service.url);
    const books = await checkedFetch(`${service.url}/ocr/books`);
    expect(books.status).toBe(200);
  }, 240_000);

  it('logs a store that dies and restarts it; GET /health reports a store that does not answer', async () => {
    expect(service).toBeDefined();
    const url = service!.url;
    const before = stackOf(dataDir).processes!;

    // A store that hangs (stopped, not dead): its probes fail within their bound, then recover.
    process.kill((stoppedPid = before.s3), 'SIGSTOP');
    let seen: Awaited<ReturnType<typeof health>> | undefined;
    await waitUntil('GET /health reports the stopped S3', async () => (seen = await health(url)).status === 503);
    expect(seen!.body).toEqual({ status: 'failed', stores: { ...allOk, uploads: 'failed', audio: 'failed' } });
    process.kill(before.s3, 'SIGCONT');
    stoppedPid = undefined;
    await waitUntil('GET /health reports every store ok again', async () => (await health(url)).status === 200);

    // Each child store killed: logged at once, restarted on the same endpoint, its new pid recorded.
    for (const [store, name] of [
      ['dynamodb', 'the embedded DynamoDB'],
      ['s3', 'the embedded S3'],
    ] as const) {
      const pid = stackOf(dataDir).processes![store];
      process.kill(pid, 'SIGKILL');
      await waitUntil(`${name} is restarted`, () => stackOf(dataDir).processes![store] !== pid);
      const restarted = stackOf(dataDir).processes![store];
      expect(service!.stderr()).toContain(`${name} (pid ${pid}) died: `);
      expect(service!.stderr()).toContain(`${name} restarted (pid ${restarted})`);
      expect(alive(restarted)).toBe(true);
      await waitUntil('GET /health reports every store ok', async () => (await health(url)).status === 200);
    }
    expect((await checkedFetch(`${url}/ocr/books`)).status).toBe(200);
    expect(service!.child.exitCode).toBeNull();
  }, 240_000);
});
