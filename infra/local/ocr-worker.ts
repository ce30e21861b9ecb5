import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynamoDocumentClient } from '../../lib/adapters/aws/clients.ts';
import { dynamoUserStore } from '../../lib/adapters/dynamo/users.ts';
import { maxTokenLifetimeSeconds, signToken } from '../../lib/auth/tokens.ts';
import { workerAccount } from '../../lib/auth/worker-account.ts';
import { ensureLedgerTable } from '../../ocr-worker/adapters/ensure-ledger-table.ts';
import { tokenVariable, workerEnvironment } from '../../ocr-worker/lambda/deps.ts';
import type { OcrThreadData } from './ocr-worker-thread.ts';

/**
 * `npm start`'s reference OCR worker (local-runtime.md; README "The reference OCR worker"): a pool of
 * worker threads, one per core, running the worker's own Lambda handlers over the local OCR queue and
 * a local pages queue, reporting through the API's callbacks with the token of a local editor account,
 * exactly as an external worker would. `OCR_WORKER=off` runs none: jobs wait on the OCR queue.
 */
export const ocrWorkerWanted = (): boolean => process.env.OCR_WORKER !== 'off';

export interface LocalOcrWorkerOptions {
  apiUrl: string;
  tableName: string;
  ledgerTable: string;
  ocrQueueUrl: string;
  pagesQueueUrl: string;
  /** The local JWT secret, to sign the worker account's token. */
  secret: string;
  dataDir: string;
  /** Threads; default one per core. */
  threads?: number;
}

/**
 * The worker's editor account (made on the first start; its id is kept in `$DATA_DIR/ocr-worker-user`)
 * and a token for it, signed anew at every start with the longest lifetime a token may have.
 */
async function workerToken(tableName: string, secret: string, dataDir: string): Promise<string> {
  const users = dynamoUserStore({ client: dynamoDocumentClient(), tableName });
  const file = join(dataDir, 'ocr-worker-user');
  const kept = existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
  const user = (kept && (await users.get(kept)) && (await workerAccount(users, kept, new Date()))) || (await workerAccount(users, undefined, new Date()));
  if (user.userId !== kept) writeFileSync(file, user.userId);
  return signToken(secret, user.userId, maxTokenLifetimeSeconds);
}

export async function startLocalOcrWorker(options: LocalOcrWorkerOptions): Promise<{ stop(): Promise<void> }> {
  const client = new DynamoDBClient({});
  await ensureLedgerTable(client, options.ledgerTable);
  client.destroy();
  Object.assign(process.env, {
    [workerEnvironment.ledgerTable]: options.ledgerTable,
    [workerEnvironment.pagesQueueUrl]: options.pagesQueueUrl,
    [workerEnvironment.apiUrl]: options.apiUrl,
    [tokenVariable]: await workerToken(options.tableName, options.secret, options.dataDir),
  });
  const count = Math.max(1, options.threads ?? availableParallelism());
  const threads = Array.from({ length: count }, (_, i) => {
    const workerData: OcrThreadData = {
      entry: new URL('./ocr-worker-thread.ts', import.meta.url).href,
      pagesQueueUrl: options.pagesQueueUrl,
      ...(i === 0 && { ocrQueueUrl: options.ocrQueueUrl }),
    };
    const thread = new Worker(new URL('./thread-boot.mjs', import.meta.url), { workerData });
    thread.on('error', (error) => process.stderr.write(`ocr worker thread: ${error.message}\n`));
    return thread;
  });
  process.stderr.write(`OCR worker: ${count} thread${count === 1 ? '' : 's'} (OCR_WORKER=off runs none)\n`);
  return {
    async stop() {
      await Promise.all(
        threads.map(
          (thread) =>
            new Promise<void>((done) => {
              thread.once('exit', () => done());
              thread.postMessage('stop');
              setTimeout(() => void thread.terminate(), 5_000).unref();
            }),
        ),
      );
    },
  };
}
