/**
 * One measured worker, in its own process (so its peak RSS is its own): one engine (native tesseract,
 * `tesseract` processes kept per model and layout, or tesseract.js), optionally one fixed layout, the files of one
 * evaluation kind read as the worker reads a job's file: formatOf → openImage or openPdf (text layer
 * checked against OCR of a sample page) → each page's text layer, else readPage with the job's model.
 *
 *   node --import tsx bench/ocr/worker-child.ts <spec.json>
 *
 * The spec names the files, the job's language, a warm-up image and where to write each page's image
 * (the images the engine saw, for the command line) and the result. The engine starts on the warm-up
 * image first: its init is measured apart from the pages.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { imageFor, type OcrEngine, type PageLayout, type PageSource } from '../../ocr-worker/contract.ts';
import type { EngineKind } from '../../ocr-worker/engine/choose-engine.ts';
import { createNativeEngine } from '../../ocr-worker/engine/native-engine.ts';
import { readPage } from '../../ocr-worker/engine/read-page.ts';
import { createTesseractEngine } from '../../ocr-worker/engine/tesseract-engine.ts';
import { bytesOf, formatOf, openImage } from '../../ocr-worker/files/open-image.ts';
import { pageTimeoutMs } from '../../ocr-worker/job/runner.ts';
import { openPdf } from '../../ocr-worker/pdf/page-source.ts';
import { modelFor } from '../../ocr-worker/text/language.ts';
import { childrenCpuMs, liveChildrenCpuMs } from './tesseract-cli.ts';

export interface WorkerSpec {
  files: string[];
  language: string;
  engine: EngineKind;
  /** A fixed layout for every page (the layout columns); default the worker's own. */
  layout?: PageLayout;
  warmUpPng: string;
  pagesDir: string;
  resultFile: string;
}

export interface WorkerPage {
  text: string;
  /** The page's stored image (PNG file in pagesDir). */
  image: string;
  /** The image the engine read (`imageFor`: evened where the light was uneven, PGM for tesseract.js), or `image` when that was it or no engine read the page. */
  engineImage: string;
  fromTextLayer: boolean;
  /** Engine readings for this page (2: read again with the other script's model), its mean word confidence and the model kept. */
  readings: number;
  confidence?: number;
  model?: string;
  /** Opening its file (its share), getting the page (decode or render), reading it. */
  sourceMs: number;
  readMs: number;
}

export interface WorkerResult {
  pages: WorkerPage[];
  /** Engine start for the job's model: first warm-up reading minus the second. */
  initMs: number;
  /** Wall and CPU time (all threads, and the native engine's tesseract processes) of the page reading, files opened included, init excluded. */
  wallMs: number;
  cpuMs: number;
  /** Peak resident set of this process, bytes. */
  maxRss: number;
}

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as WorkerSpec;
const tesseract = spec.engine === 'native' ? createNativeEngine() : createTesseractEngine();
/** Counts the engine's readings: readPage reads a page again with the other script's model below its confidence bar. */
let readings = 0;
const engine: OcrEngine = {
  reads: tesseract.reads,
  recognize: (image, m, options) => {
    readings++;
    return tesseract.recognize(image, m, options);
  },
  close: () => tesseract.close(),
};
const model = modelFor(spec.language);

/** This process's CPU time and its children's (the native engine's tesseract processes), exited or live, ms. */
const cpuNow = (): number => {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + (childrenCpuMs() ?? 0) + liveChildrenCpuMs();
};

const timed = async <T>(f: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number }> => {
  const cpu = cpuNow();
  const t = performance.now();
  const value = await f();
  return { value, ms: performance.now() - t, cpuMs: cpuNow() - cpu };
};

const warmUp = readFileSync(spec.warmUpPng);
const first = await timed(() => engine.recognize(warmUp, model));
const again = await timed(() => engine.recognize(warmUp, model));

const pages: WorkerPage[] = [];
let wallMs = 0;
let cpuMs = 0;
for (const file of spec.files) {
  const bytes = bytesOf(readFileSync(file));
  const opened = await timed(async (): Promise<PageSource> => {
    const format = await formatOf(bytes);
    return format === 'pdf' ? openPdf(bytes, { textLayer: { engine, model } }) : openImage(bytes, format);
  });
  const source = opened.value;
  wallMs += opened.ms;
  cpuMs += opened.cpuMs;
  for (let n = 1; n <= source.pageCount; n++) {
    const got = await timed(() => source.page(n));
    const page = got.value;
    const before = readings;
    const read = await timed(async () => (page.textLayer !== undefined ? { text: page.textLayer } : await readPage(engine, imageFor(engine, page), model, { timeoutMs: pageTimeoutMs, ...(spec.layout && { layout: spec.layout }) })));
    wallMs += got.ms + read.ms;
    cpuMs += got.cpuMs + read.cpuMs;
    const name = join(spec.pagesDir, String(pages.length + 1).padStart(3, '0'));
    const image = `${name}.png`;
    writeFileSync(image, page.png);
    const seen = page.textLayer === undefined ? imageFor(engine, page) : page.png;
    const engineImage = seen === page.png ? image : `${name}-read.${engine.reads === 'png' ? 'png' : 'pgm'}`;
    if (engineImage !== image) writeFileSync(engineImage, seen);
    pages.push({
      text: read.value.text,
      image,
      engineImage,
      fromTextLayer: page.textLayer !== undefined,
      readings: readings - before,
      ...('confidence' in read.value && { confidence: read.value.confidence, model: read.value.model }),
      sourceMs: got.ms + opened.ms / source.pageCount,
      readMs: read.ms,
    });
  }
  await source.close();
}
await engine.close();

const result: WorkerResult = { pages, initMs: first.ms - again.ms, wallMs, cpuMs, maxRss: process.resourceUsage().maxRSS * 1024 };
writeFileSync(spec.resultFile, JSON.stringify(result));
