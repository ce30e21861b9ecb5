import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bornDigitalPdf } from '../../ocr-worker/fixtures/pdf.ts';
import { arabicLines } from '../../ocr-worker/fixtures/texts.ts';
import { fileErrors } from '../../ocr-worker/files/caps.ts';
import { checkedFetch } from '../support/api.ts';
import { cli, freePort, startService } from '../support/processes.ts';

/**
 * Issue 31 as a user meets it, through `npm start` with the reference OCR worker and the local audio
 * worker: a job's end reaches its owner's inbox and registered phone (the push ledger, `push sent`),
 * once; a failed job says why.
 */
describe('job outcomes under npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'maktaba-outcomes-e2e-'));
  let stop: (() => Promise<number | null>) | undefined;
  afterAll(() => stop?.());

  it('tells the owner of a completed and of a failed upload once, and an audio job’s starter', async () => {
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1' };
    const service = await startService(env);
    stop = service.stop;
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(
      seedFile,
      JSON.stringify({
        users: [
          { key: 'mo', username: 'mo', subscription: { tier: 'pro', status: 'active' } },
          { key: 'ed', username: 'ed', role: 'editor' },
        ],
        books: [{ key: 'b1', owner: 'ed', title: 'الأربعون النووية', author: 'النووي', lines: [{ arabic: 'إنما الأعمال بالنيات', english: 'Deeds are by intentions' }] }],
      }),
    );
    const seeded = JSON.parse((await cli(['seed', seedFile], env)).stdout) as {
      users: Record<'mo' | 'ed', { userId: string; token: string }>;
      books: Record<'b1', { bookId: string }>;
    };
    const { mo, ed } = seeded.users;
    const call = async (path: string, token: string, init: RequestInit = {}) => {
      const res = await checkedFetch(`${service.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.body && !(init.body instanceof FormData) ? { 'content-type': 'application/json' } : {}), ...init.headers } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, seconds = 180): Promise<T> => {
      for (const end = Date.now() + seconds * 1000; Date.now() < end; await new Promise((r) => setTimeout(r, 500))) {
        const value = await read();
        if (done(value)) return value;
      }
      throw new Error(`timed out waiting for ${what}\n${service.stderr().slice(-2000)}`);
    };
    const inbox = async (token: string) => (await call('/notifications?limit=50', token)).body.notifications as Record<string, unknown>[];
    const pushes = async (userId: string) => JSON.parse((await cli(['push', 'sent', userId], env)).stdout) as Record<string, unknown>[];
    const upload = async (bytes: Uint8Array, name: string) => {
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
      form.append('language', 'ar');
      const res = await call('/ocr', mo.token, { method: 'POST', body: form });
      expect(res.status).toBe(201);
      return res.body as { jobId: string; bookTextId: string; fileId: string };
    };
    const ended = (jobId: string) =>
      until(
        async () => (await call(`/ocr/status/${jobId}`, mo.token)).body.job as Record<string, unknown>,
        (job) => job.status === 'completed' || job.status === 'failed',
        `job ${jobId} to end`,
      );

    expect((await call('/notifications/device-token', mo.token, { method: 'POST', body: JSON.stringify({ token: 'mo-phone', platform: 'android' }) })).status).toBe(200);

    // A readable book: completed, told once in Arabic, pushed once to the phone.
    const good = await upload(await bornDigitalPdf({ pages: [arabicLines.slice(0, 3), arabicLines.slice(3, 6)], language: 'ar' }), 'كتاب.pdf');
    expect(await ended(good.jobId)).toMatchObject({ status: 'completed', pagesProcessed: 2, pageCount: 2 });
    const done = await until(() => inbox(mo.token), (n) => n.length >= 1, 'the completion notice');
    expect(done).toMatchObject([{ type: 'ocr_completed', actor: null, title: 'النص جاهز', data: { jobId: good.jobId, bookTextId: good.bookTextId }, isRead: false }]);
    expect(done[0]!.body).toContain('«كتاب.pdf»');
    expect(await pushes(mo.userId)).toEqual([
      { token: 'mo-phone', platform: 'android', type: 'ocr_completed', title: 'النص جاهز', body: done[0]!.body, data: { jobId: good.jobId, bookTextId: good.bookTextId }, sentAt: expect.any(String) },
    ]);

    // The final result posted again (a worker's retry): nothing more.
    const again = await call('/ocr/result', ed.token, {
      method: 'POST',
      body: JSON.stringify({ jobId: good.jobId, fileId: good.fileId, userId: mo.userId, status: 'completed', extractedText: 'نص', pageCount: 2, language: 'ar' }),
    });
    expect(again.status).toBe(201);
    expect(await inbox(mo.token)).toHaveLength(1);
    expect(await pushes(mo.userId)).toHaveLength(1);

    // A file that is not a PDF: failed, with the worker's reason in the status and the notice.
    const bad = await upload(new TextEncoder().encode('this is not a pdf, only text\n'.repeat(20)), 'notes.pdf');
    expect(await ended(bad.jobId)).toMatchObject({ status: 'failed', error: fileErrors.unknownFormat, pagesProcessed: 0 });
    const both = await until(() => inbox(mo.token), (n) => n.length >= 2, 'the failure notice');
    expect(both[0]).toMatchObject({ type: 'ocr_failed', data: { jobId: bad.jobId, bookTextId: bad.bookTextId } });
    expect(both[0]!.body).toContain(fileErrors.unknownFormat);
    expect((await pushes(mo.userId)).map((p) => p.type)).toEqual(['ocr_completed', 'ocr_failed']);
    const jobs = (await call('/ocr/jobs', mo.token)).body.jobs as Record<string, unknown>[];
    expect(jobs.find((j) => j.jobId === bad.jobId)).toMatchObject({ status: 'failed', error: fileErrors.unknownFormat });

    // An audio job: its starter is told.
    const started = await call(`/audio/${seeded.books.b1.bookId}/generate`, ed.token, { method: 'POST', body: JSON.stringify({ voice: 'nova' }) });
    expect(started.status).toBe(200);
    const audioJobId = started.body.jobId as string;
    await until(async () => (await call(`/audio/jobs/${audioJobId}`, ed.token)).body.status as string, (s) => s === 'completed', 'the audio job');
    const told = await until(() => inbox(ed.token), (n) => n.length >= 1, 'the audio notice');
    expect(told).toMatchObject([{ type: 'audio_completed', actor: null, title: 'الصوت جاهز', data: { audioJobId, bookId: seeded.books.b1.bookId } }]);
  }, 600_000);
});
