import './process-setup.ts';
import { parentPort, workerData } from 'node:worker_threads';
import { audioFilesSyncTrigger, triggerVisibilitySeconds } from '../functions.ts';
import { startQueueWorker } from './queue-worker.ts';

/**
 * The thread of audio-files-sync (audio-files-sync.ts): its handler over the local audio-file-events
 * queue, as its trigger takes it on AWS; logs on stderr, no metrics or traces (process-setup.ts).
 */
const { queueUrl } = workerData as { queueUrl: string };
const { handler } = await import('../../functions/audio-files-sync/handler.ts');
const worker = startQueueWorker(queueUrl, handler, 'audio-files-sync', triggerVisibilitySeconds('audio-files-sync'), audioFilesSyncTrigger);
parentPort!.once('message', () => {
  void worker.stop().finally(() => process.exit(0));
});
