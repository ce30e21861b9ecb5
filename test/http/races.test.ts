import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId } from '../../lib/ids.ts';
import { storeNotification } from '../../lib/notifications/notify.ts';
import { startApi, seedAccounts, uploadPdf } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

/**
 * Racing clients through the HTTP routes, several rounds each, with exact expectations so that a
 * lost update, a double count or a transient 500 fails the round. Issue 12, "Tests".
 * Also racing: credits (test/http/ocr-callbacks.test.ts, one round with the ledger's invoices) and
 * long and short text writers (test/http/ocr-integrity.test.ts, finding 3).
 */
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
type Account = { userId: string; token: string };
let editor: Account;

/** Rounds of tens of requests on two shared cores: no timing is asserted, only the outcome. */
const raceTimeout = 120_000;

let userCount = 0;
async function user(options: { role?: string; subscription?: { tier: string; status: string; pagesUsed?: number } } = {}): Promise<Account> {
  const key = `racer${++userCount}`;
  const out = await seedAccounts(
    stores,
    { users: [{ key, username: key, role: options.role ?? 'member', ...(options.subscription ? { subscription: options.subscription } : {}) }] },
  );
  return out.users[key]!;
}

async function upload(account: Account) {
  return (await uploadPdf(api, account.token, { name: 'race.pdf' })) as { jobId: string; bookTextId: string; fileId: string; usageInfo: { pagesUsed: number; remainingCredits: number } };
}

const statuses = (answers: { status: number }[]) => answers.map((a) => a.status);
/** Every answer had this status: the list of statuses, so a failure shows which ones differ. */
const expectAll = (answers: { status: number }[], status: number) => expect(statuses(answers)).toEqual(answers.map(() => status));

/** Shuffled so that each round interleaves its requests differently. */
function shuffle<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

beforeAll(async () => {
  api = await startApi();
  editor = await user({ role: 'editor' });
});
afterAll(() => api?.close());

describe('credits', () => {
  // basic: 100 monthly page credits (lib/billing/tiers.ts).
  it('never spends more credits than exist, nor counts a page twice, when completions race for the last ones', async () => {
    for (let round = 0; round < 3; round++) {
      const start = 90 + round * 3;
      const member = await user({ subscription: { tier: 'basic', status: 'active', pagesUsed: start } });
      const sizes = [1, 2, 3, 4, 5, 6, 2, 4];
      const total = sizes.reduce((a, b) => a + b, 0);
      const answers = await Promise.all(
        sizes.map((pages) =>
          api.call('POST', '/ocr/result', {
            token: editor.token,
            body: { jobId: randomUUID(), fileId: newObjectId(), userId: member.userId, status: 'completed', pageCount: pages },
          }),
        ),
      );
      expectAll(answers, 201);
      const infos = answers.map((a) => a.body.usageInfo as { freePages: number; overagePages: number; overageChargeCents: number; totalPagesUsed: number; remainingCredits: number });
      infos.forEach((info, i) => expect(info.freePages + info.overagePages).toBe(sizes[i]));
      expect(infos.reduce((sum, i) => sum + i.freePages, 0)).toBe(100 - start);
      expect(infos.reduce((sum, i) => sum + i.overagePages, 0)).toBe(total - (100 - start));
      expect(infos.reduce((sum, i) => sum + i.overageChargeCents, 0)).toBe(2 * (total - (100 - start)));
      // The completions took turns: each saw the count the previous one left.
      const after = infos.map((i) => i.totalPagesUsed).sort((a, b) => a - b);
      expect(new Set(after).size).toBe(sizes.length);
      expect(after.at(-1)).toBe(start + total);
      expect(infos.every((i) => i.remainingCredits >= 0)).toBe(true);
      // And the next upload's snapshot counts every page once.
      expect((await upload(member)).usageInfo).toMatchObject({ pagesUsed: start + total, remainingCredits: 0 });
    }
  }, raceTimeout);
});

describe('page callbacks', () => {
  it('keeps every page once, with counters right, when a job’s pages arrive at once and some twice', async () => {
    const pages = 16;
    for (let round = 0; round < 3; round++) {
      const owner = await user({ subscription: { tier: 'pro', status: 'active' } });
      // Odd rounds: a job the service does not know yet, so the racing callbacks also create its BookText.
      const job = round % 2 === 0 ? await upload(owner) : { jobId: randomUUID(), fileId: newObjectId() };
      const base = { jobId: job.jobId, fileId: job.fileId, userId: owner.userId, pageCount: pages };
      const calls = [
        ...Array.from({ length: pages }, (_, n) => ({ ...base, pageNumber: n, text: `صفحة ${n}`, pagesProcessed: n + 1 })),
        // The queue delivers some twice, the same body.
        ...Array.from({ length: pages / 2 }, (_, k) => ({ ...base, pageNumber: 2 * k, text: `صفحة ${2 * k}`, pagesProcessed: 2 * k + 1 })),
        // Two pages fail, each reported twice with different errors.
        ...[5, 9].flatMap((n) => [1, 2].map((attempt) => ({ ...base, pageNumber: n, status: 'failed', error: `timeout ${attempt}`, text: `صفحة ${n}` }))),
      ];
      const answers = await Promise.all(shuffle(calls, round + 1).map((body) => api.call('POST', '/ocr/result/page', { token: editor.token, body })));
      expectAll(answers, 200);

      const jobs = (await api.call('GET', '/ocr/jobs?limit=100', { token: owner.token })).body.jobs as { jobId: string; bookTextId: string }[];
      expect(jobs.filter((j) => j.jobId === job.jobId)).toHaveLength(1);
      const book = (await api.call('GET', `/ocr/books/${jobs[0]!.bookTextId}?pageLimit=100`, { token: owner.token })).body.book;
      expect(book.pages.map((p: { pageNumber: number }) => p.pageNumber)).toEqual(Array.from({ length: pages }, (_, n) => n));
      expect(book.pages.map((p: { text: string }) => p.text)).toEqual(Array.from({ length: pages }, (_, n) => `صفحة ${n}`));
      expect({ status: book.status, pageCount: book.pageCount, totalPages: book.totalPages, pagesProcessed: book.metadata.pagesProcessed }).toEqual({
        status: 'processing',
        pageCount: pages,
        totalPages: pages,
        pagesProcessed: pages,
      });
      // One error per failed page, whichever report came last.
      expect(book.metadata.pageErrors.map((e: { pageNumber: number }) => e.pageNumber)).toEqual([5, 9]);
      for (const e of book.metadata.pageErrors) expect(['timeout 1', 'timeout 2']).toContain(e.error);
    }
  }, raceTimeout);
});

describe('text edits', () => {
  it('never answers a reader 500 while long and short edits race, and leaves one writer’s whole text', async () => {
    const owner = await user({ subscription: { tier: 'pro', status: 'active' } });
    const job = await upload(owner);
    const long = (n: number) => `${`نص ${n} `.repeat(3000)}#${n}`;
    for (let round = 0; round < 3; round++) {
      const texts = [long(round * 10 + 1), `short ${round}`, long(round * 10 + 2), `short ${round}b`];
      const writes = texts.map((extractedText) => api.call('PATCH', `/ocr/books/${job.bookTextId}`, { token: owner.token, body: { extractedText } }));
      const reads = Array.from({ length: 4 }, () => [
        api.call('GET', `/ocr/text/${job.jobId}`, { token: owner.token }),
        api.call('GET', `/ocr/books/${job.bookTextId}`, { token: owner.token }),
      ]).flat();
      const [written, read] = await Promise.all([Promise.all(writes), Promise.all(reads)]);
      expect(written.filter((w) => w.status !== 200).map((w) => w.text)).toEqual([]);
      expect(read.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([]);
      // A reader mid-race sees some writer's whole text (or the one before the round), never a mix.
      const before = round === 0 ? ['', null] : [long((round - 1) * 10 + 1), `short ${round - 1}`, long((round - 1) * 10 + 2), `short ${round - 1}b`];
      for (const r of read) expect([...before, ...texts]).toContain(r.body.data?.extractedText ?? r.body.book.extractedText);
      const final = await api.call('GET', `/ocr/text/${job.jobId}`, { token: owner.token });
      expect(texts).toContain(final.body.data.extractedText);
    }
  }, raceTimeout);
});

describe('notifications', () => {
  const notify = (recipientId: string, n: number) =>
    storeNotification({ notifications: stores.notifications, now: () => new Date() }, { recipientId, type: 'announcement', title: `n${n}`, body: 'race' }).then((s) => s.notification);
  const unread = async (account: Account) => (await api.call('GET', '/notifications/unread-count', { token: account.token })).body.unreadCount as number;
  type Listed = { _id: string; isRead: boolean; readAt: string | null; __v: number };
  const inbox = async (account: Account) => (await api.call('GET', '/notifications?limit=100', { token: account.token })).body.notifications as Listed[];

  it('counts each notification read once when the same and different ones are marked read at once', async () => {
    for (let round = 0; round < 3; round++) {
      const reader = await user();
      const ids: string[] = [];
      for (let n = 0; n < 12; n++) ids.push((await notify(reader.userId, n)).notificationId);
      const marked = ids.slice(0, 7);
      // Each of seven marked three times, and the count read while they land.
      const marks = shuffle(marked.flatMap((id) => [id, id, id]), round + 7).map((id) => api.call('PUT', `/notifications/${id}/read`, { token: reader.token }));
      const counts = Array.from({ length: 6 }, () => unread(reader));
      const [answers, seen] = await Promise.all([Promise.all(marks), Promise.all(counts)]);
      expectAll(answers, 200);
      for (const count of seen) expect(count >= 5 && count <= 12, `unread count ${count} mid-race`).toBe(true);
      // Every answer for one notification shows the one read that counted.
      for (const id of marked) {
        const views = answers.map((a) => a.body.notification).filter((v) => v._id === id);
        expect(views.map((v) => [v.isRead, v.readAt, v.__v])).toEqual(views.map(() => [true, views[0].readAt, 1]));
      }
      expect(await unread(reader)).toBe(5);
      const list = await inbox(reader);
      expect(list.filter((n) => !n.isRead).map((n) => n._id).sort()).toEqual(ids.slice(7).sort());
    }
  }, raceTimeout);

  it('keeps the unread count equal to the unread notifications when read-all races new ones and mark-read', async () => {
    for (let round = 0; round < 3; round++) {
      const reader = await user();
      const old: string[] = [];
      for (let n = 0; n < 10; n++) old.push((await notify(reader.userId, n)).notificationId);
      const ops = shuffle(
        [
          ...[0, 1, 2].map(() => () => api.call('PUT', '/notifications/read-all', { token: reader.token })),
          ...old.slice(0, 5).map((id) => () => api.call('PUT', `/notifications/${id}/read`, { token: reader.token })),
          ...Array.from({ length: 8 }, (_, n) => async () => ({ status: (await notify(reader.userId, 100 + n)) ? 200 : 500, body: {} })),
          ...Array.from({ length: 4 }, () => async () => {
            const count = await unread(reader);
            return { status: count >= 0 && count <= 18 ? 200 : 599, body: { count } };
          }),
        ],
        round + 11,
      );
      const answers = await Promise.all(ops.map((op) => op()));
      expectAll(answers, 200);

      const list = await inbox(reader);
      expect(list).toHaveLength(18);
      // Every notification that existed before read-all started is read; new ones may or may not be.
      expect(list.filter((n) => old.includes(n._id)).every((n) => n.isRead && n.readAt)).toBe(true);
      expect(await unread(reader)).toBe(list.filter((n) => !n.isRead).length);
      expect((await api.call('PUT', '/notifications/read-all', { token: reader.token })).status).toBe(200);
      expect(await unread(reader)).toBe(0);
      expect((await inbox(reader)).every((n) => n.isRead)).toBe(true);
    }
  }, raceTimeout);
});
