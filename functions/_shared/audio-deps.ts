import { dynamoAudioFiles } from '../../lib/adapters/dynamo/audio-files.ts';
import { dynamoAudioJobStore } from '../../lib/adapters/dynamo/audio-jobs.ts';
import { dynamoBookStore } from '../../lib/adapters/dynamo/books.ts';
import { once } from '../../lib/lazy.ts';
import { deps as coreDeps } from './deps.ts';
import { bucketObjects } from './buckets.ts';
import { sqsQueueAt } from './queues.ts';
import { speechAdapter } from './adapters/speech.ts';
import { notifyDeps } from './notify-deps.ts';

/** What audio-api and audio-worker work with: books, audio jobs, the audio bucket, speech and the audio queue. */
export const audioDeps = once(() => {
  const core = coreDeps();
  return {
    ...core,
    books: dynamoBookStore(core.db),
    audioJobs: dynamoAudioJobStore(core.db),
    audio: bucketObjects(core.config.audioBucket),
    audioFiles: dynamoAudioFiles(core.db),
    speech: speechAdapter,
    audioQueue: sqsQueueAt(core.config.audioQueueUrl),
    inbox: notifyDeps(),
  };
});
