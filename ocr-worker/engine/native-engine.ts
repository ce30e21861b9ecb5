import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PageError, type OcrEngine, type OcrModel, type PageLayout, type Recognized } from '../contract.ts';
import { meanConfidence, psmOf, tsvWords } from './tsv.ts';
import { langPathOf, modelData } from './models.ts';
import { enginePageDefaults, engineErrors } from './tesseract-engine.ts';

/**
 * The OCR engine over native Tesseract 5 (issue 33): the `tesseract` command, one process per page
 * with `OMP_THREAD_LIMIT=1` (a page on one core; the worker runs a page per core), reading the page's
 * PNG from stdin and writing its text and its TSV (word confidences) to a private folder.
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
  const running = new Set<ReturnType<typeof spawn>>();
  let closed = false;
  let scratch: string | undefined;
  let pages = 0;

  const read = async (image: Buffer, model: OcrModel, timeoutMs: number, layout?: PageLayout): Promise<Recognized> => {
    if (closed) throw new Error('The OCR engine is closed');
    const tessdata = tessdataWith(model, options.tessdataDir);
    scratch ??= mkdtempSync(join(tmpdir(), 'maktaba-ocr-'));
    const base = join(scratch, `page-${++pages}`);
    const args = ['stdin', base, '--tessdata-dir', tessdata, '-l', model, '--oem', '1', '--psm', psmOf(layout), '-c', 'tessedit_create_txt=1', '-c', 'tessedit_create_tsv=1'];
    const child = spawn(command, args, { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['pipe', 'ignore', 'pipe'] });
    running.add(child);
    try {
      await new Promise<void>((done, failed) => {
        let stderr = '';
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          failed(new PageError(engineErrors.timeout(timeoutMs)));
        }, timeoutMs);
        child.stderr!.on('data', (chunk: Buffer) => {
          if (stderr.length < 4_000) stderr += chunk.toString('utf8');
        });
        child.on('error', (error) => {
          clearTimeout(timer);
          failed(new PageError(engineErrors.failed, { cause: error }));
        });
        child.on('close', (code, signal) => {
          clearTimeout(timer);
          if (code === 0) done();
          else failed(new PageError(engineErrors.failed, { cause: new Error(`tesseract exited ${code ?? signal}: ${stderr.trim()}`) }));
        });
        // A closed pipe (tesseract gone) is reported by 'close'; the write's own error adds nothing.
        child.stdin!.on('error', () => undefined);
        child.stdin!.end(image);
      });
      try {
        const words = tsvWords(readFileSync(`${base}.tsv`, 'utf8'));
        return { text: readFileSync(`${base}.txt`, 'utf8'), confidence: meanConfidence(words), words };
      } catch (error) {
        throw new PageError(engineErrors.failed, { cause: error });
      }
    } finally {
      running.delete(child);
      rmSync(`${base}.txt`, { force: true });
      rmSync(`${base}.tsv`, { force: true });
    }
  };

  return {
    // The PNG: native tesseract reads the page's PNG 0.2-0.3 s faster than its PGM (docs/benchmarks.md, 2026-11-27).
    reads: 'png',
    recognize: (image, model, opts) => read(image, model, opts?.timeoutMs ?? defaultTimeout, opts?.layout),
    async close() {
      closed = true;
      for (const child of running) child.kill('SIGKILL');
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    },
  };
}
