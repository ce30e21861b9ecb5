import { describe, expect, it, vi } from 'vitest';
import { once, onceAsync, onFirstUse } from '../../lib/lazy.ts';

describe('once', () => {
  it('builds on first use and keeps the value, even undefined', () => {
    const build = vi.fn(() => undefined);
    const value = once(build);
    expect(build).not.toHaveBeenCalled();
    value();
    value();
    expect(build).toHaveBeenCalledTimes(1);
  });
});

describe('onceAsync', () => {
  it('shares one build between concurrent callers', async () => {
    const build = vi.fn(async () => ({}));
    const value = onceAsync(build);
    const [a, b] = await Promise.all([value(), value()]);
    expect(a).toBe(b);
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('forgets a failed build, so the next call tries again', async () => {
    const build = vi.fn().mockRejectedValueOnce(new Error('throttled')).mockResolvedValue('key');
    const value = onceAsync<string>(build);
    await expect(value()).rejects.toThrow('throttled');
    expect(await value()).toBe('key');
    expect(await value()).toBe('key');
    expect(build).toHaveBeenCalledTimes(2);
  });

  it('builds again after forget()', async () => {
    let n = 0;
    const value = onceAsync(async () => ++n);
    expect(await value()).toBe(1);
    value.forget();
    expect(await value()).toBe(2);
  });

  it('a forgotten build that fails does not drop the one built after it', async () => {
    let fail!: (error: Error) => void;
    const build = vi.fn().mockReturnValueOnce(new Promise((_, reject) => (fail = reject))).mockResolvedValue('fresh');
    const value = onceAsync<string>(build);
    const first = value();
    value.forget();
    expect(await value()).toBe('fresh');
    fail(new Error('old'));
    await expect(first).rejects.toThrow('old');
    expect(await value()).toBe('fresh');
    expect(build).toHaveBeenCalledTimes(2);
  });
});

describe('onFirstUse', () => {
  interface Port {
    get(key: string): Promise<string>;
  }

  it('loads the adapter on the first call, once, and is not a thenable', async () => {
    const load = vi.fn(async (): Promise<Port> => ({ get: async (key) => `got ${key}` }));
    const port = onFirstUse(load);
    expect(load).not.toHaveBeenCalled();
    expect(await port).toBe(port);
    expect(await port.get('a')).toBe('got a');
    expect(await port.get('b')).toBe('got b');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('tries a failed load again on the next call', async () => {
    const load = vi.fn<() => Promise<Port>>().mockRejectedValueOnce(new Error('import failed')).mockResolvedValue({ get: async () => 'ok' });
    const port = onFirstUse(load);
    await expect(port.get('a')).rejects.toThrow('import failed');
    expect(await port.get('a')).toBe('ok');
  });
});
