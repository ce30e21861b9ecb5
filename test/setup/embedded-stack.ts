import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedStores } from '../../infra/local/embedded/index.ts';
import { startAudioFilesSync } from '../../infra/local/audio-files-sync.ts';
import { bucketNotifications, functionEnvironment, names } from '../../infra/local/state.ts';

/** The environment every test worker gets: the embedded stores of this run, and the function settings. */
export interface EmbeddedEnv {
  AWS_ENDPOINT_URL_DYNAMODB: string;
  AWS_ENDPOINT_URL_S3: string;
  AWS_ENDPOINT_URL_SQS: string;
  AWS_REGION: string;
  AWS_ACCESS_KEY_ID: string;
  AWS_SECRET_ACCESS_KEY: string;
  TABLE_NAME: string;
  UPLOADS_BUCKET: string;
  AUDIO_BUCKET: string;
  OCR_QUEUE_URL: string;
  AUDIO_QUEUE_URL: string;
  ADAPTERS: string;
  AUTH_JWT_SECRET: string;
}

declare module 'vitest' {
  // Each variable is also available to tests as inject('NAME'); STACK_ENV holds them all, as JSON.
  export interface ProvidedContext extends EmbeddedEnv {
    STACK_ENV: string;
  }
}

/**
 * Vitest global setup: starts DynamoDB Local, the S3 and the SQS stand-ins once per run, in a fresh
 * temporary directory, on free ports. Workers are forked after this returns, so they inherit the
 * variables set on process.env here.
 */
export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), 'maktaba-test-'));
  const stack = { tableName: 'maktaba-test', uploadsBucket: names.uploadsBucket, audioBucket: names.audioBucket };
  let stores: Awaited<ReturnType<typeof startEmbeddedStores>>;
  try {
    stores = await startEmbeddedStores({
      dataDir,
      tableName: stack.tableName,
      buckets: [stack.uploadsBucket, stack.audioBucket],
      queues: [names.ocrQueue, names.audioQueue, names.announcementQueue, names.audioFileEvents],
      notifications: bucketNotifications,
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  // The same variables `npm start` gives the functions, so tests run the code as it runs there.
  const full = functionEnvironment(
    { ...stack, endpoints: stores.endpoints, queueUrls: stores.queueUrls },
    randomBytes(32).toString('hex'),
  ) as unknown as EmbeddedEnv;
  // Workers inherit this process's environment, which the last project's setup wins (vitest runs
  // every project's global setup first): each worker takes its own project's back (stack-env.ts).
  Object.assign(process.env, full);
  for (const [name, value] of Object.entries(full)) project.provide(name as keyof EmbeddedEnv, value);
  project.provide('STACK_ENV', JSON.stringify(full));
  // As `npm start` does: the record of audio files follows the audio bucket's events, whichever
  // worker writes the bucket.
  const audioFilesSync = startAudioFilesSync(stores.queueUrls[names.audioFileEvents]!);

  return async () => {
    try {
      await audioFilesSync.stop();
      await stores.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
}
