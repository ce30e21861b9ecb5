import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { sizingOf, type DeployedFunction } from '../functions.ts';
import { lambdaContext } from './server.ts';
import { stoppable } from './stoppable.ts';

type ScheduledHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

/** The event EventBridge hands a scheduled function. */
const scheduledEvent = (name: DeployedFunction): ScheduledEvent => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '000000000000',
  time: new Date().toISOString(),
  region: 'local',
  resources: [`arn:aws:events:local:000000000000:rule/${name}`],
  detail: {},
});

/**
 * `npm start`'s stand-in for a schedule rule of the stack (infra/stack.ts): runs the function's
 * handler at once and then every `intervalMs`, one run at a time, each with the time the deployed
 * function has (its context's remaining time).
 */
export function startScheduled(name: DeployedFunction, handler: ScheduledHandler, intervalMs: number): { stop(): Promise<void> } {
  const timeoutMs = sizingOf(name).timeoutSeconds * 1000;
  return stoppable(async ({ running, sleep }) => {
    while (running()) {
      const deadline = Date.now() + timeoutMs;
      const context = { ...lambdaContext(name, randomUUID()), getRemainingTimeInMillis: () => deadline - Date.now() };
      try {
        await handler(scheduledEvent(name), context);
      } catch (error) {
        process.stderr.write(`${name}: ${(error as Error).message}\n`);
      }
      if (running()) await sleep(intervalMs);
    }
  });
}
