import { checkedFetch } from '../support/api.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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

    expect(JSON.parse((await cli(['user', 'delete', out.users.cara.userId], env)).stdout)).toEqual({ deleted: true });
    const caraToken = (await cli(['token', out.users.cara.userId], env)).stdout.trim();
    const gone = await checkedFetch(`${second.url}/notifications`, { headers: { authorization: `Bearer ${caraToken}` } });
    expect(gone.status).toBe(404);
    expect(await gone.text()).toBe('User not found');
  }, 180_000);
});
