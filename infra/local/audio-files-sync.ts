import { Worker } from 'node:worker_threads';

/**
 * `audio-files-sync` over the local audio-file-events queue, for `npm start` and the tests' global
 * setup, in a worker thread of its own: a bucket copied in at once is tens of thousands of HEADs and
 * writes, kept off the thread that serves the API and the SQS stand-in. The thread reads the
 * environment as it is when this is called.
 */
export function startAudioFilesSync(queueUrl: string): { stop(): Promise<void> } {
  const thread = new Worker(new URL('./thread-boot.mjs', import.meta.url), {
    workerData: { entry: new URL('./audio-files-sync-thread.ts', import.meta.url).href, queueUrl },
  });
  thread.on('error', (error) => process.stderr.write(`audio-files-sync thread: ${error.message}\n`));
  const exited = new Promise<void>((done) => thread.once('exit', () => done()));
  return {
    async stop() {
      thread.postMessage('stop');
      setTimeout(() => void thread.terminate(), 5_000).unref();
      await exited;
    },
  };
}
