import { brotliCompressSync, constants } from 'node:zlib';
import { PageError } from '../ocr-worker/contract.ts';
import * as pdfBombs from '../ocr-worker/fixtures/bombs.ts';
import { memoryBytes } from '../ocr-worker/fixtures/bytes.ts';
import { openPdf } from '../ocr-worker/pdf/page-source.ts';
import { withServedStack } from './env.ts';

/**
 * `npm run bench -- hostile` (issue 27): what cheap hostile requests cost the service. For each
 * attack, the attack's requests go to the local server over the real handlers (in this process)
 * while a cheap route (`GET /audio/voices`) is called every 20 ms: the process's peak memory and the
 * cheap route's p50 and p99 while the attack runs, beside the same with no attack. Over budget: a p99
 * of the cheap route past 100 ms, or the process growing past 500 MB.
 *
 * The PDF bombs are read as the OCR worker reads a page (`openPdf`, its reader process and limits)
 * from this same process: what the worker's side and the API then cost, and in the row's outcome
 * the page's result and the most memory its reader process held.
 */

const probeEveryMs = 20;
const p99BudgetMs = 100;
const growthBudgetMb = 500;
/** Attack requests per attack, sent `inFlight` at a time. */
const attackRequests = Number(process.env.BENCH_ATTACKS ?? 20);
const inFlight = 2;
/** Reads of each PDF bomb's page (each takes up to the page's time limit). */
const pdfRequests = 2;
/** The costly-snippet attack's pages: public, 60,000 characters each, the word near each one's end. */
const searchPages = 100;

export interface HostileRow {
  attack: string;
  requests: number;
  statuses: string;
  attackMs: number;
  peakMb: number;
  grewMb: number;
  probeP50Ms: number;
  probeP99Ms: number;
  /** Calls of the cheap route that failed (a dropped connection). */
  probeFailures: number;
  /** What a PDF bomb's page came to, and its reader's peak memory. */
  outcome?: string;
}

export interface HostileReport {
  rows: HostileRow[];
  problems: string[];
  ok: boolean;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
const mb = (bytes: number) => bytes / (1024 * 1024);

/** 60 MB of `[{},{},…]` in about 110 bytes. */
const bomb = () => brotliCompressSync(Buffer.from(`[${'{},'.repeat(20_000_000)}{}]`), { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });

export async function hostileBench(): Promise<HostileReport> {
  return withServedStack('hostile', async ({ url, worker, member }) => {
    const problems: string[] = [];

    // A public book of 100 pages of 60,000 characters, the searched word only near each page's end.
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n')], { type: 'application/pdf' }), 'hostile.pdf');
    const created = (await (await fetch(`${url}/ocr`, { method: 'POST', headers: { authorization: `Bearer ${member.token}` }, body: form })).json()) as Record<string, string>;
    const job = { jobId: created.jobId!, fileId: created.fileId!, userId: member.userId };
    const filler = 'قال الشيخ إن العلم نور والجهل ظلام وإن طلب العلم فريضة على كل مسلم ';
    const pageText = (n: number) => `${filler.repeat(Math.ceil(59_900 / filler.length)).slice(0, 59_900)} book ${n}`;
    const pages = Array.from({ length: searchPages }, (_, n) => ({ pageNumber: n + 1, text: pageText(n + 1) }));
    // Page by page (a page is 110 KB of JSON): the repeated filler compresses past the 50-to-1 a compressed body may.
    for (const page of pages) {
      const saved = await fetch(`${url}/ocr/result/page`, {
        method: 'POST',
        headers: { authorization: `Bearer ${worker.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...job, ...page }),
      });
      if (saved.status !== 200) problems.push(`seeding page ${page.pageNumber}: ${saved.status} ${(await saved.text()).slice(0, 200)}`);
    }
    const done = await fetch(`${url}/ocr/result`, {
      method: 'POST',
      headers: { authorization: `Bearer ${worker.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...job, status: 'completed', pageCount: searchPages }),
    });
    if (done.status !== 201) problems.push(`completing the search book: ${done.status} ${(await done.text()).slice(0, 200)}`);
    const publish = await fetch(`${url}/ocr/books/${created.bookTextId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ visibility: 'public' }),
    });
    if (publish.status !== 200) problems.push(`publishing the search book: ${publish.status}`);
    const found = (await (await fetch(`${url}/ocr/search?q=book`)).json()) as { total?: number };
    if (found.total !== searchPages) problems.push(`the search book: ${found.total} pages found by anyone, not ${searchPages}`);

    const bombBody = bomb();
    const manyValues = Buffer.from(`[${'{},'.repeat(1_700_000)}{}]`);
    const deep = Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    /** A PDF bomb's first page read as the worker reads it: 200 when it reads, 422 when it is a page error. */
    const pdfOutcomes = new Map<string, string>();
    const readBomb = (attack: string, pdf: Uint8Array) => async () => {
      const source = await openPdf(memoryBytes(pdf));
      try {
        const page = await source.read(1);
        pdfOutcomes.set(attack, `read, ${page.width} × ${page.height}; reader ${Math.round(source.peakReaderMemoryMb)} MB`);
        return 200;
      } catch (error) {
        if (!(error instanceof PageError)) throw error;
        pdfOutcomes.set(attack, `${error.message}; reader ${Math.round(source.peakReaderMemoryMb)} MB`);
        return 422;
      } finally {
        await source.close();
      }
    };
    const pdfAttacks = [
      { attack: 'PDF, 63 KB: an 8000 × 8000 Flate image', pdf: await pdfBombs.flateImageBombPdf(8000) },
      { attack: 'PDF, 250 KB: a 16000 × 16000 Flate image', pdf: await pdfBombs.flateImageBombPdf(16_000) },
      { attack: 'PDF, 65 KB: 32 MB of path operators', pdf: await pdfBombs.contentStreamBombPdf(32) },
      { attack: 'PDF, 0.5 MB: 256 MB of path operators', pdf: await pdfBombs.contentStreamBombPdf(256) },
      { attack: 'PDF, 1.4 KB: JPEG 2000 declaring 60000 × 60000 × 4', pdf: await pdfBombs.jpxBombPdf() },
      { attack: 'PDF, 1.4 KB: JBIG2 declaring 200000 × 200000', pdf: await pdfBombs.jbig2BombPdf() },
    ].map(({ attack, pdf }) => ({ attack, requests: pdfRequests, send: readBomb(attack, pdf) }));
    const attacks: { attack: string; requests?: number; send: () => Promise<number> }[] = [
      { attack: 'none (the cheap route alone)', send: async () => 0 },
      ...(['POST /billing/webhook', 'GET /audio/voices (a body on a GET)'] as const).map((attack) => ({
        attack: `Brotli bomb, 110 bytes → 60 MB of [{},…], to ${attack}`,
        send: () => raw(url, attack.startsWith('GET') ? 'GET' : 'POST', attack.startsWith('GET') ? '/audio/voices' : '/billing/webhook', bombBody, { 'content-encoding': 'br' }),
      })),
      {
        attack: 'Brotli bomb to PATCH /ocr/books/:id, signed in',
        send: () => raw(url, 'PATCH', `/ocr/books/${created.bookTextId}`, bombBody, { 'content-encoding': 'br', authorization: `Bearer ${member.token}` }),
      },
      { attack: 'JSON of 5 MB: 1.7 million values, to PATCH, signed in', send: () => raw(url, 'PATCH', `/ocr/books/${created.bookTextId}`, manyValues, { authorization: `Bearer ${member.token}` }) },
      { attack: 'JSON nested 100,000 deep, to the webhook', send: () => raw(url, 'POST', '/billing/webhook', deep) },
      {
        attack: `GET /ocr/search?q=book&limit=100, anonymous (${searchPages} pages of 60,000 characters, the word at each one's end)`,
        send: async () => (await fetch(`${url}/ocr/search?q=book&limit=100`)).status,
      },
      ...pdfAttacks,
    ];

    const rows: HostileRow[] = [];
    for (const { attack, send, requests: attackCount } of attacks) {
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      const probes: number[] = [];
      let probeFailures = 0;
      let attacking = true;
      const probe = (async () => {
        while (attacking) {
          const t = performance.now();
          // A connection the blocked server dropped counts, at the time it took to fail.
          await fetch(`${url}/audio/voices`)
            .then((r) => r.arrayBuffer())
            .catch(() => probeFailures++);
          probes.push(performance.now() - t);
          await new Promise((resolve) => setTimeout(resolve, probeEveryMs));
        }
      })();
      const started = performance.now();
      const statuses = new Map<number, number>();
      const requests = attackCount ?? (attack.startsWith('none') ? 0 : attackRequests);
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          for (let i = next++; i < requests; i = next++) {
            const status = await send().catch(() => 0);
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }
        }),
      );
      if (requests === 0) await new Promise((resolve) => setTimeout(resolve, 2_000));
      const attackMs = performance.now() - started;
      attacking = false;
      await probe;
      clearInterval(sampler);
      probes.sort((a, b) => a - b);
      const row = {
        attack,
        requests,
        statuses: [...statuses].map(([status, n]) => `${n}× ${status}`).join(', '),
        attackMs,
        peakMb: mb(peak),
        grewMb: mb(peak - before),
        probeP50Ms: percentile(probes, 50),
        probeP99Ms: percentile(probes, 99),
        probeFailures,
        ...(pdfOutcomes.has(attack) && { outcome: pdfOutcomes.get(attack)! }),
      };
      rows.push(row);
      if (row.probeP99Ms > p99BudgetMs) problems.push(`${attack}: the cheap route's p99 ${row.probeP99Ms.toFixed(0)} ms, over ${p99BudgetMs} ms`);
      if (row.grewMb > growthBudgetMb) problems.push(`${attack}: the process grew ${row.grewMb.toFixed(0)} MB, over ${growthBudgetMb} MB`);
      if ([...statuses.keys()].some((s) => s >= 500)) problems.push(`${attack}: answered ${row.statuses}`);
      if (probeFailures > 0) problems.push(`${attack}: ${probeFailures} calls of the cheap route failed`);
    }
    return { rows, problems, ok: problems.length === 0 };
  });
}

/** One request as a client sends it, a GET's body too (fetch refuses one); its status. */
async function raw(url: string, method: string, path: string, body: Buffer, headers: Record<string, string> = {}): Promise<number> {
  const { request } = await import('node:http');
  const target = new URL(path, url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, method, path: target.pathname, headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function printHostile(report: HostileReport): void {
  console.log(`| attack | requests | answers | took | peak RSS | grew | cheap route p50 | p99 | failed |\n| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |`);
  for (const r of report.rows) {
    console.log(
      `| ${r.attack} | ${r.requests} | ${r.statuses} | ${(r.attackMs / 1000).toFixed(1)} s | ${r.peakMb.toFixed(0)} MB | ${r.grewMb.toFixed(0)} MB | ${r.probeP50Ms.toFixed(1)} ms | ${r.probeP99Ms.toFixed(1)} ms | ${r.probeFailures} |`,
    );
  }
  for (const r of report.rows) if (r.outcome) console.log(`- ${r.attack}: ${r.outcome}`);
  for (const problem of report.problems) console.log(`problem: ${problem}`);
}
