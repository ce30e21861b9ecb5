import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { sizingOf } from '../functions.ts';
import { lambdaContext } from './server.ts';

type ScheduledHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

/** How often `npm start` runs the billing worker: often enough that a local invoice shows within seconds. */
export const localBillingIntervalMs = 2_000;

/** The event EventBridge hands a scheduled function. */
const scheduledEvent = (): ScheduledEvent => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '000000000000',
  time: new Date().toISOString(),
  region: 'local',
  resources: ['arn:aws:events:local:000000000000:rule/billing-worker'],
  detail: {},
});

/**
 * The local stand-in for the billing worker's schedule (infra/stack.ts): runs the same handler, one
 * run at a time, every `intervalMs`, each with the time the deployed function has.
 */
export function startScheduledWorker(handler: ScheduledHandler, intervalMs = localBillingIntervalMs): { stop(): Promise<void> } {
  let running = true;
  let pause: { timer: NodeJS.Timeout; wake: () => void } | undefined;
  const timeoutMs = sizingOf('billing-worker').timeoutSeconds * 1000;
  const loop = (async () => {
    while (running) {
      const deadline = Date.now() + timeoutMs;
      const context = { ...lambdaContext('billing-worker', randomUUID()), getRemainingTimeInMillis: () => deadline - Date.now() };
      try {
        await handler(scheduledEvent(), context);
      } catch (error) {
        process.stderr.write(`billing worker: ${(error as Error).message}\n`);
      }
      if (running) await new Promise<void>((wake) => (pause = { timer: setTimeout(wake, intervalMs), wake }));
    }
  })();
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
