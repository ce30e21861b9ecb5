import './process-setup.ts';
import { mkdirSync } from 'node:fs';
import { parseOrigins } from '../cors.ts';
import { startEmbeddedStores } from './embedded/index.ts';
import { loadHttpHandlers } from './functions.ts';
import { startLocalServer } from './server.ts';
import { announcementWorkerConcurrency, sweepEveryMinutes } from '../functions.ts';
import { startAudioFilesSync } from './audio-files-sync.ts';
import { startQueueWorker } from './queue-worker.ts';
import { startScheduled } from './schedule.ts';
import { ocrWorkerWanted, startLocalOcrWorker } from './ocr-worker.ts';
import { discardStaleSearchIndex, releaseSearchIndexLock, startSearchIndexer } from './search-index.ts';
import { endLeftoverStores, refuseIfRunning } from './leftovers.ts';
import { thisProcess } from '../../lib/processes.ts';
import { bucketNotifications, dataDir, functionEnvironment, jwtSecret, names, removeStack, searchDbFile, writeStack, type LocalStack } from './state.ts';

/** `npm start`: the whole service on this machine (docs/local-runtime.md). */
const optionalPort = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);

async function main() {
  const dir = dataDir();
  mkdirSync(dir, { recursive: true });
  // After a killed run (issue 29): a stack still running here is named, and its leftover stores ended.
  refuseIfRunning(dir);
  endLeftoverStores(dir);
  const secret = jwtSecret(dir, true);
  // Set once the stack is running: a restarted store's new pid is recorded in local.json, and a store
  // that cannot be kept up stops the whole stack, non-zero, naming it (supervise.ts).
  let running: LocalStack | undefined;
  let stop: (code: number) => Promise<void> = async (code) => process.exit(code);
  // One line per stage before the URL line: the stores alone take seconds (issue 30).
  const stage = (what: string) => process.stderr.write(`npm start: ${what}\n`);
  stage(`starting the embedded stores (DynamoDB Local, S3, SQS) in ${dir}`);
  const stores = await startEmbeddedStores({
    dataDir: dir,
    tableName: names.tableName,
    buckets: [names.uploadsBucket, names.audioBucket],
    queues: [names.ocrQueue, names.audioQueue, names.announcementQueue, names.audioFileEvents, names.ocrPagesQueue],
    ports: { dynamodb: optionalPort('DYNAMODB_PORT'), s3: optionalPort('S3_PORT'), sqs: optionalPort('SQS_PORT') },
    notifications: bucketNotifications,
    onRestart: () => {
      if (running) writeStack(dir, (running = { ...running, processes: stores.pids() }));
    },
    onGiveUp: (reason) => {
      process.stderr.write(`npm start: ${reason}: stopping\n`);
      void stop(1);
    },
  });
  const stack = {
    tableName: names.tableName,
    uploadsBucket: names.uploadsBucket,
    audioBucket: names.audioBucket,
    endpoints: stores.endpoints,
    queueUrls: stores.queueUrls,
  };
  // The search index is a file under DATA_DIR, held by this process: the search-api handler and the indexer share it (searchEngine()).
  Object.assign(process.env, functionEnvironment(stack, secret, { searchDb: searchDbFile(dir) }));
  await releaseSearchIndexLock(dir);
  discardStaleSearchIndex(dir);

  let server: Awaited<ReturnType<typeof startLocalServer>> | undefined;
  const workers: { stop(): Promise<void> }[] = [];
  let stopping = false;
  stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    removeStack(dir);
    await server?.close().catch(() => undefined);
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    await stores.stop().catch((error: Error) => process.stderr.write(`stopping stores: ${error.message}\n`));
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  stage('loading the functions and starting the API');
  try {
    server = await startLocalServer({
      host: process.env.HOST || '127.0.0.1',
      port: Number(process.env.PORT || 3000),
      handlers: await loadHttpHandlers(),
      corsOrigins: parseOrigins(process.env.CORS_ORIGINS),
    });
  } catch (error) {
    process.stderr.write(`npm start: ${(error as Error).message}\n`);
    await stop(1);
    return;
  }
  stage('starting the workers (audio, announcements, audio files, billing, sweeper, search indexer, OCR)');
  // Audio jobs run as on AWS: the audio-worker handler takes the audio queue's messages.
  const { handler } = await import('../../functions/audio-worker/handler.ts');
  workers.push(startQueueWorker(stores.queueUrls[names.audioQueue]!, handler));
  // Announcements fan out as on AWS: the announcement-worker handler takes their queue's steps.
  const announcements = await import('../../functions/announcement-worker/handler.ts');
  workers.push(
    startQueueWorker(stores.queueUrls[names.announcementQueue]!, announcements.handler, 'announcement-worker', undefined, { maxConcurrency: announcementWorkerConcurrency }),
  );
  // The record of audio files follows the bucket as on AWS: audio-files-sync takes the audio bucket's events.
  workers.push(startAudioFilesSync(stores.queueUrls[names.audioFileEvents]!));
  // Overage invoices run as on AWS: the billing-worker handler on a schedule, against the ledger; every
  // 2 seconds rather than AWS's minute, so that a local invoice shows within seconds.
  const billing = await import('../../functions/billing-worker/handler.ts');
  workers.push(startScheduled('billing-worker', billing.handler, 2_000));
  // Unclaimed uploads and abandoned imports are swept as on AWS, on the same schedule.
  const sweeper = await import('../../functions/sweeper/handler.ts');
  workers.push(startScheduled('sweeper', sweeper.handler, sweepEveryMinutes * 60_000));
  // The search index is kept in step with the table as on AWS: the search-indexer handler on the table's
  // stream, polled every 250 ms (a missing index is first built from the table).
  workers.push(startSearchIndexer(dir, names.tableName));
  // OCR jobs are read as on AWS, by the reference worker, unless an external one is wanted.
  if (ocrWorkerWanted()) {
    workers.push(
      await startLocalOcrWorker({
        apiUrl: server.url,
        ledgerTable: names.ocrLedgerTable,
        ocrQueueUrl: stores.queueUrls[names.ocrQueue]!,
        pagesQueueUrl: stores.queueUrls[names.ocrPagesQueue]!,
      }),
    );
  }
  writeStack(dir, (running = { ...thisProcess(), url: server.url, ...stack, processes: stores.pids() }));
  process.stderr.write(`state in ${dir}\n`);
  process.stdout.write(`Maktaba API listening on ${server.url}\n`);
}

main().catch((error: Error) => {
  process.stderr.write(`npm start: ${error.message}\n`);
  process.exit(1);
});
