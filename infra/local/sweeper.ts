import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { lambdaContext } from './server.ts';

type ScheduledHandler = (event: unknown, context: Context) => Promise<unknown>;

/**
 * `npm start`'s stand-in for the stack's schedule rule: the `sweeper` handler once at start, then
 * every `everyMinutes`, one run at a time (as the rule's invocations would not overlap in practice).
 */
export function startSweeper(handler: ScheduledHandler, everyMinutes: number): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = running
      .then(() => handler({ source: 'local.schedule' }, lambdaContext('sweeper', randomUUID())))
      .catch((error: Error) => process.stderr.write(`sweeper: ${error.message}\n`));
  };
  run();
  const timer = setInterval(run, everyMinutes * 60 * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
