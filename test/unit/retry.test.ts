import { describe, expect, it } from 'vitest';
import { policies, retry, retryDelay, RetriesExhausted, type RetryClock } from '../../lib/retry.ts';

/** Records the waits instead of sleeping; jitter draws `draw`. */
function fakeClock(draw = 0.5): RetryClock & { waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms), random: () => draw };
}

const busy = Object.assign(new Error('busy'), { name: 'Busy' });
const isBusy = (error: unknown) => (error as Error).name === 'Busy';

/** Fails with `error` the first `failures` times, then answers the attempt. */
function failing(failures: number, error: unknown = busy) {
  const calls: number[] = [];
  const run = async (attempt: number) => {
    calls.push(attempt);
    if (calls.length <= failures) throw error;
    return attempt;
  };
  return { calls, run };
}

const policy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 250, jitter: 'full', retryable: isBusy } as const;

describe('retry', () => {
  it('tries again after a retryable error, numbering the attempts from 1', async () => {
    const { calls, run } = failing(2);
    await expect(retry(run, policy, fakeClock())).resolves.toBe(3);
    expect(calls).toEqual([1, 2, 3]);
  });

  it('stops at the cap and throws the last error', async () => {
    const clock = fakeClock();
    const { calls, run } = failing(10);
    await expect(retry(run, policy, clock)).rejects.toBe(busy);
    expect(calls).toHaveLength(4);
    expect(clock.waits).toHaveLength(3);
  });

  it('throws a clear error naming the last one when the policy says what gave up', async () => {
    const { run } = failing(10);
    const error = await retry(run, { ...policy, gaveUp: 'Inbox is too busy' }, fakeClock()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriesExhausted);
    expect(error).toMatchObject({ message: 'Inbox is too busy', attempts: 4, cause: busy });
  });

  it('throws an error that is not retryable at once', async () => {
    const clock = fakeClock();
    const other = new Error('no');
    const { calls, run } = failing(1, other);
    await expect(retry(run, policy, clock)).rejects.toBe(other);
    expect(calls).toEqual([1]);
    expect(clock.waits).toEqual([]);
  });

  it('retries nothing without a retryable predicate', async () => {
    const { calls, run } = failing(1);
    await expect(retry(run, { ...policies.contention }, fakeClock())).rejects.toBe(busy);
    expect(calls).toHaveLength(1);
  });

  it('doubles the wait up to the maximum; full jitter draws within it', async () => {
    const top = fakeClock(0.999_999);
    await retry(failing(10).run, policy, top).catch(() => undefined);
    expect(top.waits.map(Math.round)).toEqual([100, 200, 250]);
    const none = fakeClock(0);
    await retry(failing(10).run, policy, none).catch(() => undefined);
    expect(none.waits).toEqual([0, 0, 0]);
    for (let i = 0; i < 200; i++) {
      const d = retryDelay(policy, 1 + (i % 5));
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(policy.maxDelayMs);
    }
  });

  it('waits the bound itself without jitter', async () => {
    const clock = fakeClock();
    await retry(failing(10).run, { ...policies.unprocessedItems, retryable: isBusy }, clock).catch(() => undefined);
    expect(clock.waits).toEqual([50, 100, 200, 400, 800, 1600, 2000, 2000]);
  });

  it('retries until a condition holds, then fails clearly after the last attempt', async () => {
    const clock = fakeClock();
    const left = [3, 1, 0];
    await expect(retry(async (n) => left[n - 1], { ...policies.unprocessedItems, until: (n) => n === 0 }, clock)).resolves.toBe(0);
    expect(clock.waits).toEqual([50, 100]);
    const never = retry(async () => 2, { ...policies.unprocessedItems, until: (n) => n === 0, gaveUp: 'items left' }, fakeClock());
    await expect(never).rejects.toMatchObject({ name: 'RetriesExhausted', message: 'items left', attempts: 9 });
  });

  it('states each named policy within its bounds', () => {
    expect(policies.contention).toMatchObject({ attempts: 13, baseDelayMs: 40, maxDelayMs: 1_280, jitter: 'full' });
    expect(policies.throttling).toMatchObject({ attempts: 5, baseDelayMs: 100, maxDelayMs: 5_000, jitter: 'full' });
    expect(retryDelay(policies.textRead, 2)).toBe(0);
  });
});
