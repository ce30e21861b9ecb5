import { spawn, type ChildProcess } from 'node:child_process';

/**
 * One long-lived `tesseract` process of one model and layout, reading page after page (issue 33). Started
 * with `stream_filelist`, tesseract reads image paths from its stdin as they arrive and writes each page's
 * TSV and then its text to its stdout, flushed per page. A process per page loads the model and starts anew
 * each time: 0.1-0.15 s a page more on an A4 Arabic page of 1.5 s (docs/benchmarks.md, 2026-11-28).
 *
 * Tesseract marks no page's end: the text of a page is done only when the next page begins. So every page
 * is followed by a blank image (`blank`, 16 × 16 white, read in well under a millisecond); when its TSV page
 * row arrives, the page before it is complete. Tesseract numbers its images from 1, the blanks included:
 * page k of this process is image 2k - 1, its blank 2k.
 *
 * A process reads one page at a time. Past its time limit it is killed; when it dies (an image it cannot
 * read ends the list), the page fails and the process is not used again.
 */
export interface TesseractProcessOptions {
  command: string;
  /** The arguments that choose the models folder, the model and the layout. */
  args: string[];
  /** The blank image's path. */
  blank: string;
}

export interface PageOutput {
  tsv: string;
  text: string;
}

interface Pending {
  image: number;
  done: (output: PageOutput) => void;
  failed: (error: Error) => void;
}

/** The TSV row that opens image `n`'s output: level 1 (the page), numbered n, at the origin. */
const pageRow = (n: number): string => `1\t${n}\t0\t0\t0\t0\t0\t0\t`;

/** Where a line starting with `row` begins in `text`, or -1. */
function lineStart(text: string, row: string): number {
  for (let at = text.indexOf(row); at !== -1; at = text.indexOf(row, at + 1)) if (at === 0 || text[at - 1] === '\n') return at;
  return -1;
}

/** A page's output, from its TSV page row on: the TSV rows (a tab in every one), then its text (no tabs). */
export function splitPageOutput(output: string): PageOutput {
  let end = 0;
  while (end < output.length) {
    const next = output.indexOf('\n', end);
    const line = output.slice(end, next === -1 ? output.length : next);
    if (!line.includes('\t')) break;
    end = next === -1 ? output.length : next + 1;
  }
  return { tsv: output.slice(0, end), text: output.slice(end) };
}

export class TesseractProcess {
  /** Pages read so far. */
  pages = 0;
  private readonly child: ChildProcess;
  private out = '';
  private stderr = '';
  private images = 0;
  private pending: Pending | undefined;
  private exited: Error | undefined;

  constructor(private readonly options: TesseractProcessOptions) {
    const args = ['stdin', 'stdout', ...options.args, '-c', 'stream_filelist=true', '-c', 'tessedit_create_txt=1', '-c', 'tessedit_create_tsv=1', '-c', 'page_separator='];
    this.child = spawn(options.command, args, { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      this.out += chunk;
      this.settle();
    });
    this.child.stderr!.setEncoding('utf8');
    // The last few thousand characters: the reason a page failed, should it fail.
    this.child.stderr!.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4_000);
    });
    // A closed pipe (tesseract gone) is reported by 'close'; the write's own error adds nothing.
    this.child.stdin!.on('error', () => undefined);
    this.child.on('error', (error) => this.end(error));
    this.child.on('close', (code, signal) => this.end(new Error(`tesseract exited ${code ?? signal}: ${this.stderr.trim()}`)));
  }

  /** Whether it can read another page. */
  get alive(): boolean {
    return this.exited === undefined;
  }

  /** Reads the image at `path` (a file name without a line break). */
  read(path: string): Promise<PageOutput> {
    if (this.pending) return Promise.reject(new Error('This tesseract process is reading a page already'));
    if (this.exited) return Promise.reject(this.exited);
    if (/[\r\n]/.test(path)) return Promise.reject(new Error('An image path with a line break'));
    this.pages++;
    this.images += 2;
    return new Promise<PageOutput>((done, failed) => {
      this.pending = { image: this.images - 1, done, failed };
      this.child.stdin!.write(`${path}\n${this.options.blank}\n`);
    });
  }

  /** Stops it: at once (`kill`), or after the page it reads (its list ends). */
  stop(kill = true): void {
    if (kill) this.child.kill('SIGKILL');
    else this.child.stdin!.end();
  }

  private settle(): void {
    const pending = this.pending;
    if (!pending) return;
    const blank = lineStart(this.out, pageRow(pending.image + 1));
    if (blank === -1) return;
    const start = lineStart(this.out, pageRow(pending.image));
    const output = start === -1 || start > blank ? undefined : this.out.slice(start, blank);
    // What follows the blank's row (its empty text) goes with it: the next page's output starts at its own row.
    this.out = this.out.slice(blank);
    this.pending = undefined;
    if (output === undefined) pending.failed(new Error(`tesseract wrote no output for its image ${pending.image}`));
    else pending.done(splitPageOutput(output));
  }

  private end(error: Error): void {
    this.exited ??= error;
    const pending = this.pending;
    this.pending = undefined;
    pending?.failed(this.exited);
  }
}
