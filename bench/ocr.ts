import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { PageLayout } from '../ocr-worker/contract.ts';
import type { EngineKind } from '../ocr-worker/engine/choose-engine.ts';
import { langPathOf, modelData } from '../ocr-worker/engine/models.ts';
import { nativeTesseract } from '../ocr-worker/engine/native-engine.ts';
import { psmOf } from '../ocr-worker/engine/tsv.ts';
import { renderTextPage } from '../ocr-worker/fixtures/render.ts';
import type { FixtureLanguage } from '../ocr-worker/fixtures/pdf.ts';
import { modelFor } from '../ocr-worker/text/language.ts';
import { awsEstimate, type AwsEstimate } from './ocr/aws-arithmetic.ts';
import { buildKind, forms, isScan, kindName, type Form } from './ocr/evaluation-set.ts';
import { rowOf, type Measured, type OcrRow, type Rates, type Reading, type WorkerReading } from './ocr/rows.ts';
import { ocrTargets, pct, targetsOf, type Target } from './ocr/targets.ts';
import { cliInitMs, cliModelData, readWithCli, tesseractCli, type CliInfo } from './ocr/tesseract-cli.ts';
import type { WorkerResult, WorkerSpec } from './ocr/worker-child.ts';
import { runIfMain } from './report.ts';

/**
 * OCR bench (issues 13 and 33): side by side in one run, the worker with each engine (native
 * tesseract and tesseract.js) and the `tesseract` command line, on an evaluation set the bench builds
 * (bench/ocr/evaluation-set.ts): Arabic and English, scanned (PNG, TIFF, PDF of page images; among
 * the Arabic, two-column book pages) and born-digital PDFs.
 *
 * - Worker: per kind and engine one child process, reading the files through the worker's own
 *   modules (bench/ocr/worker-child.ts); the page images it wrote are what the command line reads.
 *   The native engine is measured only when tesseract 5 is installed, as the command line.
 * - Command line: the same images, one process per kind, `-l ara|eng --psm 3 --oem 1`,
 *   OMP_THREAD_LIMIT=1. Also, as diagnoses, with the worker's own model data (`4.0.0_best_int`), and with
 *   that data on the images the worker's engine read (its light evened where the worker evened it): the
 *   engine alone, so what the worker adds to it shows.
 * - Layout columns: on the Arabic scans the worker's engine once more at fixed `psm 3` and at fixed
 *   `psm 6`, against the worker's own layout.
 * - Confidence ranking: on the Arabic scans, the share of the character errors on the least confident
 *   tenth of the pages (bench/ocr/confidence-ranking.ts).
 * - Character error rate: corpus CER per kind (ocr-worker/text/cer.ts), with and without diacritics.
 * - Pages per minute per core: pages ÷ (wall minutes × cores used), cores used = the CPU time (the
 *   native engine's tesseract processes included) ÷ the wall time, at least 1 (every reader reads a page on
 *   one thread; a ratio under 1 means waiting for a core on this shared machine, which stays in the
 *   wall time). Worker: from opening each file to its last page's text (decoding, PDF rendering, page
 *   PNG, OCR), engine init excluded. Command line: the process's wall time less one start-up (the
 *   median time to read a tiny image).
 * - Peak memory: the largest resident set in the worker child's process tree (`/usr/bin/time`'s
 *   maximum, which takes in the native engine's tesseract processes; without it, the child's own maxRSS);
 *   tsx's loader is included, about 60 MB of it.
 *
 *   npm run bench -- ocr        OCR_BENCH_PAGES=n pages per kind (default 6)
 *   OCR_BENCH_HELD_OUT=1 npm run bench -- ocr    the held-out part instead: other pages of the same kinds
 *                                                (other line orders and scan damage), for one look at the end
 */
const pagesPerKind = Number(process.env.OCR_BENCH_PAGES ?? 6);
/** The held-out part's seed offset (evaluation-set.ts `buildKind`): pages no choice of the worker was tuned on. */
const heldOutSeedOffset = 500_000;
const seedOffset = process.env.OCR_BENCH_HELD_OUT === '1' ? heldOutSeedOffset : 0;
const languages: readonly FixtureLanguage[] = ['ar', 'en'];
const childScript = fileURLToPath(new URL('./ocr/worker-child.ts', import.meta.url));
const run = promisify(execFile);
const gnuTime = '/usr/bin/time';
/** The fixed layouts of the layout columns. */
const fixedLayouts: readonly PageLayout[] = ['auto', 'single-block'];

export interface OcrReport {
  pagesPerKind: number;
  /** The evaluation set's part: 'tuning' (seed offset 0) or 'held out'. */
  part: 'tuning' | 'held out';
  load: { before: number[]; after: number[] };
  cli?: { version: string; data: string[] };
  /** The engines measured, the worker's choice first. */
  engines: EngineKind[];
  rows: OcrRow[];
  aggregates: OcrRow[];
  aws: AwsEstimate;
  targets: Target[];
  ok: boolean;
}

const extension: Record<Form, string> = { png: 'png', tiff: 'tif', 'scanned-pdf': 'pdf', 'born-digital-pdf': 'pdf' };

/** One worker child; its peak RSS from /usr/bin/time when there is one (the process tree's largest). */
async function runWorker(spec: WorkerSpec, specFile: string): Promise<WorkerResult & { peakRss: number }> {
  mkdirSync(spec.pagesDir, { recursive: true });
  writeFileSync(specFile, JSON.stringify(spec));
  const node = [process.execPath, '--import', 'tsx', childScript, specFile];
  const timed = existsSync(gnuTime);
  const { stderr } = timed ? await run(gnuTime, ['-f', 'maxrss-kb %M', ...node], { maxBuffer: 64 * 1024 * 1024 }) : await run(node[0]!, node.slice(1), { maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(readFileSync(spec.resultFile, 'utf8')) as WorkerResult;
  const kb = timed ? /maxrss-kb (\d+)\s*$/.exec(stderr)?.[1] : undefined;
  return { ...result, peakRss: kb ? Number(kb) * 1024 : result.maxRss };
}

async function measureKind(dir: string, language: FixtureLanguage, form: Form, warmUp: string, engines: EngineKind[], cli: CliSide | undefined): Promise<Measured> {
  const kind = await buildKind(language, form, pagesPerKind, seedOffset);
  const kindDir = path.join(dir, `${language}-${form}`);
  mkdirSync(kindDir, { recursive: true });
  const files = kind.files.map((bytes, i) => {
    const file = path.join(kindDir, `file-${i + 1}.${extension[form]}`);
    writeFileSync(file, bytes);
    return file;
  });
  const measured: Measured = { references: kind.references, workers: {}, layouts: {} };
  const child = (name: string, engine: EngineKind, layout?: PageLayout) => {
    const spec: WorkerSpec = { files, language, engine, ...(layout && { layout }), warmUpPng: warmUp, pagesDir: path.join(kindDir, `pages-${name}`), resultFile: path.join(kindDir, `result-${name}.json`) };
    return runWorker(spec, path.join(kindDir, `spec-${name}.json`));
  };
  for (const engine of engines) measured.workers[engine] = await child(engine, engine);
  if (language === 'ar' && isScan(form)) {
    for (const layout of fixedLayouts) measured.layouts[layout] = await child(`psm-${psmOf(layout)}`, engines[0]!, layout);
  }
  if (cli) {
    const model = modelFor(language);
    const images = measured.workers[engines[0]!]!.pages.map((p) => p.image);
    const list = path.join(kindDir, 'list.txt');
    measured.cli = { ...(await readWithCli(images, model, list, cli.dataDir[model])), initMs: cli.initMs[model]! };
    if (cli.dataDir[model] === undefined && cli.sameDataInitMs[model] !== undefined) measured.cliSameData = { ...(await readWithCli(images, model, list, cli.sameDataDir)), initMs: cli.sameDataInitMs[model] };
    if (isScan(form)) {
      const read = measured.workers[engines[0]!]!.pages.map((p) => p.engineImage);
      measured.cliEngineImages = { ...(await readWithCli(read, model, list, cli.sameDataDir)), initMs: cli.sameDataInitMs[model]! };
    }
  }
  return measured;
}

/**
 * The command line's side: per model its data folder (undefined: the installed models), its start-up,
 * and the worker's own model data (gunzipped) for the diagnosis. A model the machine lacks (Debian
 * here has `eng` alone) is read with the worker's data: then the comparison is engine against engine.
 */
interface CliSide {
  info: CliInfo;
  dataDir: Record<string, string | undefined>;
  initMs: Record<string, number>;
  sameDataDir: string;
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
      const same = sameDataDir(dir);
      cli = { info, dataDir: {}, initMs: {}, sameDataDir: same, sameDataInitMs: {} };
      for (const language of languages) {
        const model = modelFor(language);
        const installed = existsSync(path.join(info.tessdataDir, `${model}.traineddata`));
        cli.dataDir[model] = installed ? undefined : same;
        cli.initMs[model] = await cliInitMs(warmUp[language], model, list, cli.dataDir[model]);
        cli.sameDataInitMs[model] = installed ? await cliInitMs(warmUp[language], model, list, same) : cli.initMs[model];
      }
    }

    // The worker's choice first (choose-engine.ts: native when tesseract 5 is installed): it reads the
    // images the command line reads, the layout columns and the confidence ranking.
    const engines: EngineKind[] = nativeTesseract() ? ['native', 'tesseract.js'] : ['tesseract.js'];
    const measured = new Map<string, Measured>();
    for (const language of languages) {
      for (const form of forms) {
        console.log(`  ${kindName(language, form)}: ${pagesPerKind} pages...`);
        measured.set(`${language} ${form}`, await measureKind(dir, language, form, warmUp[language], engines, cli));
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
    const worker = engines[0]!;
    const scanRows = rows.filter((r) => r.form !== 'born-digital-pdf');
    const secondsPerPage = Math.max(...scanRows.map((r) => 60 / r.engines[worker]!.pagesPerMinPerCore));
    const aws = awsEstimate(ocrTargets.awsPages, secondsPerPage, Math.max(...rows.map((r) => r.engines[worker]!.initMs)) / 1000);

    const targets = targetsOf({ rows, aggregates, aws, worker });
    return {
      pagesPerKind,
      part: seedOffset === 0 ? 'tuning' : 'held out',
      load: { before, after: loadavg() },
      ...(cli && { cli: { version: cli.info.version, data: languages.map((l) => modelFor(l)).map((m) => (cli!.dataDir[m] ? `${m}: the worker's ${modelData} (no installed ${m}.traineddata)` : cliModelData(cli!.info, m))) } }),
      engines,
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

const groups: { title: string; rows: (r: OcrRow) => boolean }[] = [
  { title: 'Arabic scans', rows: (r) => r.language === 'ar' && r.form !== 'born-digital-pdf' && r.name !== 'all scans' },
  { title: 'English scans', rows: (r) => r.language === 'en' && r.form !== 'born-digital-pdf' },
  { title: 'born-digital', rows: (r) => r.form === 'born-digital-pdf' },
  { title: 'all scans', rows: (r) => r.name === 'all scans' },
];

function printTable(header: string[], table: string[][]): void {
  const all = [header, ...table];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  for (const r of all) console.log('| ' + r.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |');
}

export function printOcr(report: OcrReport): void {
  const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');
  const cer = (r?: Rates) => (r ? `${pct(r.cer)} / ${pct(r.cerNoDiacritics)}` : '–');
  const speed = (r?: Reading) => (r ? r.pagesPerMinPerCore.toFixed(1) : '–');
  const worker = report.engines[0]!;
  console.log(report.cli ? `command line: ${report.cli.version}; models ${report.cli.data.join('; ')}` : 'tesseract not installed: the native engine and the command line are left out');
  console.log(`worker models: ${modelData} (@tesseract.js-data), ${report.pagesPerKind} pages per kind (${report.part} part); engines ${report.engines.join(', ')} (the worker's choice: ${worker}); load average before ${load(report.load.before)}, after ${load(report.load.after)}`);
  const withCli = report.rows.some((r) => r.cli);
  const header = [
    'kind',
    'pages',
    ...report.engines.map((e) => `${e} CER (with / without diacritics)`),
    ...(withCli ? ['CLI CER'] : []),
    ...report.engines.map((e) => `${e} pages/min/core`),
    ...(withCli ? ['CLI pages/min/core'] : []),
    ...report.engines.map((e) => `${e} peak RSS`),
  ];
  const notes = (e: WorkerReading, pages: number) => (e.textLayerPages ? ` (text layer ${e.textLayerPages}/${pages})` : '') + (e.readTwice ? ` (read twice ${e.readTwice})` : '');
  const line = (r: OcrRow) => [
    r.name,
    String(r.pages),
    ...report.engines.map((e) => cer(r.engines[e]) + notes(r.engines[e]!, r.pages)),
    ...(withCli ? [cer(r.cli)] : []),
    ...report.engines.map((e) => speed(r.engines[e])),
    ...(withCli ? [speed(r.cli)] : []),
    ...report.engines.map((e) => `${r.engines[e]!.peakRssMb.toFixed(0)} MB`),
  ];
  const everything = [...report.rows, ...report.aggregates];
  for (const group of groups) {
    console.log(`\n${group.title}`);
    printTable(header, everything.filter(group.rows).map(line));
  }
  const layoutRows = everything.filter((r) => Object.keys(r.layouts).length > 0);
  if (layoutRows.length) {
    console.log(`\nlayout, Arabic scans (${worker}): CER with / without diacritics`);
    printTable(['kind', `worker (${worker}, its own layout)`, ...fixedLayouts.map((l) => `fixed psm ${psmOf(l)}`)], layoutRows.map((r) => [r.name, cer(r.engines[worker]), ...fixedLayouts.map((l) => cer(r.layouts[l]))]));
  }
  const arabic = report.aggregates.find((r) => r.name === 'ar scans');
  if (arabic) {
    console.log('\nconfidence ranking, Arabic scans: the least confident tenth of the pages, its share of the character errors');
    for (const e of report.engines) {
      const k = arabic.engines[e]!.ranking;
      console.log(`  ${e}: ${k.tenth} of ${k.pages} pages, ${k.tenthErrors} of ${k.errors} errors (${pct(k.share)}; the most-wrong tenth holds ${pct(k.bestShare)}); rank correlation of confidence and errors ${k.rankCorrelation.toFixed(2)}`);
    }
  }
  if (report.rows.some((r) => r.cliEngineImages)) {
    console.log(`\ncommand line with the worker's own model data on the images ${worker} read (evened where the worker evened them): CER / pages/min/core, and the worker's share of its speed`);
    for (const r of everything) if (r.cliEngineImages) console.log(`  ${r.name}: ${cer(r.cliEngineImages)}, ${speed(r.cliEngineImages)} (${worker} ${pct(r.engines[worker]!.pagesPerMinPerCore / r.cliEngineImages.pagesPerMinPerCore)})`);
  }
  if (report.rows.some((r) => r.cliSameData)) {
    console.log("\ncommand line with the worker's own model data (4.0.0_best_int), same images: CER / pages/min/core");
    for (const r of everything) if (r.cliSameData) console.log(`  ${r.name}: ${cer(r.cliSameData)}, ${speed(r.cliSameData)}`);
  }
  for (const e of report.engines) {
    console.log(`\n${e} time split: ` + report.rows.map((r) => `${r.name} ${(r.engines[e]!.sourceMs / r.pages / 1000).toFixed(2)} s source + ${(r.engines[e]!.readMs / r.pages / 1000).toFixed(2)} s read a page`).join('; '));
    console.log(`${e} mean word confidence of the pages read by OCR (lowest–highest): ` + report.aggregates.filter((r) => r.name !== 'all scans').map((r) => `${r.name} ${r.engines[e]!.confidence?.map((c) => c.toFixed(0)).join('–') ?? '–'}`).join('; '));
  }
  const perCpu = (r: OcrRow, side?: Reading) => (side?.cpuMs ? (r.pages / (side.cpuMs / 60_000)).toFixed(1) : '–');
  console.log('\npages per CPU-minute (CPU time, not wall: unaffected by waiting for a core): ' + report.aggregates.map((r) => `${r.name} ${report.engines.map((e) => `${e} ${perCpu(r, r.engines[e])}`).join(', ')}, CLI ${perCpu(r, r.cli)}`).join('; '));
  console.log('engine init: ' + report.engines.map((e) => `${e} ${(Math.max(...report.rows.map((r) => r.engines[e]!.initMs)) / 1000).toFixed(2)} s`).join(', ') + (withCli ? `, command line start ${(Math.max(...report.rows.map((r) => r.cli!.initMs)) / 1000).toFixed(2)} s` : ''));
  console.log(`\n${report.aws.pages}-page scan on AWS (${worker}):`);
  for (const l of report.aws.lines) console.log(`  ${l}`);
  console.log('');
  for (const t of report.targets) console.log(`${t.ok ? 'ok  ' : 'MISS'} ${t.name}: ${t.detail}`);
  console.log(JSON.stringify({ bench: 'ocr', ...report }));
}

await runIfMain(import.meta.url, ocrBench, printOcr);
