/** What a loop of `npm start` sees: whether it should go on, and a wait that stop() cuts short. */
export interface LoopControl {
  running(): boolean;
  sleep(ms: number): Promise<void>;
}

/**
 * Runs `body` (a loop that checks `running()` and waits with `sleep`) until stopped: stop() ends the
 * current wait at once and resolves when the loop has ended (schedule.ts, stream-poller.ts).
 */
export function stoppable(body: (control: LoopControl) => Promise<void>): { stop(): Promise<void> } {
  let running = true;
  let pause: { timer: NodeJS.Timeout; wake: () => void } | undefined;
  const loop = body({
    running: () => running,
    sleep: (ms) => new Promise<void>((wake) => (pause = { timer: setTimeout(wake, ms), wake })),
  });
  return {
    async stop() {
      running = false;
      if (pause) {
        clearTimeout(pause.timer);
        pause.wake();
      }
      await loop;
    },
  };
}
