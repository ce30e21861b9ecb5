import { names } from '../infra/local/state.ts';
import { openBenchStack, seedWorkerAndMember } from './env.ts';
import { runIfMain } from './report.ts';

/**
 * Throughput budget (docs/DESIGN.md section 8): 1,000 page callbacks at 32 in flight, nothing lost. A job is
 * created as a client creates it (`POST /ocr`, multipart), then the worker's callbacks are posted
 * through the local server over the real handlers and DynamoDB Local: pages 0..999 with at most 32 in
 * flight, then the final `POST /ocr/result`. Then `GET /ocr/text/:jobId` must give back every page, in
 * order, with its text. There is no latency budget: DynamoDB Local manages only a few hundred
 * operations a second, so the rate measured here is the stand-in's, not Lambda's or DynamoDB's.
 */

const pageTotal = Number(process.env.BENCH_PAGES ?? 1000);
const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? 32);

const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const pageText = (n: number) => `صفحة ${n}\n${'بسم الله الرحمن الرحيم '.repeat(8)}(${n})`;

export interface PageCallbacksReport {
  pages: number;
  inFlight: number;
  /** Page callbacks answered 200. */
  answered200: number;
  /** Each callback that was not answered 200: page, status (0 when the request itself failed) and body. */
  failures: { pageNumber: number; status: number; body: string }[];
  finalStatus: number;
  /** What `GET /ocr/text/:jobId` gave back. */
  returned: { pages: number; inOrder: boolean; textsRight: boolean; status: string; pageCount: number };
  /** The stored progress counter after the run (last write wins, so it can be below `pages`). */
  pagesProcessed: number | null;
  callbacksMs: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  finalResultMs: number;
  /** From the job's creation to the final result being answered. */
  totalMs: number;
  setupMs: number;
  problems: string[];
  ok: boolean;
}

/** Nearest-rank percentile. */
const percentile = (sorted: number[], p: number): number => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN);

interface Answer {
  status: number;
  text: string;
  body: unknown;
}

function client(url: string) {
  return async (method: string, route: string, options: { token: string; body?: unknown; form?: FormData }): Promise<Answer> => {
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${url}${route}`, { method, headers, body: options.form ?? (options.body === undefined ? undefined : JSON.stringify(options.body)) });
    const text = await res.text();
    const isJson = res.headers.get('content-type')?.includes('application/json');
    return { status: res.status, text, body: isJson ? (JSON.parse(text) as unknown) : text };
  };
}


export async function pageCallbacks(): Promise<PageCallbacksReport> {
  const setupStart = performance.now();
  const stack = await openBenchStack('page-callbacks');
  try {
    const tableName = names.tableName;

    const [{ dynamoDocumentClient }, { dynamoBookTextStore }] = await Promise.all([
      import('../lib/adapters/aws/clients.ts'),
      import('../lib/adapters/dynamo/book-texts.ts'),
    ]);
    const call = client((await stack.serve()).url);

    const db = { client: dynamoDocumentClient(), tableName };
    const { worker, member } = await seedWorkerAndMember(stack, 'basic');
    const setupMs = performance.now() - setupStart;

    // The job, created the way a client creates it.
    const runStart = performance.now();
    const form = new FormData();
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'bench.pdf');
    const created = await call('POST', '/ocr', { token: member.token, form });
    if (created.status !== 201) throw new Error(`POST /ocr answered ${created.status}: ${created.text}`);
    const { jobId, fileId, bookTextId } = created.body as { jobId: string; fileId: string; bookTextId: string };
    const job = { jobId, fileId, bookTextId, userId: member.userId };

    // The page callbacks: 32 lanes, each taking the next page number until none is left.
    const latencies: number[] = [];
    const failures: PageCallbacksReport['failures'] = [];
    let next = 0;
    const lane = async () => {
      for (let n = next++; n < pageTotal; n = next++) {
        const body = { ...job, pageNumber: n, text: pageText(n), pagesProcessed: n + 1, ...(n % 100 === 0 ? { pageCount: pageTotal } : {}) };
        const t = performance.now();
        try {
          const answer = await call('POST', '/ocr/result/page', { token: worker.token, body });
          latencies.push(performance.now() - t);
          if (answer.status !== 200) failures.push({ pageNumber: n, status: answer.status, body: answer.text.slice(0, 300) });
        } catch (error) {
          latencies.push(performance.now() - t);
          failures.push({ pageNumber: n, status: 0, body: (error as Error).message });
        }
      }
    };
    const callbacksStart = performance.now();
    await Promise.all(Array.from({ length: Math.min(inFlight, pageTotal) }, lane));
    const callbacksMs = performance.now() - callbacksStart;

    const finalStart = performance.now();
    const final = await call('POST', '/ocr/result', { token: worker.token, body: { ...job, status: 'completed', processingTime: Math.round(callbacksMs) } });
    const finalResultMs = performance.now() - finalStart;
    const totalMs = performance.now() - runStart;

    // What the member reads back.
    const read = await call('GET', `/ocr/text/${jobId}`, { token: member.token });
    const problems: string[] = [];
    if (failures.length) problems.push(`${failures.length} page callbacks not answered 200 (first: page ${failures[0]!.pageNumber}, ${failures[0]!.status} ${failures[0]!.body})`);
    if (final.status !== 201) problems.push(`POST /ocr/result answered ${final.status}: ${final.text.slice(0, 300)}`);
    let returned: PageCallbacksReport['returned'] = { pages: 0, inOrder: false, textsRight: false, status: '', pageCount: 0 };
    if (read.status !== 200) {
      problems.push(`GET /ocr/text answered ${read.status}: ${read.text.slice(0, 300)}`);
    } else {
      const data = (read.body as { data: { pages: { pageNumber: number; text: string }[]; status: string; pageCount: number } }).data;
      const numbers = data.pages.map((p) => p.pageNumber);
      returned = {
        pages: data.pages.length,
        inOrder: numbers.length === pageTotal && numbers.every((number, i) => number === i),
        textsRight: data.pages.length === pageTotal && data.pages.every((p, i) => p.text === pageText(i)),
        status: data.status,
        pageCount: data.pageCount,
      };
      if (returned.pages !== pageTotal) {
        const have = new Set(numbers);
        const missing = Array.from({ length: pageTotal }, (_, i) => i).filter((i) => !have.has(i));
        problems.push(`GET /ocr/text gave ${returned.pages} pages, not ${pageTotal}; missing ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ', ...' : ''}`);
      } else if (!returned.inOrder) problems.push('GET /ocr/text gave the pages out of order');
      if (returned.pages === pageTotal && !returned.textsRight) {
        const wrong = data.pages.flatMap((p, i) => (p.text === pageText(i) ? [] : [i]));
        problems.push(`GET /ocr/text gave the wrong text for ${wrong.length} pages (first: ${wrong.slice(0, 10).join(', ')})`);
      }
      if (returned.status !== 'completed') problems.push(`status is ${returned.status}, not completed`);
      if (returned.pageCount !== pageTotal) problems.push(`pageCount is ${returned.pageCount}, not ${pageTotal}`);
    }
    const stored = await dynamoBookTextStore(db).get(bookTextId);
    if (stored?.pagesProcessed !== pageTotal) problems.push(`pagesProcessed is ${stored?.pagesProcessed}, not ${pageTotal}`);

    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      pages: pageTotal,
      inFlight,
      answered200: pageTotal - failures.length,
      failures,
      finalStatus: final.status,
      returned,
      pagesProcessed: stored?.pagesProcessed ?? null,
      callbacksMs,
      requestsPerSecond: (pageTotal / callbacksMs) * 1000,
      latencyMs: { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN },
      finalResultMs,
      totalMs,
      setupMs,
      problems,
      ok: problems.length === 0,
    };
  } finally {
    await stack.close();
  }
}

export function printPageCallbacks(report: PageCallbacksReport): void {
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const r = report.returned;
  console.log(`${report.pages} page callbacks, ${report.inFlight} in flight: ${report.answered200} answered 200, final result ${report.finalStatus}`);
  console.log(`read back: ${r.pages} pages, ${r.inOrder ? 'in order' : 'NOT in order'}, texts ${r.textsRight ? 'right' : 'WRONG'}, status ${r.status}, pageCount ${r.pageCount}`);
  console.log(`callbacks: ${(report.callbacksMs / 1000).toFixed(2)} s, ${report.requestsPerSecond.toFixed(0)} requests/s`);
  console.log(`latency: p50 ${ms(report.latencyMs.p50)}, p95 ${ms(report.latencyMs.p95)}, p99 ${ms(report.latencyMs.p99)}, max ${ms(report.latencyMs.max)}`);
  console.log(`final result: ${ms(report.finalResultMs)}; job created to final result: ${(report.totalMs / 1000).toFixed(2)} s (stores, server and seed: ${(report.setupMs / 1000).toFixed(1)} s)`);
  console.log(`stored pagesProcessed: ${report.pagesProcessed ?? 'none'} (only ever raised, so out-of-order callbacks cannot lower it)`);
  console.log('budget: nothing lost; no latency budget: DynamoDB Local manages only a few hundred operations a second, so these rates are the stand-in\'s');
  for (const problem of report.problems) console.log(`LOST: ${problem}`);
  console.log(report.ok ? 'ok' : 'OVER BUDGET');
  console.log(JSON.stringify({ bench: 'page-callbacks', ...report, failures: report.failures.slice(0, 20) }));
}

await runIfMain(import.meta.url, pageCallbacks, printPageCallbacks);
