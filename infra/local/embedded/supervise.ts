/**
 * Keeps an embedded store's child process running (issue 29, item 7): when it exits without being
 * asked to, that is logged at once and a new one is started on the same port (the endpoints that the
 * functions' environment and local.json name stay right). Past `maxRestarts` within `windowMs`, or
 * when a new one cannot start, it gives up and says so through `onGiveUp`: `npm start` then exits
 * non-zero naming the store, rather than serving without it.
 */
export interface StoreProcess {
  pid: number;
  /** Settles, with why, when the process has exited. */
  ended: Promise<string>;
  stop(): Promise<void>;
}

/** What a store's supervision tells its owner: a restart (the new pid), and giving up (why). */
export interface Supervision {
  onRestart?(pid: number): void;
  onGiveUp?(reason: string): void;
}

export interface SuperviseOptions<P extends StoreProcess> {
  /** The store's name in the log, e.g. `the embedded DynamoDB`. */
  name: string;
  relaunch(): Promise<P>;
  onRestart?(process: P): void;
  onGiveUp?(reason: string): void;
  log?(line: string): void;
  maxRestarts?: number;
  windowMs?: number;
}

export interface Supervised<P extends StoreProcess> {
  current(): P;
  stop(): Promise<void>;
}

export function supervise<P extends StoreProcess>(first: P, opts: SuperviseOptions<P>): Supervised<P> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const maxRestarts = opts.maxRestarts ?? 3;
  const windowMs = opts.windowMs ?? 60_000;
  let current = first;
  let stopping = false;
  const restarts: number[] = [];

  const watch = (child: P) =>
    void child.ended.then(async (reason) => {
      if (stopping || child !== current) return;
      const now = Date.now();
      restarts.push(now);
      while (restarts[0]! < now - windowMs) restarts.shift();
      if (restarts.length > maxRestarts) {
        const why = `${opts.name} (pid ${child.pid}) died: ${reason}; it died ${restarts.length} times within ${windowMs / 1000} s, so it is not restarted again`;
        log(why);
        opts.onGiveUp?.(why);
        return;
      }
      log(`${opts.name} (pid ${child.pid}) died: ${reason}; restarting it`);
      try {
        const next = await opts.relaunch();
        if (stopping) {
          await next.stop();
          return;
        }
        current = next;
        log(`${opts.name} restarted (pid ${next.pid})`);
        opts.onRestart?.(next);
        watch(next);
      } catch (error) {
        const why = `${opts.name} (pid ${child.pid}) died: ${reason}; restarting it failed: ${(error as Error).message}`;
        log(why);
        opts.onGiveUp?.(why);
      }
    });
  watch(first);

  return {
    current: () => current,
    stop: async () => {
      stopping = true;
      await current.stop();
    },
  };
}
