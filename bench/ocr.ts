import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { langPathOf, modelData } from '../ocr-worker/engine/models.ts';
import { renderTextPage } from '../ocr-worker/fixtures/render.ts';
import type { FixtureLanguage } from '../ocr-worker/fixtures/pdf.ts';
import { corpusCer } from '../ocr-worker/text/cer.ts';
import { modelFor } from '../ocr-worker/text/language.ts';
import { awsEstimate, type AwsEstimate } from './ocr/aws-arithmetic.ts';
import { buildKind, forms, isScan, kindName, type Form } from './ocr/evaluation-set.ts';
import { cliInitMs, cliModelData, readWithCli, tesseractCli, type CliInfo } from './ocr/tesseract-cli.ts';
import type { WorkerResult, WorkerSpec } from './ocr/worker-child.ts';
import { runIfMain } from './report.ts';

/**
 * OCR bench (issue 13): the worker against the `tesseract` command line on an evaluation set the
 * bench builds (bench/ocr/evaluation-set.ts), Arabic and English, scanned (PNG, TIFF, PDF of page
 * images) and born-digital PDFs.
 *
 * - Worker: per kind one child process with one engine, reading the files through the worker's own
 *   modules (bench/ocr/worker-child.ts); its page images are what the command line reads.
 * - Command line: the same images, one process per kind, `-l ara|eng --psm 3 --oem 1`,
 *   OMP_THREAD_LIMIT=1. Also, as a diagnosis, with the worker's own model data (`4.0.0_best_int`).
 * - Character error rate: corpus CER per kind (ocr-worker/text/cer.ts), with and without diacritics.
 * - Pages per minute per core: pages ÷ (wall minutes × cores used), cores used = the process's CPU
 *   time ÷ its wall time, at least 1 (both read pages on one thread; a ratio under 1 means waiting for
 *   a core on this shared machine, which stays in the wall time). Worker: from opening each file to
 *   its last page's text (decoding, PDF rendering, page PNG, OCR), engine init excluded. Command line:
 *   the process's wall time less one start-up (the median time to read a tiny image).
 * - Peak memory: the worker process's maxRSS (tsx's loader included, about 60 MB of it).
 *
 *   npm run bench -- ocr        OCR_BENCH_PAGES=n pages per kind (default 6)
 */
const pagesPerKind = Number(process.env.OCR_BENCH_PAGES ?? 6);
const languages: readonly FixtureLanguage[] = ['ar', 'en'];
const childScript = fileURLToPath(new URL('./ocr/worker-child.ts', import.meta.url));
const run = promisify(execFile);

/** Targets; one place for the numbers. */
export const ocrTargets = {
  /** Scans: the worker's CER at most the command line's plus this (percentage points / 100), with and without diacritics. */
  scanCerTolerance: 0.005,
  /** Born-digital PDFs: "far better" is at most this share of the command line's CER (or under 0.1%). */
  bornDigitalShare: 0.25,
  bornDigitalFloor: 0.001,
  /** Pages per minute per core, against the command line's, on all scans together. */
  speedShare: 0.8,
  /**
   * Without the command line, absolute CER bounds (with diacritics), a margin over what the worker
   * measured with the command line beside it (Arabic scans 15.7%, English 0.5%, born-digital 0.8%).
   */
  absolute: { 'ar scans': 0.18, 'en scans': 0.015, 'born-digital': 0.015 },
  /** The 300-page scan on AWS, seconds. */
  awsPages: 300,
  awsSeconds: 180,
} as const;

export interface Reading {
  cer: number;
  cerNoDiacritics: number;
  wallMs: number;
  cpuMs: number | undefined;
  cores: number;
  pagesPerMinPerCore: number;
  initMs: number;
}

export interface OcrRow {
  name: string;
  language: FixtureLanguage;
  form: Form | 'scans';
  pages: number;
  characters: number;
  worker: Reading & { peakRssMb: number; textLayerPages: number; readTwice: number; confidence: [number, number] | undefined; sourceMs: number; readMs: number };
  cli?: Reading;
  cliSameData?: Reading;
}

export interface OcrReport {
  pagesPerKind: number;
  load: { before: number[]; after: number[] };
  cli?: { version: string; data: string[] };
  rows: OcrRow[];
  aggregates: OcrRow[];
  aws: AwsEstimate;
  targets: { name: string; ok: boolean; detail: string }[];
  ok: boolean;
}

interface Measured {
  references: string[];
  worker: WorkerResult;
  cli?: { texts: string[]; wallMs: number; cpuMs: number | undefined; initMs: number };
  cliSameData?: { texts: string[]; wallMs: number; cpuMs: number | undefined; initMs: number };
}

const extension: Record<Form, string> = { png: 'png', tiff: 'tif', 'scanned-pdf': 'pdf', 'born-digital-pdf': 'pdf' };

async function measureKind(dir: string, language: FixtureLanguage, form: Form, warmUp: string, cli: CliSide | undefined): Promise<Measured> {
  const kind = await buildKind(language, form, pagesPerKind);
  const kindDir = path.join(dir, `${language}-${form}`);
  const pagesDir = path.join(kindDir, 'pages');
  mkdirSync(pagesDir, { recursive: true });
  const files = kind.files.map((bytes, i) => {
    const file = path.join(kindDir, `file-${i + 1}.${extension[form]}`);
    writeFileSync(file, bytes);
    return file;
  });
  const spec: WorkerSpec = { files, language, warmUpPng: warmUp, pagesDir, resultFile: path.join(kindDir, 'result.json') };
  writeFileSync(path.join(kindDir, 'spec.json'), JSON.stringify(spec));
  await run(process.execPath, ['--import', 'tsx', childScript, path.join(kindDir, 'spec.json')], { maxBuffer: 64 * 1024 * 1024 });
  const worker = JSON.parse(readFileSync(spec.resultFile, 'utf8')) as WorkerResult;
  const measured: Measured = { references: kind.references, worker };
  if (cli) {
    const model = modelFor(language);
    const images = worker.pages.map((p) => p.image);
    const list = path.join(kindDir, 'list.txt');
    measured.cli = { ...(await readWithCli(images, model, list)), initMs: cli.initMs[model]! };
    if (cli.sameDataDir) measured.cliSameData = { ...(await readWithCli(images, model, list, cli.sameDataDir)), initMs: cli.sameDataInitMs[model]! };
  }
  return measured;
}

interface CliSide {
  info: CliInfo;
  initMs: Record<string, number>;
  sameDataDir?: string;
  sameDataInitMs: Record<string, number>;
}

/** The worker's model data, gunzipped for the command line (`--tessdata-dir`), to tell data from engine. */
function sameDataDir(dir: string): string {
  const out = path.join(dir, 'tessdata-worker');
  mkdirSync(out, { recursive: true });
  for (const language of languages) {
    const model = modelFor(language);
    writeFileSync(path.join(out, `${model}.traineddata`), gunzipSync(readFileSync(path.join(langPathOf(model), `${model}.traineddata.gz`))));
  }
  return out;
}

const range = (xs: number[]): [number, number] | undefined => (xs.length ? [Math.min(...xs), Math.max(...xs)] : undefined);

const perMinPerCore = (pages: number, wallMs: number, cpuMs: number | undefined): { cores: number; pagesPerMinPerCore: number } => {
  const cores = Math.max(1, cpuMs === undefined ? 1 : cpuMs / wallMs);
  return { cores, pagesPerMinPerCore: pages / ((wallMs / 60_000) * cores) };
};

function rowOf(name: string, language: FixtureLanguage, form: OcrRow['form'], parts: Measured[]): OcrRow {
  const references = parts.flatMap((p) => p.references);
  const pairs = (texts: string[]) => references.map((reference, i) => ({ reference, hypothesis: texts[i]! }));
  const rates = (texts: string[]) => ({ cer: corpusCer(pairs(texts)), cerNoDiacritics: corpusCer(pairs(texts), { ignoreDiacritics: true }) });
  const sum = (f: (p: Measured) => number) => parts.reduce((n, p) => n + f(p), 0);
  const pages = references.length;
  const workerWall = sum((p) => p.worker.wallMs);
  const workerCpu = sum((p) => p.worker.cpuMs);
  const row: OcrRow = {
    name,
    language,
    form,
    pages,
    characters: references.reduce((n, r) => n + [...r].length, 0),
    worker: {
      ...rates(parts.flatMap((p) => p.worker.pages.map((x) => x.text))),
      wallMs: workerWall,
      cpuMs: workerCpu,
      ...perMinPerCore(pages, workerWall, workerCpu),
      initMs: Math.max(...parts.map((p) => p.worker.initMs)),
      peakRssMb: Math.max(...parts.map((p) => p.worker.maxRss)) / 1024 / 1024,
      textLayerPages: sum((p) => p.worker.pages.filter((x) => x.fromTextLayer).length),
      readTwice: sum((p) => p.worker.pages.filter((x) => x.readings > 1).length),
      confidence: range(parts.flatMap((p) => p.worker.pages.flatMap((x) => (x.confidence === undefined ? [] : [x.confidence])))),
      sourceMs: sum((p) => p.worker.pages.reduce((n, x) => n + x.sourceMs, 0)),
      readMs: sum((p) => p.worker.pages.reduce((n, x) => n + x.readMs, 0)),
    },
  };
  for (const side of ['cli', 'cliSameData'] as const) {
    if (!parts.every((p) => p[side])) continue;
    const wallMs = sum((p) => p[side]!.wallMs - p[side]!.initMs);
    const cpuKnown = parts.every((p) => p[side]!.cpuMs !== undefined);
    const cpuMs = cpuKnown ? sum((p) => p[side]!.cpuMs! * ((p[side]!.wallMs - p[side]!.initMs) / p[side]!.wallMs)) : undefined;
    row[side] = { ...rates(parts.flatMap((p) => p[side]!.texts)), wallMs, cpuMs, ...perMinPerCore(pages, wallMs, cpuMs), initMs: Math.max(...parts.map((p) => p[side]!.initMs)) };
  }
  return row;
}

export async function ocrBench(): Promise<OcrReport> {
  const dir = mkdtempSync(path.join(tmpdir(), 'maktaba-ocr-bench-'));
  const before = loadavg();
  try {
    const warmUp: Record<FixtureLanguage, string> = { ar: path.join(dir, 'warm-ar.png'), en: path.join(dir, 'warm-en.png') };
    writeFileSync(warmUp.ar, renderTextPage({ lines: ['كتاب'], font: 'amiri' }));
    writeFileSync(warmUp.en, renderTextPage({ lines: ['book'], font: 'noto-serif' }));

    const info = await tesseractCli();
    let cli: CliSide | undefined;
    if (info) {
      const list = path.join(dir, 'init-list.txt');
      const same = process.env.OCR_BENCH_CLI_SAME_DATA === '0' ? undefined : sameDataDir(dir);
      cli = { info, initMs: {}, sameDataInitMs: {}, ...(same && { sameDataDir: same }) };
      for (const language of languages) {
        const model = modelFor(language);
        cli.initMs[model] = await cliInitMs(warmUp[language], model, list);
        if (same) cli.sameDataInitMs[model] = await cliInitMs(warmUp[language], model, list, same);
      }
    }

    const measured = new Map<string, Measured>();
    for (const language of languages) {
      for (const form of forms) {
        console.log(`  ${kindName(language, form)}: ${pagesPerKind} pages...`);
        measured.set(`${language} ${form}`, await measureKind(dir, language, form, warmUp[language], cli));
      }
    }
    const get = (language: FixtureLanguage, form: Form) => measured.get(`${language} ${form}`)!;
    const rows = languages.flatMap((language) => forms.map((form) => rowOf(kindName(language, form), language, form, [get(language, form)])));
    const scanForms = forms.filter(isScan);
    const aggregates = [
      ...languages.map((language) => rowOf(`${language} scans`, language, 'scans', scanForms.map((form) => get(language, form)))),
      rowOf('all scans', 'ar', 'scans', languages.flatMap((language) => scanForms.map((form) => get(language, form)))),
    ];

    // The slowest scanned kind sets the time per page; the longest engine start the init.
    const scanRows = rows.filter((r) => r.form !== 'born-digital-pdf');
    const secondsPerPage = Math.max(...scanRows.map((r) => 60 / r.worker.pagesPerMinPerCore));
    const aws = awsEstimate(ocrTargets.awsPages, secondsPerPage, Math.max(...rows.map((r) => r.worker.initMs)) / 1000);

    const targets = targetsOf(rows, aggregates, aws, cli !== undefined);
    return {
      pagesPerKind,
      load: { before, after: loadavg() },
      ...(info && { cli: { version: info.version, data: languages.map((l) => cliModelData(info, modelFor(l))) } }),
      rows,
      aggregates,
      aws,
      targets,
      ok: targets.every((t) => t.ok),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

function targetsOf(rows: OcrRow[], aggregates: OcrRow[], aws: AwsEstimate, withCli: boolean): OcrReport['targets'] {
  const t = ocrTargets;
  const targets: OcrReport['targets'] = [];
  const bornDigital = rows.filter((r) => r.form === 'born-digital-pdf');
  const scans = aggregates.filter((r) => r.name !== 'all scans');
  if (withCli) {
    for (const r of scans) {
      const cli = r.cli!;
      targets.push({
        name: `${r.name}: CER no worse than the command line's (+${pct(t.scanCerTolerance)})`,
        ok: r.worker.cer <= cli.cer + t.scanCerTolerance && r.worker.cerNoDiacritics <= cli.cerNoDiacritics + t.scanCerTolerance,
        detail: `worker ${pct(r.worker.cer)} / ${pct(r.worker.cerNoDiacritics)}, command line ${pct(cli.cer)} / ${pct(cli.cerNoDiacritics)}`,
      });
    }
    for (const r of bornDigital) {
      const cli = r.cli!;
      targets.push({
        name: `${r.name}: CER far better (≤ ${t.bornDigitalShare} × the command line's, or under ${pct(t.bornDigitalFloor)})`,
        ok: r.worker.cer <= Math.max(t.bornDigitalShare * cli.cer, t.bornDigitalFloor),
        detail: `worker ${pct(r.worker.cer)}, command line ${pct(cli.cer)}`,
      });
    }
    const all = aggregates.find((r) => r.name === 'all scans')!;
    targets.push({
      name: `all scans: pages/min/core ≥ ${t.speedShare} × the command line's`,
      ok: all.worker.pagesPerMinPerCore >= t.speedShare * all.cli!.pagesPerMinPerCore,
      detail: `worker ${all.worker.pagesPerMinPerCore.toFixed(1)}, command line ${all.cli!.pagesPerMinPerCore.toFixed(1)} (${pct(all.worker.pagesPerMinPerCore / all.cli!.pagesPerMinPerCore)})`,
    });
  } else {
    for (const r of scans) {
      const bound = t.absolute[r.name as 'ar scans' | 'en scans'];
      targets.push({ name: `${r.name}: CER under ${pct(bound)} (no command line)`, ok: r.worker.cer <= bound, detail: pct(r.worker.cer) });
    }
    for (const r of bornDigital) {
      targets.push({ name: `${r.name}: CER under ${pct(t.absolute['born-digital'])} (no command line)`, ok: r.worker.cer <= t.absolute['born-digital'], detail: pct(r.worker.cer) });
    }
  }
  targets.push({ name: `${t.awsPages}-page scan on AWS under ${t.awsSeconds / 60} minutes`, ok: aws.totalS <= t.awsSeconds, detail: `${aws.totalS.toFixed(0)} s` });
  return targets;
}

export function printOcr(report: OcrReport): void {
  const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');
  const cer = (r?: { cer: number; cerNoDiacritics: number }) => (r ? `${pct(r.cer)} / ${pct(r.cerNoDiacritics)}` : '–');
  const speed = (r?: Reading) => (r ? r.pagesPerMinPerCore.toFixed(1) : '–');
  console.log(report.cli ? `command line: ${report.cli.version}; models ${report.cli.data.join('; ')}` : 'tesseract CLI not installed: skipped');
  console.log(`worker models: ${modelData} (@tesseract.js-data), ${report.pagesPerKind} pages per kind; load average before ${load(report.load.before)}, after ${load(report.load.after)}`);
  const header = ['kind', 'pages', 'worker CER (with / without diacritics)', 'CLI CER', 'worker pages/min/core', 'CLI pages/min/core', 'worker peak RSS'];
  const line = (r: OcrRow) => [
    r.name,
    String(r.pages),
    cer(r.worker) + (r.worker.textLayerPages ? ` (text layer ${r.worker.textLayerPages}/${r.pages})` : '') + (r.worker.readTwice ? ` (read twice ${r.worker.readTwice})` : ''),
    cer(r.cli),
    speed(r.worker),
    speed(r.cli),
    `${r.worker.peakRssMb.toFixed(0)} MB`,
  ];
  const table = [header, ...report.rows.map(line), ...report.aggregates.map(line)];
  const widths = header.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  console.log('');
  for (const r of table) console.log('| ' + r.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |');
  if (report.rows.some((r) => r.cliSameData)) {
    console.log('\ncommand line with the worker\'s own model data (4.0.0_best_int), same images: CER / pages/min/core');
    for (const r of [...report.rows, ...report.aggregates]) if (r.cliSameData) console.log(`  ${r.name}: ${cer(r.cliSameData)}, ${speed(r.cliSameData)}`);
  }
  console.log('\nworker time split (all kinds): ' + report.rows.map((r) => `${r.name} ${(r.worker.sourceMs / r.pages / 1000).toFixed(2)} s source + ${(r.worker.readMs / r.pages / 1000).toFixed(2)} s read a page`).join('; '));
  console.log('mean word confidence of the pages read by OCR (lowest–highest): ' + report.aggregates.filter((r) => r.name !== 'all scans').map((r) => `${r.name} ${r.worker.confidence?.join('–') ?? '–'}`).join('; '));
  const perCpu = (r: OcrRow, side?: Reading) => (side?.cpuMs ? (r.pages / (side.cpuMs / 60_000)).toFixed(1) : '–');
  console.log('pages per CPU-minute (CPU time, not wall: unaffected by waiting for a core): ' + report.aggregates.map((r) => `${r.name} worker ${perCpu(r, r.worker)}, CLI ${perCpu(r, r.cli)}`).join('; '));
  console.log(`engine init: worker ${(Math.max(...report.rows.map((r) => r.worker.initMs)) / 1000).toFixed(2)} s` + (report.rows[0]?.cli ? `, command line start ${(Math.max(...report.rows.map((r) => r.cli!.initMs)) / 1000).toFixed(2)} s` : ''));
  console.log(`\n${report.aws.pages}-page scan on AWS:`);
  for (const l of report.aws.lines) console.log(`  ${l}`);
  console.log('');
  for (const t of report.targets) console.log(`${t.ok ? 'ok  ' : 'MISS'} ${t.name}: ${t.detail}`);
  console.log(JSON.stringify({ bench: 'ocr', ...report }));
}

await runIfMain(import.meta.url, ocrBench, printOcr);

