import { deleteBookAudio, deleteFieldAudio, deleteLineAudio } from '../../lib/audio/deletion.ts';
import { generateBatch, generateOne } from '../../lib/audio/generation.ts';
import { requireField } from '../../lib/audio/generate.ts';
import { listJobs, readJob, startBookJob } from '../../lib/audio/jobs.ts';
import { allAudio, lineAudioList, linesWithAudio } from '../../lib/audio/listing.ts';
import { audioUrl, streamAudio } from '../../lib/audio/playback.ts';
import { audioFields, voices } from '../../lib/audio/voices.ts';
import { audioDeps } from '../_shared/audio-deps.ts';
import { audioContracts, mp3CacheControl } from './contract.ts';
import { httpFunction, signedIn } from '../_shared/http/handler.ts';
import type { HttpResult } from '../_shared/http/responses.ts';

/** `/audio/*` (docs/SPEC.md 4.2): text-to-speech for book lines, its files and whole-book jobs. */
const deps = audioDeps;

/** The MP3 as API Gateway returns binary: base64 with the flag set. */
const mp3 = (bytes: Uint8Array): HttpResult => ({
  statusCode: 200,
  headers: { 'content-type': 'audio/mpeg', 'accept-ranges': 'bytes', 'cache-control': mp3CacheControl },
  body: Buffer.from(bytes).toString('base64'),
  isBase64Encoded: true,
});

export const handler = httpFunction({
  name: 'audio-api',
  authDeps: deps,
  contracts: audioContracts,
  handlers: {
    'GET /audio/voices': { run: async () => ({ voices }) },
    'GET /audio/fields': { run: async () => ({ fields: audioFields }) },
    'POST /audio/{bookId}/generate': {
      run: (request) => startBookJob(deps(), signedIn(request).userId, request.params.bookId, request.body().voice),
    },
    'GET /audio/jobs/{jobId}': { run: (request) => readJob(deps(), request.params.jobId) },
    'GET /audio/jobs': { run: () => listJobs(deps()) },
    'GET /audio/{bookId}/lines-with-audio': {
      run: (request) => linesWithAudio(deps(), request.caller, request.params.bookId, request.query),
    },
    'POST /audio/{bookId}/lines/{lineId}/batch': {
      run: (request) => generateBatch(deps(), request.params, request.body()),
    },
    'POST /audio/{bookId}/lines/{lineId}/{field}': {
      // The path's field before the body's voice (docs/SPEC.md 4.2's order).
      run: (request) => {
        const field = requireField(request.params.field);
        return generateOne(deps(), request.params, field, request.body());
      },
    },
    'GET /audio/{bookId}/lines/{lineId}/{field}/stream': {
      run: async (request) => mp3(await streamAudio(deps(), request.caller, request.params, request.query)),
    },
    'GET /audio/{bookId}/lines/{lineId}/{field}/url': {
      run: (request) => audioUrl(deps(), request.caller, request.params, request.query),
    },
    'GET /audio/{bookId}/lines/{lineId}': {
      run: (request) => lineAudioList(deps(), request.caller, request.params),
    },
    'DELETE /audio/{bookId}/lines/{lineId}/{field}': {
      run: (request) => deleteFieldAudio(deps(), request.params, request.query.voice),
    },
    'DELETE /audio/{bookId}/lines/{lineId}': {
      run: (request) => deleteLineAudio(deps(), request.params),
    },
    'DELETE /audio/{bookId}': { run: (request) => deleteBookAudio(deps(), request.params) },
    'GET /audio/{bookId}/all': {
      run: (request) => allAudio(deps(), request.caller, request.params.bookId, request.query),
    },
  },
});
