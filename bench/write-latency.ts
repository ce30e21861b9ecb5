import { withServedStack } from './env.ts';

/**
 * What read after write costs a write (issue 26; docs/architecture.md, "Read after write"): each write that changes
 * what a listing or a search shows, one at a time through the local server over the real handlers,
 * DynamoDB Local and the SQLite index, `BENCH_WRITES` times each (default 30), its median and p95.
 * The same file runs against the code before the change (copy it into a checkout of that commit) for
 * the "before" column. No budget: it is a measurement. On AWS, OpenSearch's `refresh=wait_for` adds
 * the wait for the next refresh on top (docs/operations.md, "Search on AWS").
 */

const runs = Number(process.env.BENCH_WRITES ?? 30);
/** Pages of the final result and of the page edit. */
const bookPages = Number(process.env.BENCH_BOOK_PAGES ?? 100);

const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const pageText = (n: number, word: string) => `${word} ${n}\n${'بسم الله الرحمن الرحيم '.repeat(40)}(${n})`;

export interface WriteLatencyRow {
  write: string;
  runs: number;
  medianMs: number;
  p95Ms: number;
}

export interface WriteLatencyReport {
  rows: WriteLatencyRow[];
  problems: string[];
  ok: boolean;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function writeLatency(): Promise<WriteLatencyReport> {
  return withServedStack('write-latency', async ({ url, worker, member }) => {
    const problems: string[] = [];

    const send = async (method: string, route: string, token: string, body?: unknown, form?: FormData) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${url}${route}`, { method, headers, body: form ?? (body === undefined ? undefined : JSON.stringify(body)) });
      const text = await res.text();
      if (res.status >= 300) problems.push(`${method} ${route}: ${res.status} ${text.slice(0, 200)}`);
      return text ? (JSON.parse(text) as Record<string, unknown>) : {};
    };
    const rows: WriteLatencyRow[] = [];
    const timed = async (write: string, once: (i: number) => Promise<unknown>) => {
      await once(-1); // warm-up: the handlers' and the index's first use
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        await once(i);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      rows.push({ write, runs, medianMs: percentile(times, 50), p95Ms: percentile(times, 95) });
    };

    const jobs: { jobId: string; fileId: string; bookTextId: string; userId: string }[] = [];
    await timed('POST /ocr (multipart, a new book)', async () => {
      const form = new FormData();
      form.append('tags', 'bench,latency');
      form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'bench.pdf');
      const created = await send('POST', '/ocr', member.token, undefined, form);
      jobs.push({ jobId: String(created.jobId), fileId: String(created.fileId), bookTextId: String(created.bookTextId), userId: member.userId });
    });
    const job = jobs[0]!;
    const patch = (body: unknown) => send('PATCH', `/ocr/books/${job.bookTextId}`, member.token, body);
    await timed('PATCH tags (the listing entry)', (i) => patch({ tags: [`tag-${i}`] }));
    await timed('PATCH visibility private, then public (two writes)', async () => {
      await patch({ visibility: 'private' });
      await patch({ visibility: 'public' });
    });
    await timed('POST /ocr/result/page (one page)', (i) => send('POST', '/ocr/result/page', worker.token, { ...job, pageNumber: (i + runs) % bookPages, text: pageText(i, 'page') }));
    const pages = (word: string) => Array.from({ length: bookPages }, (_, n) => ({ pageNumber: n, text: pageText(n, word) }));
    await timed(`PATCH pages (${bookPages} pages' text)`, (i) => patch({ pages: pages(`edit${i}`) }));
    await timed(`POST /ocr/result (completed, ${bookPages} pages)`, (i) => send('POST', '/ocr/result', worker.token, { ...jobs[(i + 1) % jobs.length]!, status: 'completed', pageCount: bookPages, pages: pages(`final${i}`) }));
    return { rows, problems: problems.slice(0, 10), ok: problems.length === 0 };
  });
}

export function printWriteLatency(report: WriteLatencyReport): void {
  console.log(`| write | runs | median | p95 |\n| --- | ---: | ---: | ---: |`);
  for (const row of report.rows) console.log(`| ${row.write} | ${row.runs} | ${row.medianMs.toFixed(1)} ms | ${row.p95Ms.toFixed(1)} ms |`);
  for (const problem of report.problems) console.log(`problem: ${problem}`);
}
