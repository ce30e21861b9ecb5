/**
 * `GET /health` (issue 29): each store the service needs, probed with one small read of its own,
 * described to callers in our words (the API document names no SDK call: test/support/fuzz-oracle.ts),
 * within a time bound. The stores and the probes' rules are here; the SDK calls are the function's
 * (functions/health/handler.ts), the grants that allow exactly them infra/permissions.ts's `health-probes`.
 */
export const healthStores = [
  { name: 'table', description: 'The table: a read of a key that is never written.' },
  { name: 'uploads', description: 'The uploads bucket: its location.' },
  { name: 'audio', description: 'The audio bucket: its location.' },
  { name: 'ocrQueue', description: 'The OCR job queue: its attributes.' },
  { name: 'audioQueue', description: 'The audio job queue: its attributes.' },
] as const;

export type HealthStore = (typeof healthStores)[number]['name'];
export type StoreState = 'ok' | 'failed';
export interface Health {
  status: StoreState;
  stores: Record<HealthStore, StoreState>;
}

/** The table's probe key: no code writes it, and the probe's grant allows reading it alone. */
export const healthProbeKey = { pk: 'HEALTH', sk: 'PROBE' } as const;

/** Each probe's time bound: a store that takes longer is failed, so the answer never waits on a stuck one. */
export const probeTimeoutMs = 2_000;

/**
 * Runs every probe at once, each bounded by `timeoutMs`; a probe that throws or takes longer is
 * `failed` (and told to `onFailure`, for the log: the answer says nothing of why).
 */
export async function checkHealth(
  probes: Record<HealthStore, (signal: AbortSignal) => Promise<unknown>>,
  onFailure: (store: HealthStore, error: unknown) => void,
  timeoutMs = probeTimeoutMs,
): Promise<Health> {
  const states = await Promise.all(
    healthStores.map(async ({ name }): Promise<[HealthStore, StoreState]> => {
      const abort = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new Error(`no answer within ${timeoutMs} ms`)); // first: the reason the race reports
          abort.abort(); // then the call itself is given up
        }, timeoutMs);
      });
      try {
        await Promise.race([probes[name](abort.signal), timedOut]);
        return [name, 'ok'];
      } catch (error) {
        onFailure(name, error);
        return [name, 'failed'];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const stores = Object.fromEntries(states) as Record<HealthStore, StoreState>;
  return { status: states.every(([, state]) => state === 'ok') ? 'ok' : 'failed', stores };
}
