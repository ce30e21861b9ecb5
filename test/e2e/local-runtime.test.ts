import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { checkedFetch } from '../support/api.ts';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/state.ts';
import { dynamoAudioFiles } from '../../lib/adapters/dynamo/audio-files.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { audioKey, contentHash } from '../../lib/audio/audio-key.ts';
import type { Line } from '../../lib/books/book.ts';
import { cli, freePort, startService } from '../support/processes.ts';

/** `npm start` and the CLI as a user runs them: a fresh DATA_DIR, a restart, state kept. */
describe('local runtime', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'maktaba-e2e-'));
  let stopService: (() => Promise<number | null>) | undefined;
  afterAll(() => stopService?.());

  it('serves the API, seeds with the CLI, and finds everything again after a restart', async () => {
    // The external worker's view: jobs wait on the OCR queue (the reference worker has its own test).
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', OCR_WORKER: 'off' };
    const first = await startService(env);
    stopService = first.stop;
    expect(first.url).toBe(`http://127.0.0.1:${env.PORT}`);
    // It said what it was doing before its URL line, a line per stage.
    const stages = first.stderr().split('\n').filter((line) => line.startsWith('npm start: '));
    expect(stages.map((line) => line.replace(/ in \/.*$/, ''))).toEqual([
      'npm start: starting the embedded stores (DynamoDB Local, S3, SQS)',
      'npm start: loading the functions and starting the API',
      'npm start: starting the workers (audio, announcements, audio files, billing, sweeper, search indexer, OCR)',
    ]);

    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(
      seedFile,
      JSON.stringify({
        users: [
          { key: 'ed', username: 'ed', email: 'ed@example.com', role: 'editor', subscription: { tier: 'pro', status: 'active', pagesUsed: 3 } },
          { key: 'cara', username: 'cara', email: 'cara@example.com', creatorSubscriptions: [] },
          { key: 'mo', username: 'mo', subscription: { tier: 'basic', status: 'active', pagesUsed: 98 } },
        ],
        books: [
          {
            key: 'b1',
            owner: 'cara',
            title: 'Forty Hadith',
            author: 'an-Nawawi',
            contributors: ['ed'],
            lines: [{ arabic: 'إنما الأعمال بالنيات', english: 'Actions are by intentions' }, { arabic: 'الدين النصيحة' }],
          },
        ],
        notifications: [{ key: 'n1', recipient: 'ed', actor: 'cara', type: 'like_on_post', title: 'Like', body: 'cara liked' }],
      }),
    );
    const seeded = await cli(['seed', seedFile], env);
    expect(seeded.stderr).toBe('');
    expect(seeded.code).toBe(0);
    const out = JSON.parse(seeded.stdout);
    const ed = out.users.ed.userId as string;
    expect(out.books.b1.lineIds).toHaveLength(2);

    const token = await cli(['token', ed, '--expires-in', '600'], env);
    expect(token.stdout.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const auth = { authorization: `Bearer ${token.stdout.trim()}` };
    expect(await (await checkedFetch(`${first.url}/notifications/unread-count`, { headers: auth })).json()).toEqual({ unreadCount: 1 });

    const book = JSON.parse((await cli(['book', 'show', out.books.b1.bookId], env)).stdout);
    expect(book).toMatchObject({
      bookId: out.books.b1.bookId,
      title: 'Forty Hadith',
      ownerId: out.users.cara.userId,
      accessModel: 'free',
      visibility: 'public',
      metadata: {},
    });
    expect(book.lines).toEqual([
      { lineId: out.books.b1.lineIds[0], arabic: 'إنما الأعمال بالنيات', english: 'Actions are by intentions', commentary: '', rootwords: '' },
      { lineId: out.books.b1.lineIds[1], arabic: 'الدين النصيحة', english: '', commentary: '', rootwords: '' },
    ]);

    const missing = await cli(['book', 'show', '65a1b2c3d4e5f60718293a4b'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);

    // Audio put straight into the bucket is listed (the bucket's events, audio-files-sync); the record,
    // made to disagree behind the service's back, is put right by `audio reconcile`.
    const stack = JSON.parse(readFileSync(join(dataDir, 'local.json'), 'utf8')) as LocalStack;
    const local = { region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } };
    const bucket = s3Objects(new S3Client({ ...local, endpoint: stack.endpoints.s3, forcePathStyle: true }), stack.audioBucket);
    const record = dynamoAudioFiles({ client: DynamoDBDocumentClient.from(new DynamoDBClient({ ...local, endpoint: stack.endpoints.dynamodb })), tableName: stack.tableName });
    const b1 = out.books.b1 as { bookId: string; lineIds: string[] };
    const [line1, line2] = book.lines as Omit<Line, 'bookId'>[];
    const stored = audioKey(b1.bookId, line1!.lineId, 'arabic', 'alloy', contentHash(line1!, 'alloy'));
    const ghost = audioKey(b1.bookId, line2!.lineId, 'arabic', 'alloy', contentHash(line2!, 'alloy'));
    await bucket.put(stored, new Uint8Array([0xff, 0xfb, 0x90, 0x00]), 'audio/mpeg');
    const hasAudio = async () =>
      ((await (await checkedFetch(`${first.url}/audio/${b1.bookId}/lines-with-audio`)).json()) as { lines: { fields: { arabic: { hasAudio: boolean } } }[] }).lines.map(
        (l) => l.fields.arabic.hasAudio,
      );
    for (let tries = 0; tries < 60 && !(await hasAudio())[0]; tries++) await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await hasAudio()).toEqual([true, false]);
    await record.forget([stored]);
    await record.record([{ key: ghost, size: 4, lastModified: new Date().toISOString() }]);
    expect(await hasAudio()).toEqual([false, true]);
    const reconciled = await cli(['audio', 'reconcile', b1.bookId], env);
    expect(reconciled.code).toBe(0);
    expect(JSON.parse(reconciled.stdout)).toEqual({ added: 1, removed: 1 });
    expect(reconciled.stderr).toMatch(/^audio reconcile: 1 files listed, 1 added, 1 removed, \d+ s; to resume: --from \S+\n$/);
    expect(await hasAudio()).toEqual([true, false]);
    expect(JSON.parse((await cli(['audio', 'reconcile'], env)).stdout)).toEqual({ added: 0, removed: 0 });
    const wrong = await cli(['audio', 'reconcile', 'not-a-book'], env);
    expect(wrong).toMatchObject({ code: 1, stdout: '' });
    expect(wrong.stderr).toMatch(/^not a book id: not-a-book \(usage: audio reconcile \[BOOK_ID\] \[--from KEY\]\)\n$/);
    const help = await cli(['--help'], env);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: npm run --silent cli -- COMMAND\n[\s\S]*\n {2}audio reconcile \[BOOK_ID\] \[--from KEY\]\n$/);

    // An OCR job as a client and the worker run it: upload, the queued message, callbacks, the invoice.
    const mo = out.users.mo as { userId: string; token: string };
    const form = new FormData();
    form.append('file', new Blob(['%PDF-1.4 test'], { type: 'application/pdf' }), 'scan.pdf');
    const uploaded = await checkedFetch(`${first.url}/ocr`, { method: 'POST', headers: { authorization: `Bearer ${mo.token}` }, body: form });
    expect(uploaded.status).toBe(201);
    const job = (await uploaded.json()) as { jobId: string; fileId: string };
    const queued = JSON.parse((await cli(['queue', 'peek', 'ocr'], env)).stdout) as { jobId: string }[];
    expect(queued.map((m) => m.jobId)).toContain(job.jobId);
    const callback = (path: string, body: object) =>
      checkedFetch(`${first.url}${path}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ jobId: job.jobId, fileId: job.fileId, userId: mo.userId, ...body }),
      });
    expect((await callback('/ocr/result/page', { pageNumber: 1, text: 'صفحة' })).status).toBe(200);
    const completed = await callback('/ocr/result', { status: 'completed', pageCount: 5 });
    expect(completed.status).toBe(201);
    expect(((await completed.json()) as { usageInfo: object }).usageInfo).toMatchObject({ overagePages: 3, paymentStatus: 'pending' });
    // The billing worker that `npm start` runs on a schedule invoices it, off the request path.
    let invoices: unknown[] = [];
    for (let run = 0; run < 40 && invoices.length === 0; run++) {
      if (run > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      invoices = JSON.parse((await cli(['billing', 'invoices', mo.userId], env)).stdout) as unknown[];
    }
    expect(invoices).toEqual([{ jobId: job.jobId, pages: 3, amountCents: 6, status: 'open', createdAt: expect.any(String) }]);

    expect(await first.stop()).toBe(0);
    expect((await cli(['book', 'show', out.books.b1.bookId], env)).code).not.toBe(0);

    const second = await startService(env);
    stopService = second.stop;
    const list = await (await checkedFetch(`${second.url}/notifications`, { headers: auth })).json();
    expect(list).toMatchObject({ total: 1, notifications: [{ _id: out.notifications.n1, title: 'Like' }] });
    expect(JSON.parse((await cli(['book', 'show', out.books.b1.bookId], env)).stdout).lines).toHaveLength(2);
    expect(JSON.parse((await cli(['queue', 'peek', 'ocr'], env)).stdout).map((m: { jobId: string }) => m.jobId)).toContain(job.jobId);

    // A token issued before the user is deleted stays valid but names no one.
    const caraToken = (await cli(['token', out.users.cara.userId], env)).stdout.trim();
    expect(JSON.parse((await cli(['user', 'delete', out.users.cara.userId], env)).stdout)).toEqual({ deleted: true });
    const gone = await checkedFetch(`${second.url}/notifications`, { headers: { authorization: `Bearer ${caraToken}` } });
    expect(gone.status).toBe(404);
    expect(await gone.text()).toBe('User not found');
  }, 180_000);
});
