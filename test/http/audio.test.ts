import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as audioWorker } from '../../functions/audio-worker/handler.ts';
import { startQueueWorker } from '../../infra/local/queue-worker.ts';
import { type SeedOutput } from '../../infra/local/seed.ts';
import { newObjectId } from '../../lib/ids.ts';
import { startApi, seedAccounts } from '../support/api.ts';
import { testDb, testStores } from '../support/stores.ts';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { dynamoAudioFiles } from '../../lib/adapters/dynamo/audio-files.ts';
import { audioKey, contentHash } from '../../lib/audio/audio-key.ts';

/** `/audio/*` through HTTP (docs/SPEC.md 4.2), with the local speech adapter (espeak-ng) and the local audio worker. */
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let worker: { stop(): Promise<void> };
let fx: SeedOutput;
const user = (key: string) => fx.users[key]!;
const book = (key: string) => fx.books[key]!;

beforeAll(async () => {
  api = await startApi();
  worker = startQueueWorker(process.env.AUDIO_QUEUE_URL!, audioWorker);
  fx = await seedAccounts(
    stores,
    {
      users: [
        { key: 'ed', username: 'ed', role: 'editor' },
        { key: 'ad', username: 'ad', role: 'admin' },
        { key: 'cara', username: 'cara' },
        { key: 'con', username: 'con' },
        { key: 'mo', username: 'mo' },
        { key: 'fan', username: 'fan', creatorSubscriptions: [{ creator: 'cara', tier: 'gold' }] },
        { key: 'silver', username: 'silver', creatorSubscriptions: [{ creator: 'cara', tier: 'silver' }] },
        { key: 'gone', username: 'gone' },
      ],
      books: [
        {
          key: 'pub',
          owner: 'cara',
          title: 'Forty Hadith',
          author: 'an-Nawawi',
          lines: [
            { arabic: 'إنما الأعمال بالنيات', english: 'Actions are by intentions', commentary: 'The first hadith.' },
            { arabic: 'الدين النصيحة', english: 'Religion is sincerity' },
            { arabic: 'من حسن إسلام المرء تركه ما لا يعنيه', english: '' },
          ],
        },
        { key: 'priv', owner: 'cara', title: 'Notes', author: 'cara', visibility: 'private', contributors: ['con'], lines: [{ arabic: 'سر', english: 'secret' }] },
        { key: 'paid', owner: 'cara', title: 'Gold', author: 'cara', accessModel: 'creator_subscription', requiredSubscriptionTier: 'gold', lines: [{ arabic: 'ذهب', english: 'gold' }] },
      ],
    },
  );
  await stores.users.delete(user('gone').userId);
}, 60_000);
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

const line = (key: string, n = 0) => `/audio/${book(key).bookId}/lines/${book(key).lineIds[n]}`;
const as = (key?: string) => (key ? { token: user(key).token } : {});

describe('voices and fields', () => {
  it('lists the six voices and the three fields without a token', async () => {
    const voices = await api.call('GET', '/audio/voices');
    expect(voices.body.voices.map((v: { id: string }) => v.id)).toEqual(['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer']);
    expect(Object.keys(voices.body.voices[0]).sort()).toEqual(['description', 'id', 'name']);
    expect((await api.call('GET', '/audio/fields')).body).toEqual({ fields: ['arabic', 'english', 'commentary'] });
  });
});

describe('editor endpoints: auth', () => {
  it('answers 401/403 in plain text and 404 in plain text for a user that is gone', async () => {
    expect(await api.call('POST', `${line('pub')}/arabic`)).toMatchObject({ status: 401, body: 'Unauthorized: No token provided' });
    expect(await api.call('POST', `${line('pub')}/arabic`, { token: 'bad' })).toMatchObject({ status: 403, body: 'Forbidden: Invalid token' });
    expect(await api.call('DELETE', line('pub'), as('cara'))).toMatchObject({ status: 403, body: 'Forbidden: You do not have the required permissions' });
    expect(await api.call('GET', '/audio/jobs', as('gone'))).toMatchObject({ status: 404, body: 'User not found' });
  });
});

describe('generating one field', () => {
  it('speaks, stores and signs the field, then serves it from the cache', async () => {
    const first = await api.call('POST', `${line('pub')}/ARABIC`, { ...as('ed'), body: {} });
    expect(first).toMatchObject({ status: 200, body: { success: true, field: 'arabic', voice: 'alloy', cached: false, message: expect.any(String) } });
    expect(first.body.storageKey).toMatch(new RegExp(`^${book('pub').bookId}/${book('pub').lineIds[0]}/arabic/alloy_[0-9a-f]+\\.mp3$`));
    const mp3 = await fetch(first.body.audioUrl);
    expect(mp3.status).toBe(200);
    expect((await mp3.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const again = await api.call('POST', `${line('pub')}/arabic`, { ...as('ad'), body: { voice: 'alloy' } });
    expect(again.body).toMatchObject({ cached: true, storageKey: first.body.storageKey });
  });

  it('validates field and voice with the lists, and answers 404 and 500 per the spec', async () => {
    expect(await api.call('POST', `${line('pub')}/latin`, { ...as('ed'), body: {} })).toMatchObject({
      status: 400,
      body: { availableFields: ['arabic', 'english', 'commentary'] },
    });
    expect(await api.call('POST', `${line('pub')}/arabic`, { ...as('ed'), body: { voice: 'robot' } })).toMatchObject({
      status: 400,
      body: { availableVoices: ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'] },
    });
    expect((await api.call('POST', `/audio/${newObjectId()}/lines/${newObjectId()}/arabic`, { ...as('ed'), body: {} })).status).toBe(404);
    expect(await api.call('POST', `/audio/not-an-id/lines/x/arabic`, { ...as('ed'), body: {} })).toMatchObject({ status: 500, body: { details: expect.any(String) } });
    // The third line has no English text.
    expect(await api.call('POST', `${line('pub', 2)}/english`, { ...as('ed'), body: {} })).toMatchObject({ status: 500, body: { error: expect.any(String), details: expect.stringMatching(/empty/) } });
  });
});

describe('batch', () => {
  it('generates arabic and english by default, then reports them cached; per-field errors do not fail the call', async () => {
    const first = await api.call('POST', `${line('pub', 1)}/batch`, { ...as('ed'), body: { voice: 'nova' } });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body.results).sort()).toEqual(['arabic', 'english']);
    expect(first.body).not.toHaveProperty('errors');
    const second = await api.call('POST', `${line('pub', 1)}/batch`, { ...as('ed'), body: { voice: 'nova' } });
    expect(second.body.results.arabic.cached).toBe(true);
    expect(second.body.results.english.cached).toBe(true);

    const partial = await api.call('POST', `${line('pub', 2)}/batch`, { ...as('ed'), body: { fields: ['arabic', 'english', 'commentary'] } });
    expect(Object.keys(partial.body.results)).toEqual(['arabic']);
    expect(Object.keys(partial.body.errors).sort()).toEqual(['commentary', 'english']);
    const rejected = await api.call('POST', `${line('pub', 1)}/batch`, { ...as('ed'), body: { voice: 'robot', fields: ['arabic'] } });
    expect(rejected.body.errors.arabic).toMatch(/robot/);
  });

  it('answers 400 with invalidFields and 500 for fields that are not strings', async () => {
    expect(await api.call('POST', `${line('pub')}/batch`, { ...as('ed'), body: { fields: ['arabic', 'latin'] } })).toMatchObject({
      status: 400,
      body: { invalidFields: ['latin'], availableFields: ['arabic', 'english', 'commentary'] },
    });
    expect((await api.call('POST', `${line('pub')}/batch`, { ...as('ed'), body: { fields: 'arabic' } })).status).toBe(500);
  });
});

describe('reading audio', () => {
  it('streams existing audio to anyone, 404 before it exists, and generates on demand for editors', async () => {
    const path = `${line('pub', 1)}/commentary/stream`;
    expect(await api.call('GET', `${line('pub')}/english/stream`)).toMatchObject({ status: 404, body: { error: 'Audio has not been generated for this line' } });
    await api.call('POST', `${line('pub')}/english`, { ...as('ed'), body: {} });
    const res = await fetch(`${api.url}${line('pub')}/english/stream`, { headers: { range: 'bytes=0-10', authorization: 'Bearer nonsense' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('cache-control')).toBe('max-age=31536000');
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    expect(await api.call('GET', `${line('pub')}/english/stream?voice=robot`)).toMatchObject({ status: 400, body: { error: 'Invalid field or voice' } });
    // Line 1 has no commentary: the editor's on-demand generation fails with a 500.
    expect((await api.call('GET', path, as('ed'))).status).toBe(500);
  });

  it('signs a URL for the lifetime asked, generating on demand only for editors', async () => {
    const mo = await api.call('GET', `${line('pub')}/commentary/url?voice=echo`, as('mo'));
    expect(mo).toMatchObject({ status: 404, body: { error: 'Audio has not been generated for this line' } });
    const ed = await api.call('GET', `${line('pub')}/commentary/url?voice=echo&expires=120`, as('ed'));
    expect(ed.body).toMatchObject({ success: true, field: 'commentary', voice: 'echo', expiresIn: 120, cached: false });
    expect(ed.body.audioUrl).toContain('X-Amz-Expires=120');
    const anon = await api.call('GET', `${line('pub')}/commentary/url?voice=echo`);
    expect(anon.body).toMatchObject({ cached: true, expiresIn: 3600 });
    expect((await fetch(anon.body.audioUrl)).status).toBe(200);
  });

  it('lists lines with audio for a voice without generating, and every file of a line', async () => {
    const res = await api.call('GET', `/audio/${book('pub').bookId}/lines-with-audio`);
    expect(res.body).toMatchObject({ success: true, bookId: book('pub').bookId, bookTitle: 'Forty Hadith', voice: 'alloy' });
    expect(res.body.lines).toHaveLength(3);
    expect(res.body.lines[0].fields.arabic).toMatchObject({ text: 'إنما الأعمال بالنيات', hasAudio: true, audioUrl: expect.any(String) });
    expect(res.body.lines[1].fields.arabic).toMatchObject({ hasAudio: false, audioUrl: null });
    expect((await api.call('GET', `/audio/${book('pub').bookId}/lines-with-audio?voice=NOVA`)).body.lines[1].fields.arabic.hasAudio).toBe(true);
    // A voice that is none of the six has no audio, however long its name (it never becomes a key).
    const unknown = await api.call('GET', `/audio/${book('pub').bookId}/lines-with-audio?voice=${'x'.repeat(3000)}`);
    expect(unknown.status).toBe(200);
    expect(unknown.body.lines.every((l: { fields: { arabic: { hasAudio: boolean } } }) => !l.fields.arabic.hasAudio)).toBe(true);
    expect((await api.call('GET', `/audio/${book('pub').bookId}/all?voice=${'x'.repeat(3000)}`)).body).toMatchObject({ totalFiles: 0, lines: [] });

    const list = await api.call('GET', line('pub'));
    expect(list.body.lineContent).toEqual({ arabic: 'إنما الأعمال بالنيات', english: 'Actions are by intentions', commentary: 'The first hadith.', rootwords: '' });
    expect(list.body.audioFiles.map((f: { field: string; voice: string }) => `${f.field}/${f.voice}`).sort()).toEqual(['arabic/alloy', 'commentary/echo', 'english/alloy']);
    expect(list.body.audioFiles[0]).toMatchObject({ contentHash: expect.any(String), size: expect.any(Number), lastModified: expect.any(String), url: expect.any(String) });
  });

  it('lists all audio of a book by field and voice, only lines with files', async () => {
    const all = await api.call('GET', `/audio/${book('pub').bookId}/all`);
    expect(all.body).toMatchObject({ success: true, requestedFields: ['arabic', 'english', 'commentary'] });
    expect(all.body.lines.map((l: { lineId: string }) => l.lineId)).toEqual(book('pub').lineIds);
    const nova = await api.call('GET', `/audio/${book('pub').bookId}/all?fields=ARABIC&voice=nova`);
    expect(nova.body.totalFiles).toBe(1);
    expect(nova.body.lines[0].audio.arabic[0]).toMatchObject({ voice: 'nova', url: expect.stringContaining('X-Amz-Expires=7200') });
    expect(await api.call('GET', `/audio/${book('pub').bookId}/all?fields=arabic,latin`)).toMatchObject({
      status: 400,
      body: { invalidFields: ['latin'], availableFields: ['arabic', 'english', 'commentary'] },
    });
  });
});

describe('the record of a book\'s audio files', () => {
  it('follows the bucket when others store or remove a file, and is put right when a file is next asked for', async () => {
    const bucket = s3Objects(s3Client(), process.env.AUDIO_BUCKET!);
    const record = dynamoAudioFiles(testDb());
    const { bookId, lineIds } = book('pub');
    const third = (await stores.books.lines(bookId))[2]!;
    const key = audioKey(bookId, third.lineId, 'arabic', 'shimmer', contentHash(third, 'shimmer'));
    const shimmer = async () => (await api.call('GET', `/audio/${bookId}/lines-with-audio?voice=shimmer`)).body.lines[2].fields.arabic.hasAudio;
    const shown = async (expected: boolean) => {
      for (let tries = 0; (await shimmer()) !== expected; tries++) {
        if (tries === 60) throw new Error(`lines-with-audio did not show hasAudio ${expected} within 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };

    // Stored by someone else: the bucket's event records it (audio-files-sync, run by the global setup).
    await bucket.put(key, new Uint8Array([0xff, 0xfb, 0x90, 0x00]), 'audio/mpeg');
    await shown(true);
    expect((await api.call('GET', `/audio/${bookId}/all?voice=shimmer`)).body.totalFiles).toBe(1);

    // Missing from the record (a crash between a put and its record, an event lost): recorded when next asked for.
    await record.forget([key]);
    expect(await shimmer()).toBe(false);
    expect((await api.call('GET', `/audio/${bookId}/lines/${lineIds[2]}/arabic/url?voice=shimmer`)).body).toMatchObject({ cached: true });
    expect(await shimmer()).toBe(true);

    // Deleted by someone else: the bucket's event forgets it.
    await bucket.delete(key);
    await shown(false);
    expect((await api.call('GET', `/audio/${bookId}/all?voice=shimmer`)).body.totalFiles).toBe(0);

    // Recorded with no file behind it (no event will ever name it): forgotten when next asked for.
    await record.record([{ key, size: 4, lastModified: new Date().toISOString() }]);
    expect(await shimmer()).toBe(true);
    expect((await api.call('GET', `/audio/${bookId}/lines/${lineIds[2]}/arabic/url?voice=shimmer`)).status).toBe(404);
    expect(await shimmer()).toBe(false);
  }, 90_000);
});

describe('read access', () => {
  it('hides a private book (404) from all but its owner, contributors and admins', async () => {
    const path = `/audio/${book('priv').bookId}/lines-with-audio`;
    for (const who of [undefined, 'mo', 'ed']) expect((await api.call('GET', path, as(who))).status).toBe(404);
    for (const who of ['cara', 'con', 'ad']) expect((await api.call('GET', path, as(who))).status).toBe(200);
    // An invalid token counts as anonymous here.
    expect((await api.call('GET', path, { token: 'bad' })).status).toBe(404);
  });

  it('answers 402 with the subscription body on a subscriber-only book, unless subscribed at the tier', async () => {
    const path = `/audio/${book('paid').bookId}/all`;
    const res = await api.call('GET', path, as('silver'));
    expect(res).toMatchObject({
      status: 402,
      body: {
        requiresSubscription: true,
        message: expect.any(String),
        contentType: 'book',
        contentId: book('paid').bookId,
        requiredSubscriptionTier: 'gold',
        creator: { _id: user('cara').userId, username: 'cara' },
      },
    });
    expect((await api.call('GET', path)).status).toBe(402);
    for (const who of ['fan', 'cara', 'ad']) expect((await api.call('GET', path, as(who))).status).toBe(200);
  });
});

describe('every read endpoint', () => {
  const reads = (bookId: string, lineId: string) => [
    `/audio/${bookId}/lines-with-audio`,
    `/audio/${bookId}/lines/${lineId}`,
    `/audio/${bookId}/lines/${lineId}/arabic/url`,
    `/audio/${bookId}/all`,
  ];

  it('answers 404 for an unknown book, a private book and an unknown line; 402 on a subscriber-only book', async () => {
    for (const path of reads(newObjectId(), newObjectId())) expect((await api.call('GET', path)).status, path).toBe(404);
    for (const path of reads(book('priv').bookId, book('priv').lineIds[0]!)) expect((await api.call('GET', path, as('mo'))).status, path).toBe(404);
    for (const path of reads(book('paid').bookId, book('paid').lineIds[0]!)) {
      expect(await api.call('GET', path, as('mo')), path).toMatchObject({ status: 402, body: { requiresSubscription: true, contentType: 'book' } });
    }
    expect((await api.call('GET', `/audio/${book('pub').bookId}/lines/${newObjectId()}`)).status).toBe(404);
    expect((await api.call('GET', `/audio/${book('pub').bookId}/lines/${newObjectId()}/arabic/stream`)).status).toBe(404);
    expect((await api.call('GET', `/audio/${newObjectId()}/lines/${newObjectId()}/arabic/stream`)).status).toBe(404);
  });

  it('lets the stream through on a private or subscriber-only book, as the spec checks no read access there', async () => {
    await api.call('POST', `${line('paid')}/arabic`, { ...as('ed'), body: {} });
    expect((await api.call('GET', `${line('paid')}/arabic/stream`)).status).toBe(200);
  });

  it('needs an editor or admin for generation, jobs and deletes', async () => {
    const editorOnly: [string, string][] = [
      ['POST', `/audio/${book('pub').bookId}/generate`],
      ['GET', '/audio/jobs'],
      ['GET', `/audio/jobs/${newObjectId()}`],
      ['POST', `${line('pub')}/batch`],
      ['POST', `${line('pub')}/arabic`],
      ['DELETE', `${line('pub')}/arabic`],
      ['DELETE', line('pub')],
      ['DELETE', `/audio/${book('pub').bookId}`],
    ];
    for (const [method, path] of editorOnly) {
      expect((await api.call(method, path)).status, `${method} ${path}`).toBe(401);
      expect(await api.call(method, path, as('cara')), `${method} ${path}`).toMatchObject({ status: 403, body: 'Forbidden: You do not have the required permissions' });
    }
  });
});

describe('deleting audio', () => {
  it('deletes one voice (1), a whole field ("all"), a line and a book (counts)', async () => {
    await api.call('POST', `${line('pub')}/arabic`, { ...as('ed'), body: { voice: 'onyx' } });
    expect((await api.call('DELETE', `${line('pub')}/arabic?voice=onyx`, as('ed'))).body).toMatchObject({ success: true, deletedFiles: 1 });
    expect((await api.call('DELETE', `${line('pub')}/english`, as('ed'))).body).toMatchObject({ deletedFiles: 'all' });
    expect((await api.call('GET', line('pub'))).body.audioFiles.map((f: { field: string }) => f.field).sort()).toEqual(['arabic', 'commentary']);
    expect((await api.call('DELETE', line('pub'), as('ed'))).body).toMatchObject({ deletedFiles: 2 });
    const rest = (await api.call('GET', `/audio/${book('pub').bookId}/all`)).body.totalFiles;
    expect((await api.call('DELETE', `/audio/${book('pub').bookId}`, as('ad'))).body).toMatchObject({ deletedFiles: rest });
    expect((await api.call('GET', `/audio/${book('pub').bookId}/all`)).body.totalFiles).toBe(0);
    expect((await api.call('DELETE', `/audio/${newObjectId()}`, as('ed'))).status).toBe(404);
  });
});

describe('audio jobs', () => {
  it('answers at once with a pending job that the worker runs to completed 100', async () => {
    const started = await api.call('POST', `/audio/${book('pub').bookId}/generate`, { ...as('ed'), body: { voice: 'shimmer' } });
    expect(started).toMatchObject({ status: 200, body: { success: true, jobId: expect.any(String) } });
    let job;
    for (let i = 0; i < 120; i++) {
      job = (await api.call('GET', `/audio/jobs/${started.body.jobId}`, as('ed'))).body;
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(job).toEqual({
      _id: started.body.jobId,
      bookId: book('pub').bookId,
      voice: 'shimmer',
      status: 'completed',
      progress: 100,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      __v: 0,
    });
    // Every non-empty field was spoken (the empty ones were skipped and counted).
    const files = (await api.call('GET', `/audio/${book('pub').bookId}/all?voice=shimmer`)).body.totalFiles;
    expect(files).toBe(6);

    const list = await api.call('GET', '/audio/jobs', as('ad'));
    expect(list.body.jobs[0]).toMatchObject({ _id: started.body.jobId, bookId: { _id: book('pub').bookId, title: 'Forty Hadith', author: 'an-Nawawi' } });
  }, 90_000);

  it('answers 404 for an unknown book or job and 500 for malformed ids', async () => {
    expect((await api.call('POST', `/audio/${newObjectId()}/generate`, { ...as('ed'), body: {} })).status).toBe(404);
    expect((await api.call('POST', `/audio/nope/generate`, { ...as('ed'), body: {} })).status).toBe(500);
    expect((await api.call('GET', `/audio/jobs/${newObjectId()}`, as('ed'))).status).toBe(404);
    expect((await api.call('GET', `/audio/jobs/nope`, as('ed'))).status).toBe(500);
  });
});
