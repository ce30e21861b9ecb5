import { describe, expect, it } from 'vitest';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { dynamoAudioFiles } from '../../lib/adapters/dynamo/audio-files.ts';
import { dynamoAudioJobStore } from '../../lib/adapters/dynamo/audio-jobs.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import type { Speech } from '../../lib/audio/speech.ts';
import { planJob, runChunk, type AudioJobMessage, type JobDeps } from '../../lib/audio/jobs.ts';
import { newObjectId, sequentialObjectIds } from '../../lib/ids.ts';
import { testDb, testStores } from '../support/stores.ts';

/** Chunked audio jobs against the real stores: redeliveries count once, and a job never gets stuck. */
const stores = testStores();
const audioJobs = dynamoAudioJobStore(testDb());
let spoken = 0;
const speech: Speech = { synthesize: async () => (spoken++, new Uint8Array([0xff, 0xfb, 0x90, 0x00])) };

async function setUp(lineCount: number) {
  const sent: AudioJobMessage[] = [];
  const deps: JobDeps = {
    books: stores.books,
    audioJobs,
    audio: s3Objects(s3Client(), process.env.AUDIO_BUCKET!),
    audioFiles: dynamoAudioFiles(testDb()),
    speech: async () => speech,
    audioQueue: { send: async (body) => (sent.push(body as AudioJobMessage), { messageId: String(sent.length) }) },
    inbox: stores.inbox,
    now: () => new Date(),
  };
  const at = new Date().toISOString();
  const bookId = newObjectId();
  const lines = sequentialObjectIds(lineCount).map((lineId, i) => ({ bookId, lineId, arabic: `سطر ${i}`, english: `line ${i}`, commentary: '', rootwords: '' }));
  await stores.books.create(
    { bookId, title: 't', author: 'a', ownerId: newObjectId(), contributors: [], visibility: 'public', accessModel: 'free', requiredSubscriptionTier: null, metadata: {}, lineCount, createdAt: at, updatedAt: at },
    lines,
  );
  const jobId = newObjectId();
  await audioJobs.create({ _id: jobId, bookId, voice: 'alloy', status: 'pending', progress: 0, createdAt: at, updatedAt: at, __v: 0 });
  await planJob(deps, jobId);
  const chunks = sent.filter((m): m is Extract<AudioJobMessage, { kind: 'chunk' }> => m.kind === 'chunk');
  return { deps, jobId, chunks };
}

describe('audio job chunks', () => {
  it('plans one message per 20 lines and counts a redelivered chunk once', async () => {
    const { deps, jobId, chunks } = await setUp(45);
    expect(chunks.map((c) => c.lineIds.length)).toEqual([20, 20, 5]);
    const before = spoken;
    await runChunk(deps, chunks[0]!);
    await runChunk(deps, chunks[0]!);
    expect(spoken - before).toBe(40); // the second delivery found every field cached
    expect(await audioJobs.get(jobId)).toMatchObject({ status: 'in_progress', doneLines: 20, progress: 44 });
    await Promise.all([runChunk(deps, chunks[1]!), runChunk(deps, chunks[2]!)]);
    expect(await audioJobs.get(jobId)).toMatchObject({ status: 'completed', progress: 100, doneLines: 45 });
  });

  it('completes the job when the delivery that counted the last chunk died before finishing it', async () => {
    const { deps, jobId, chunks } = await setUp(3);
    // The first delivery counted the chunk, then its worker died.
    await audioJobs.countChunk(jobId, 0, 3, new Date().toISOString());
    expect(await audioJobs.get(jobId)).toMatchObject({ status: 'in_progress', doneLines: 3 });
    await runChunk(deps, chunks[0]!);
    expect(await audioJobs.get(jobId)).toMatchObject({ status: 'completed', progress: 100 });
  });
});
