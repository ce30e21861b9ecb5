/**
 * The one retry rule (issue 16): a call is tried at most `attempts` times; before retry `n` it waits
 * up to `baseDelayMs × 2^(n-1)`, at most `maxDelayMs`, a random part of that with full jitter (so
 * racers spread out). Only what the policy calls retryable is tried again; anything else is thrown
 * at once. The kinds of retry the code has are the named policies below.
 *
 * Retries that keep their own rules, on purpose: Stripe's SDK (`maxNetworkRetries`, it reuses the
 * call's idempotency key), the billing worker's schedule (minutes apart and persisted in the outbox,
 * lib/billing/invoicing.ts), the OCR worker's calls to the service (ocr-worker/client/http-api.ts,
 * waits sized for a service restart), and the waits for a table or a local stand-in to come up
 * (deadlines on a state, not retries of a call).
 */

export interface Backoff {
  /** Tries in all, the first included. */
  attempts: number;
  /** The longest wait before the first retry; it doubles for each next one. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** 'full': a random wait from 0 to the bound; 'none': the bound itself. */
  jitter: 'full' | 'none';
}

export interface RetryPolicy<T, R extends T = T> extends Backoff {
  /** An error worth another try; any other is thrown at once. Default: none is. */
  retryable?: (error: unknown) => boolean;
  /** Retry until a result passes this (a type guard narrows the answer to R); the others are tried again. Default: any result does. */
  until?: ((result: T) => result is R) | ((result: T) => boolean);
  /** When set, running out of attempts throws a RetriesExhausted with this message, not the last error. */
  gaveUp?: string;
}

/** Every attempt failed: a result that never met the policy's `until`, or, with `gaveUp`, the last error (its cause). */
export class RetriesExhausted extends Error {
  override name = 'RetriesExhausted';
  constructor(
    message: string,
    readonly attempts: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** How retries wait and draw their jitter: injectable, so a test runs in milliseconds. */
export interface RetryClock {
  sleep(ms: number): Promise<void>;
  random(): number;
}

const realClock: RetryClock = { sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), random: Math.random };

export const policies = {
  /** DynamoDB transactions and conditional writes colliding with racing ones: random, doubling waits spread the racers. */
  contention: { attempts: 13, baseDelayMs: 40, maxDelayMs: 1_280, jitter: 'full' },
  /** Items a BatchWriteItem/BatchGetItem left unprocessed (throughput): back off as DynamoDB asks, then fail loudly. */
  unprocessedItems: { attempts: 9, baseDelayMs: 50, maxDelayMs: 2_000, jitter: 'none' },
  /** A provider throttling or failing for a moment (Polly): AWS's recommended exponential backoff with full jitter. */
  throttling: { attempts: 5, baseDelayMs: 100, maxDelayMs: 5_000, jitter: 'full' },
  /**
   * A store or provider failing for a while (an audio job's storage down): waits of up to 1, 2, 4, 8,
   * 8 s (23 s at most, with full jitter about half that) inside the step, which keeps a chunk of
   * 20 lines, 4 at a time, within the worker's 300 s even when every line waits them all; a longer
   * outage is the queue's to wait out (its redeliveries), then the sweeper's (lib/audio/stalled.ts).
   */
  outage: { attempts: 6, baseDelayMs: 1_000, maxDelayMs: 8_000, jitter: 'full' },
  /** A stored text replaced while being read: its record names the newer one at once, so read again without waiting. */
  textRead: { attempts: 3, baseDelayMs: 0, maxDelayMs: 0, jitter: 'none' },
} as const satisfies Record<string, Backoff>;

/** The wait before retry `retry` (1 for the first). */
export function retryDelay(backoff: Backoff, retry: number, random: () => number = Math.random): number {
  const bound = Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** (retry - 1));
  return backoff.jitter === 'full' ? random() * bound : bound;
}

/** Runs `run(attempt)` (1 for the first) under the policy: its result, or the error that ended the tries. */
export async function retry<T, R extends T = T>(
  run: (attempt: number) => Promise<T>,
  policy: RetryPolicy<T, R>,
  clock: RetryClock = realClock,
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1) await clock.sleep(retryDelay(policy, attempt - 1, clock.random));
    const last = attempt >= policy.attempts;
    let result: T;
    try {
      result = await run(attempt);
    } catch (error) {
      if (!policy.retryable?.(error)) throw error;
      if (!last) continue;
      if (policy.gaveUp) throw new RetriesExhausted(policy.gaveUp, attempt, { cause: error });
      throw error;
    }
    if (!policy.until || policy.until(result)) return result as R;
    if (last) throw new RetriesExhausted(policy.gaveUp ?? `No acceptable result after ${attempt} attempts`, attempt);
  }
}
