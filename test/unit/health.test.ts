import { describe, expect, it } from 'vitest';
import { checkHealth, healthStores, type HealthStore } from '../../lib/health.ts';

/** GET /health's rules (lib/health.ts): every store probed, a failed or stuck one `failed`, why kept for the log. */
describe('checkHealth', () => {
  const probes = (overrides: Partial<Record<HealthStore, (signal: AbortSignal) => Promise<unknown>>> = {}) =>
    Object.fromEntries(healthStores.map(({ name }) => [name, overrides[name] ?? (async () => ({}))])) as Record<HealthStore, (signal: AbortSignal) => Promise<unknown>>;

  it('is ok when every store answers', async () => {
    const failures: HealthStore[] = [];
    expect(await checkHealth(probes(), (store) => failures.push(store))).toEqual({
      status: 'ok',
      stores: { table: 'ok', uploads: 'ok', audio: 'ok', ocrQueue: 'ok', audioQueue: 'ok' },
    });
    expect(failures).toEqual([]);
  });

  it('fails a store whose probe throws or never answers, aborts the stuck call, and tells the log why', async () => {
    let aborted = false;
    const never = (signal: AbortSignal) =>
      new Promise((_, reject) => signal.addEventListener('abort', () => ((aborted = true), reject(new Error('aborted')))));
    const failures: [HealthStore, string][] = [];
    const result = await checkHealth(
      probes({ table: async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:8000')), audioQueue: never }),
      (store, error) => failures.push([store, (error as Error).message]),
      100,
    );
    expect(result).toEqual({ status: 'failed', stores: { table: 'failed', uploads: 'ok', audio: 'ok', ocrQueue: 'ok', audioQueue: 'failed' } });
    expect(failures.sort()).toEqual([
      ['audioQueue', 'no answer within 100 ms'],
      ['table', 'connect ECONNREFUSED 127.0.0.1:8000'],
    ]);
    expect(aborted).toBe(true);
  });
});
