import { parentPort, threadId, workerData } from 'node:worker_threads';
import { worstPlanSeconds, worstTaskSeconds } from '../../ocr-worker/lambda/limits.ts';
import { startQueueWorker } from './queue-worker.ts';

/**
 * One thread of `npm start`'s OCR worker pool (infra/local/ocr-worker.ts): the same handlers the
 * OCR queue and the pages queue trigger on AWS, each over its local queue. Every thread takes page
 * tasks; the first also takes job messages. Reading pages (PDF rendering, PNG encoding) is CPU work,
 * kept off the API server's thread.
 */
export interface OcrThreadData {
  entry: string;
  pagesQueueUrl: string;
  /** Only for the thread that plans jobs. */
  ocrQueueUrl?: string;
}

const data = workerData as OcrThreadData;
const { handler: pages } = await import('../../ocr-worker/lambda/pages.ts');
const workers = [startQueueWorker(data.pagesQueueUrl, pages, 'ocr-worker-pages', worstTaskSeconds * 2)];
if (data.ocrQueueUrl) {
  const { handler: job } = await import('../../ocr-worker/lambda/job.ts');
  workers.push(startQueueWorker(data.ocrQueueUrl, job, 'ocr-worker-job', worstPlanSeconds * 2));
}
parentPort!.once('message', () => {
  void Promise.all(workers.map((w) => w.stop())).finally(() => process.exit(0));
});
parentPort!.postMessage({ ready: threadId });
