import { Worker } from 'node:worker_threads';
import type { OcrThreadData } from './ocr-worker-thread.ts';

/**
 * The process of `npm start`'s OCR worker (infra/local/ocr-worker.ts): its pool of threads, each
 * running the worker's Lambda handlers over the local queues. It ends when told, or when the
 * service's process is gone (its IPC channel closes), so a killed `npm start` leaves no worker.
 */
export interface OcrHostData {
  threads: number;
  pagesQueueUrl: string;
  ocrQueueUrl: string;
}

const data = JSON.parse(process.argv[2]!) as OcrHostData;
const threads = Array.from({ length: data.threads }, (_, i) => {
  const workerData: OcrThreadData = {
    entry: new URL('./ocr-worker-thread.ts', import.meta.url).href,
    pagesQueueUrl: data.pagesQueueUrl,
    ...(i === 0 && { ocrQueueUrl: data.ocrQueueUrl }),
  };
  const thread = new Worker(new URL('./thread-boot.mjs', import.meta.url), { workerData });
  thread.on('error', (error) => process.stderr.write(`ocr worker thread: ${error.message}\n`));
  return thread;
});

async function stop(): Promise<never> {
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
  process.exit(0);
}

process.once('message', () => void stop());
process.once('disconnect', () => void stop());
process.send!({ ready: threads.length });
