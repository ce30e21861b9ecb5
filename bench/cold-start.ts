import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { bundleFunctions, formatBytes, type BundleResult } from '../infra/bundle.ts';
import { runIfMain } from './report.ts';

/**
 * Cold-start budget (docs/DESIGN.md section 8), measured on the bundles CDK deploys: per function, the
 * shipped size and the module load time, i.e. the median over fresh `node` processes of the time to
 * `import()` the bundle, minus the same median for an empty handler module (which nets out Node's own
 * ESM loader). Each process is fresh, so nothing is cached between runs, as on a Lambda cold start.
 */

const MB = 1_000_000;
const sizeBudget = (name: string): number => (name === 'ocr-export' ? 3 * MB : MB);
const loadBudgetMs = 100;
const runs = Number(process.env.BENCH_RUNS ?? 15);

// Enough configuration for a bundle that reads its environment at import; nothing here is contacted.
const childEnv = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  TABLE_NAME: 'maktaba',
  UPLOADS_BUCKET: 'maktaba-uploads',
  AUDIO_BUCKET: 'maktaba-audio',
  OCR_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/ocr-jobs',
  AUDIO_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/audio-jobs',
  AUTH_JWT_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:jwt',
};

const timeImport = 'const t = performance.now(); await import(process.env.BENCH_MODULE); process.stdout.write(String(performance.now() - t));';

async function loadMs(moduleUrl: string): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', timeImport], {
    env: { ...childEnv, BENCH_MODULE: moduleUrl },
  });
  return Number(stdout);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export interface ColdStartRow {
  name: string;
  bytes: number;
  initialBytes: number;
  sizeBudget: number;
  loadMs: number;
  overheadMs: number;
  loadBudgetMs: number;
  ok: boolean;
}

export interface ColdStartReport {
  runs: number;
  emptyHandlerMs: number;
  functions: ColdStartRow[];
  ok: boolean;
}

/** Runs are interleaved (empty, f1, f2, ... then again) so machine load drifts evenly over all of them. */
async function measure(bundles: BundleResult[], emptyUrl: string): Promise<{ empty: number[]; byName: Map<string, number[]> }> {
  const empty: number[] = [];
  const byName = new Map(bundles.map((b) => [b.name, [] as number[]]));
  for (let i = 0; i < runs; i++) {
    empty.push(await loadMs(emptyUrl));
    for (const b of bundles) byName.get(b.name)!.push(await loadMs(pathToFileURL(b.file).href));
  }
  return { empty, byName };
}

export async function coldStart(): Promise<ColdStartReport> {
  const bundles = await bundleFunctions();
  const dir = mkdtempSync(path.join(tmpdir(), 'maktaba-bench-'));
  try {
    const emptyFile = path.join(dir, 'index.mjs');
    writeFileSync(emptyFile, 'export const handler = async () => ({ statusCode: 200 });\n');
    const { empty, byName } = await measure(bundles, pathToFileURL(emptyFile).href);
    const emptyHandlerMs = median(empty);
    const functions = bundles.map((b): ColdStartRow => {
      const load = median(byName.get(b.name)!);
      const overheadMs = load - emptyHandlerMs;
      const budget = sizeBudget(b.name);
      const ok = b.bytes < budget && overheadMs < loadBudgetMs;
      return { name: b.name, bytes: b.bytes, initialBytes: b.initialBytes, sizeBudget: budget, loadMs: load, overheadMs, loadBudgetMs, ok };
    });
    return { runs, emptyHandlerMs, functions, ok: functions.every((f) => f.ok) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printColdStart(report: ColdStartReport): void {
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const header = ['function', 'bundle', 'at cold start', 'size budget', 'load', 'over empty', 'load budget', ''];
  const rows = report.functions.map((f) => [
    f.name,
    formatBytes(f.bytes),
    formatBytes(f.initialBytes),
    formatBytes(f.sizeBudget),
    ms(f.loadMs),
    ms(f.overheadMs),
    ms(f.loadBudgetMs),
    f.ok ? 'ok' : 'OVER BUDGET',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const r of [header, ...rows]) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  console.log(`empty handler: ${ms(report.emptyHandlerMs)} (median of ${report.runs} fresh processes)`);
  console.log(JSON.stringify({ bench: 'cold-start', ...report }));
}

await runIfMain(import.meta.url, coldStart, printColdStart);
