import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Esbuild from 'esbuild';
import { commonJsShim, pdfReaderBundle } from '../bundle-shim.ts';
import { PageError, PageOverLimit, UnreadableFile, type FileBytes } from '../contract.ts';
import { pdfLimits } from './limits.ts';
import type { PageReadOptions, RawPage } from './page-read.ts';
import type { FromReader, ToReader } from './reader-protocol.ts';

/**
 * A PDF reader process (pdf/reader-child.ts) and its keeper. A PDF is hostile input that costs
 * nothing to forge: an image that declares 16,000 × 16,000 pixels, a 0.5 MB content stream that
 * inflates to 256 MB of drawing operators. pdfjs parses synchronously, so no timer in its own thread
 * can stop it, and what it decodes lives in typed arrays and Skia's memory, outside the heap a
 * worker thread's `resourceLimits` bound. So each document is parsed in a process of its own,
 * which is killed when a call runs past its time, or when its resident memory (read from
 * /proc/<pid>/status) passes the cap: the page becomes a page error, and a new process reads the next.
 */

/** What users read about a page the sandbox stopped (one place). */
export const sandboxErrors = {
  overTime: (pageNumber: number, ms: number) => `Page ${pageNumber} took longer than ${ms / 1000} s to read`,
  overMemory: (pageNumber: number, mb: number) => `Page ${pageNumber} needs more than ${mb.toLocaleString('en-US')} MB of memory to read`,
  crashed: (pageNumber: number) => `Page ${pageNumber} could not be read: its reader stopped`,
  openOverTime: (ms: number) => `The PDF took longer than ${ms / 1000} s to open`,
  openOverMemory: (mb: number) => `The PDF needs more than ${mb.toLocaleString('en-US')} MB of memory to open`,
} as const;

export interface SandboxLimits {
  /** Per page: parsing, text extraction and rendering together. */
  pageTimeoutMs: number;
  /** Starting the process and opening the document (its trailer, xref and page tree). */
  openTimeoutMs: number;
  /** The reader's resident memory. */
  maxMemoryMb: number;
}

/** How often the reader's memory is read: a runaway decode grows by about 1 GB a second, so it is caught within ~100 MB of the cap. */
const memoryPollMs = 50;

/**
 * The reader's script: on Lambda the bundle beside the handler (infra/ocr-worker-bundle.ts); run
 * from source (npm start, tests), the same bundle built once here by esbuild into node_modules/.cache,
 * named by its content. Not the TypeScript through tsx: tsx's loader alone costs the reader 350 MB.
 */
let built: Promise<string> | undefined;
function readerScript(): Promise<string> {
  const beside = join(dirname(fileURLToPath(import.meta.url)), pdfReaderBundle.file);
  if (existsSync(beside)) return Promise.resolve(beside);
  built ??= buildFromSource();
  return built;
}

async function buildFromSource(): Promise<string> {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  // A variable specifier: the Lambda bundle must not take esbuild in (it never builds there).
  const esbuildName = 'esbuild';
  const esbuild = (await import(esbuildName)) as typeof Esbuild;
  const out = await esbuild.build({
    entryPoints: [join(root, pdfReaderBundle.entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    external: ['@napi-rs/canvas'],
    banner: { js: commonJsShim },
    write: false,
    outfile: 'pdf-reader.mjs',
    logLevel: 'error',
  });
  const code = out.outputFiles[0]!.contents;
  const folder = join(root, 'node_modules', '.cache', 'maktaba');
  const file = join(folder, `pdf-reader-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    await mkdir(folder, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    await writeFile(partial, code);
    await rename(partial, file); // atomic: racing test workers each write whole files
  }
  return file;
}

/** Resident memory of a process in MB, from /proc (Linux, Lambda); undefined where /proc is absent. */
async function residentMb(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  const kb = status && /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  return kb ? Number(kb) / 1024 : undefined;
}

/** Why a reader was stopped; `stalled`: its time ran out while a read of the file was still unanswered (storage, not the page). */
type Stop = 'time' | 'memory' | 'exit' | 'stalled';

/** What a stalled read fails its call with: the storage's fault, so the task is delivered again, not the page failed. */
export const stalledReadMessage = 'A read of the file did not answer in time';

/** One reader process holding one open document. */
export class PdfReaderProcess {
  readonly pageCount: number;
  #closed = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly calls: ReaderCalls,
    pageCount: number,
  ) {
    this.pageCount = pageCount;
  }

  /** Starts a reader and opens the file in it: an UnreadableFile when the file cannot be opened within the limits. */
  static async open(bytes: FileBytes, limits: SandboxLimits, { maxPages, rangeChunkSize }: { maxPages: number; rangeChunkSize: number }): Promise<PdfReaderProcess> {
    const child = fork(await readerScript(), [], {
      // No credentials, no token, nothing of the worker's environment: the reader asks for bytes.
      env: { PATH: process.env.PATH ?? '' },
      execArgv: [`--max-old-space-size=${limits.maxMemoryMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const calls = new ReaderCalls(child, bytes, limits.maxMemoryMb);
    const answer = await calls.call({ type: 'open', size: bytes.size, maxPages, rangeChunkSize }, limits.openTimeoutMs);
    if (answer.type === 'opened') return new PdfReaderProcess(child, calls, answer.pageCount);
    child.kill('SIGKILL');
    if (answer.type === 'refused') throw new UnreadableFile(answer.message);
    if (answer.type === 'readFailed') throw calls.readError ?? new Error('A read of the file failed');
    if (answer.type === 'stopped') {
      if (answer.why === 'stalled') throw new Error(stalledReadMessage);
      throw new UnreadableFile(answer.why === 'memory' ? sandboxErrors.openOverMemory(limits.maxMemoryMb) : sandboxErrors.openOverTime(limits.openTimeoutMs));
    }
    throw new Error(`unexpected answer from the PDF reader: ${answer.type}`);
  }

  /** The most resident memory seen in the process, in MB (0 where /proc is absent). */
  get peakMemoryMb(): number {
    return this.calls.peakMb;
  }

  /** Whether the process still serves pages (a page that ran past a limit ends it). */
  get alive(): boolean {
    return !this.#closed && this.calls.stopped === undefined;
  }

  /** One page; a page past a limit is a PageError (and this reader is gone); a failed range read rejects with its error. */
  async page(pageNumber: number, options: Omit<PageReadOptions, 'deadline' | 'limitMs'>, limits: SandboxLimits): Promise<RawPage> {
    const deadline = Date.now() + limits.pageTimeoutMs;
    const answer = await this.calls.call({ type: 'page', pageNumber, options: { ...options, deadline, limitMs: limits.pageTimeoutMs } }, limits.pageTimeoutMs + 1000);
    if (answer.type === 'page') {
      const { png, grey } = answer.page;
      return { ...answer.page, png: Buffer.from(png.buffer, png.byteOffset, png.byteLength), grey: Buffer.from(grey.buffer, grey.byteOffset, grey.byteLength) };
    }
    throw this.failure(answer, pageNumber, limits);
  }

  /** One page's raw text layer alone (pdf/page-read.ts `readPdfLayer`); fails as `page` does. */
  async layer(pageNumber: number, limits: SandboxLimits): Promise<string> {
    const answer = await this.calls.call({ type: 'layer', pageNumber }, limits.pageTimeoutMs);
    if (answer.type === 'layer') return answer.layer;
    throw this.failure(answer, pageNumber, limits);
  }

  /** What a page call that did not answer its page fails with. */
  private failure(answer: Answer, pageNumber: number, limits: SandboxLimits): Error {
    if (answer.type === 'refused' && answer.overLimit) {
      // Stopped in the reader at its limit: what pdfjs was still doing for the page (an operator list has no
      // cancel) must not run on into the next page's time, so the next page gets a new reader.
      this.close();
      return new PageOverLimit(answer.message);
    }
    if (answer.type === 'refused') return new PageError(answer.message);
    if (answer.type === 'readFailed') return (this.calls.readError as Error | undefined) ?? new Error('A read of the file failed');
    if (answer.type === 'stopped') {
      if (answer.why === 'stalled') return new Error(stalledReadMessage);
      if (answer.why === 'memory') return new PageOverLimit(sandboxErrors.overMemory(pageNumber, limits.maxMemoryMb));
      if (answer.why === 'time') return new PageOverLimit(sandboxErrors.overTime(pageNumber, limits.pageTimeoutMs));
      return new PageError(sandboxErrors.crashed(pageNumber));
    }
    return new Error(`unexpected answer from the PDF reader: ${answer.type}`);
  }

  close(): void {
    this.#closed = true;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

type Answer = Exclude<FromReader, { type: 'read' }> | { type: 'stopped'; why: Stop };

/** The calls to one reader, one at a time: its range reads served, its time and memory watched. */
class ReaderCalls {
  stopped: Stop | undefined;
  readError: unknown;
  peakMb = 0;
  /** Range reads asked for and not yet answered. */
  #reading = 0;
  #waiting: ((answer: Answer) => void) | undefined;

  constructor(
    private readonly child: ChildProcess,
    private readonly bytes: FileBytes,
    private readonly maxMemoryMb: number,
  ) {
    child.on('message', (message: FromReader) => {
      if (message.type === 'read') void this.serve(message);
      else this.answer(message);
    });
    child.on('exit', () => this.stop('exit'));
    child.on('error', () => this.stop('exit'));
  }

  private async serve({ id, start, end }: { id: number; start: number; end: number }): Promise<void> {
    const reply = (message: ToReader) => {
      if (this.child.connected) this.child.send(message);
    };
    this.#reading++;
    try {
      reply({ type: 'bytes', id, data: await this.bytes.read(start, end) });
    } catch (error) {
      this.readError ??= error;
      reply({ type: 'bytes', id });
    } finally {
      this.#reading--;
    }
  }

  private answer(answer: Answer): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.(answer);
  }

  private stop(why: Stop): void {
    this.stopped ??= why;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    this.answer({ type: 'stopped', why: this.stopped });
  }

  call(message: ToReader, timeoutMs: number): Promise<Answer> {
    if (!this.stopped && !this.child.connected) this.stop('exit');
    if (this.stopped) return Promise.resolve({ type: 'stopped', why: this.stopped });
    return new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => this.stop(this.#reading > 0 ? 'stalled' : 'time'), timeoutMs);
      const watch = setInterval(() => {
        const pid = this.child.pid;
        if (pid === undefined) return;
        void residentMb(pid).then((mb) => {
          if (mb === undefined) return;
          this.peakMb = Math.max(this.peakMb, mb);
          if (mb > this.maxMemoryMb) this.stop('memory');
        });
      }, memoryPollMs);
      this.#waiting = (answer) => {
        clearTimeout(timer);
        clearInterval(watch);
        resolve(answer);
      };
      this.child.send(message);
    });
  }
}

/** The limits the worker reads every PDF within (pdf/limits.ts). */
export const defaultSandboxLimits: SandboxLimits = {
  pageTimeoutMs: pdfLimits.pageTimeoutMs,
  openTimeoutMs: pdfLimits.openTimeoutMs,
  maxMemoryMb: pdfLimits.maxReaderMemoryMb,
};
