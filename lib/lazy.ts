/**
 * The one way to build a thing once. In a Lambda container "once" means once per cold start:
 * what is built is kept across invocations.
 */

/** A value built on first use and kept for the life of the container. */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

/**
 * An async value built on first use; concurrent callers share one build. A failed build is
 * forgotten, so the next call tries again: a secret read or an import that failed once (throttling,
 * a network blip) must not fail every request of the container. `forget()` drops a built value that
 * has gone bad (a crashed engine), so the next call builds a new one.
 */
export function onceAsync<T>(build: () => Promise<T>): (() => Promise<T>) & { forget(): void } {
  let built: Promise<T> | undefined;
  const get = (): Promise<T> => {
    if (built) return built;
    const building = build().catch((error: unknown) => {
      if (built === building) built = undefined; // unless forgotten and rebuilt meanwhile
      throw error;
    });
    return (built = building);
  };
  return Object.assign(get, { forget: () => void (built = undefined) });
}

/**
 * A port whose adapter is loaded on first use (by onceAsync, so a failed load is tried again). The
 * Lambda bundles are split (infra/bundle.ts), so an SDK that only some routes need is loaded by the
 * first request that needs it instead of by every cold start. Only for ports whose members are all
 * async methods.
 */
export function onFirstUse<T extends object>(load: () => Promise<T>): T {
  const adapter = onceAsync(load);
  return new Proxy({} as T, {
    get(_, name) {
      // Not a thenable: awaiting the port itself must not call `then` on the adapter.
      if (name === 'then') return undefined;
      return async (...args: unknown[]) => {
        const loaded = (await adapter()) as Record<string | symbol, (...a: unknown[]) => Promise<unknown>>;
        return loaded[name]!(...args);
      };
    },
  });
}
