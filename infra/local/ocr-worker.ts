import { fork } from 'node:child_process';
import { availableParallelism, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureLedgerTable } from '../../ocr-worker/adapters/ensure-ledger-table.ts';
import { chosenEngine, engineName } from '../../ocr-worker/engine/choose-engine.ts';
import { workerEnvironment } from '../../ocr-worker/lambda/deps.ts';
import type { OcrHostData } from './ocr-worker-host.ts';

/** The worker's niceness: below the API's, so that reading pages never slows an answer. */
const workerNiceness = 10;

/**
 * `npm start`'s reference OCR worker (docs/ocr-worker.md "The reference OCR worker"): a process of its own with a
 * pool of worker threads, one per core, running the worker's own Lambda handlers over the local OCR queue and
 * a local pages queue, reporting through the API's callbacks with each job's own credential (carried
 * by its message), exactly as on AWS: it holds no token. `OCR_WORKER=off` runs none: jobs wait on the OCR queue.
 */
export const ocrWorkerWanted = (): boolean => process.env.OCR_WORKER !== 'off';

export interface LocalOcrWorkerOptions {
  apiUrl: string;
  ledgerTable: string;
  ocrQueueUrl: string;
  pagesQueueUrl: string;
  /** Threads; default one per core. */
  threads?: number;
}

export async function startLocalOcrWorker(options: LocalOcrWorkerOptions): Promise<{ stop(): Promise<void> }> {
  const client = new DynamoDBClient({});
  await ensureLedgerTable(client, options.ledgerTable);
  client.destroy();
  const count = Math.max(1, options.threads ?? availableParallelism());
  // Chosen here as the worker's threads choose it (the same PATH and OCR_ENGINE), to say it, and to fail at once on a bad OCR_ENGINE.
  const engine = engineName(chosenEngine());
  const hostData: OcrHostData = { threads: count, pagesQueueUrl: options.pagesQueueUrl, ocrQueueUrl: options.ocrQueueUrl };
  // A process of its own, not threads of the API's: a hostile file costs the worker, never the API's
  // memory or event loop; and a lower priority, so that the API wins the cores while pages are read.
  const host = fork(fileURLToPath(new URL('./ocr-worker-host.ts', import.meta.url)), [JSON.stringify(hostData)], {
    env: {
      ...process.env,
      [workerEnvironment.ledgerTable]: options.ledgerTable,
      [workerEnvironment.pagesQueueUrl]: options.pagesQueueUrl,
      [workerEnvironment.apiUrl]: options.apiUrl,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    if (host.pid !== undefined) setPriority(host.pid, workerNiceness);
  } catch {
    // Not permitted on this machine: the worker runs at the API's priority.
  }
  await new Promise<void>((ready, failed) => {
    host.once('message', () => ready());
    host.once('exit', (code) => failed(new Error(`the OCR worker stopped as it started (exit ${code})`)));
  });
  process.stderr.write(`OCR worker: ${count} thread${count === 1 ? '' : 's'} in process ${host.pid}, reading with ${engine} (OCR_WORKER=off runs none; OCR_ENGINE=tesseract.js or native chooses)\n`);
  return {
    async stop() {
      if (host.exitCode !== null || host.signalCode !== null) return;
      await new Promise<void>((done) => {
        host.once('exit', () => done());
        host.send('stop');
        setTimeout(() => host.kill('SIGKILL'), 10_000).unref();
      });
    },
  };
}
