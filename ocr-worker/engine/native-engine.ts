import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PageError, type OcrEngine, type OcrModel, type PageLayout, type Recognized } from '../contract.ts';
import { meanConfidence, psmOf, tsvWords } from './tsv.ts';
import { langPathOf, modelData } from './models.ts';
import { enginePageDefaults, engineErrors } from './tesseract-engine.ts';
import { TesseractProcess, type PageOutput } from './tesseract-process.ts';

/**
 * The OCR engine over native Tesseract 5 (issue 33): `tesseract` processes with `OMP_THREAD_LIMIT=1` (a page
 * on one core; the worker runs a page per core), each of one model and layout, kept for the next page of
 * that model and layout (tesseract-process.ts): a page's PNG is written to a private folder and its path
 * handed over; its text and TSV (word confidences) come back. Pages read at once get processes of their
 * own; a process is replaced after `pagesPerProcess` pages, and after a page past its time limit or one it
 * could not read.
 * The models are the same `4.0.0_best_int` data as tesseract.js reads, from the same npm packages,
 * gunzipped once into a folder of the machine's temporary directory (tesseract reads plain
 * traineddata); Debian's own models are never used, so both engines read with the same weights.
 * Layout: automatic (`--psm 3`) unless a reading asks for a single block (`--psm 6`), as the tesseract.js engine.
 */
export interface NativeEngineOptions {
  /** The command; default `tesseract` on the PATH. */
  command?: string;
  /** Default per-page time limit. */
  timeoutMs?: number;
  /** Where the gunzipped models are kept; default a folder of the temporary directory. */
  tessdataDir?: string;
  /** Pages one tesseract process reads before it is replaced (bounds what a long-lived process may gather). */
  pagesPerProcess?: number;
}

/** The native tesseract on this machine, when there is one of version 5 or later: its command and version. */
export function nativeTesseract(command = 'tesseract'): { command: string; version: string } | undefined {
  const probe = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.error || probe.status !== 0) return undefined;
  const version = /tesseract\s+v?(\d+)\.(\d+)\.(\d+)/i.exec(`${probe.stdout}\n${probe.stderr}`);
  if (!version || Number(version[1]) < 5) return undefined;
  return { command, version: `${version[1]}.${version[2]}.${version[3]}` };
}

/**
 * The folder holding `<model>.traineddata`, gunzipped from the npm package the first time: written whole
 * under a name of its own, then renamed, so that threads and processes starting at once never read a
 * partial file.
 */
export function tessdataWith(model: OcrModel, dir = join(tmpdir(), `maktaba-tessdata-${modelData}`)): string {
  const file = join(dir, `${model}.traineddata`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${file}.${randomUUID()}.part`;
    writeFileSync(partial, gunzipSync(readFileSync(join(langPathOf(model), `${model}.traineddata.gz`))));
    renameSync(partial, file);
  }
  return dir;
}

/** A page's mean word confidence from tesseract's TSV (tsv.ts); 0 for a page with no words. */
export const meanWordConfidence = (tsv: string): number => meanConfidence(tsvWords(tsv));

export function createNativeEngine(options: NativeEngineOptions = {}): OcrEngine {
  const command = options.command ?? 'tesseract';
  const defaultTimeout = options.timeoutMs ?? enginePageDefaults.timeoutMs;
  const pagesPerProcess = options.pagesPerProcess ?? enginePageDefaults.pagesPerWorker;
  /** Processes waiting for a page, by model and layout; and every live one, to stop them on close. */
  const idle = new Map<string, TesseractProcess[]>();
  const live = new Set<TesseractProcess>();
  let closed = false;
  let scratch: string | undefined;
  let pages = 0;

  const scratchDir = (): string => {
    if (scratch) return scratch;
    scratch = mkdtempSync(join(tmpdir(), 'maktaba-ocr-'));
    writeFileSync(join(scratch, 'blank.pgm'), Buffer.concat([Buffer.from('P5\n16 16\n255\n', 'ascii'), Buffer.alloc(256, 255)]));
    return scratch;
  };

  const processFor = (model: OcrModel, psm: string): TesseractProcess => {
    const waiting = idle.get(`${model} ${psm}`) ?? [];
    for (let ready = waiting.pop(); ready; ready = waiting.pop()) {
      if (ready.alive) return ready;
      live.delete(ready);
    }
    const args = ['--tessdata-dir', tessdataWith(model, options.tessdataDir), '-l', model, '--oem', '1', '--psm', psm];
    const started = new TesseractProcess({ command, args, blank: join(scratchDir(), 'blank.pgm') });
    live.add(started);
    return started;
  };

  const retire = (reader: TesseractProcess, kill: boolean): void => {
    live.delete(reader);
    reader.stop(kill);
  };

  const read = async (image: Buffer, model: OcrModel, timeoutMs: number, layout?: PageLayout): Promise<Recognized> => {
    if (closed) throw new Error('The OCR engine is closed');
    const psm = psmOf(layout);
    const reader = processFor(model, psm);
    const file = join(scratchDir(), `page-${++pages}.png`);
    writeFileSync(file, image);
    let timer: NodeJS.Timeout | undefined;
    try {
      const output = await new Promise<PageOutput>((done, failed) => {
        timer = setTimeout(() => failed(new PageError(engineErrors.timeout(timeoutMs))), timeoutMs);
        reader.read(file).then(done, (error: unknown) => failed(new PageError(engineErrors.failed, { cause: error })));
      });
      const words = tsvWords(output.tsv);
      if (reader.pages >= pagesPerProcess || closed) retire(reader, false);
      else idle.set(`${model} ${psm}`, [...(idle.get(`${model} ${psm}`) ?? []), reader]);
      return { text: output.text, confidence: meanConfidence(words), words };
    } catch (error) {
      // Past its time limit, or dead: its state is unknown, and it reads no other page.
      retire(reader, true);
      throw error;
    } finally {
      clearTimeout(timer);
      rmSync(file, { force: true });
    }
  };

  return {
    // The PNG: native tesseract reads the page's PNG 0.2-0.3 s faster than its PGM (docs/benchmarks.md, 2026-11-27).
    reads: 'png',
    recognize: (image, model, opts) => read(image, model, opts?.timeoutMs ?? defaultTimeout, opts?.layout),
    async close() {
      closed = true;
      for (const reader of live) reader.stop(true);
      live.clear();
      idle.clear();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    },
  };
}
