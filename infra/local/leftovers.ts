import { commandLineOf, isRunning } from '../../lib/processes.ts';
import { recordedStack, type LocalStack } from './state.ts';

/**
 * What a killed `npm start` of this DATA_DIR may have left running (issue 29), dealt with before the
 * next one starts there: a stack still running is refused by name, and a store process that outlived
 * its stack is ended.
 */

/** Whether the recorded stack's process still runs `npm start`'s entry point: a pid reused since is not it. */
const stillRuns = (stack: LocalStack): boolean => isRunning(stack) && /\bstart\.ts\b/.test(commandLineOf(stack.pid) ?? '');

/** Throws, naming it, when an `npm start` of this DATA_DIR is running. */
export function refuseIfRunning(dir: string): void {
  const stack = recordedStack(dir);
  if (stack && stack.pid !== process.pid && stillRuns(stack)) {
    throw new Error(`an npm start of DATA_DIR ${dir} is running already (pid ${stack.pid}, ${stack.url}): stop it, or use another DATA_DIR`);
  }
}

/**
 * Ends the store processes recorded in local.json by a stack that is gone. Each one is ended only
 * while its command line still names this DATA_DIR: the pid is not taken for another program's.
 * (DynamoDB Local also exits by itself once its parent is gone, embedded/java/DynamoDbLoopback.java,
 * and the S3 stand-in when its stdin closes; this is for a Java that cannot run that launcher.)
 */
export function endLeftoverStores(dir: string, log: (line: string) => unknown = (line) => process.stderr.write(`${line}\n`)): void {
  const stack = recordedStack(dir);
  if (!stack?.processes || stillRuns(stack)) return;
  for (const [store, pid] of Object.entries(stack.processes)) {
    if (!commandLineOf(pid)?.includes(dir)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      log(`ended the ${store} store (pid ${pid}) left running by an npm start of this DATA_DIR that was killed`);
    } catch {
      // it ended meanwhile
    }
  }
}
