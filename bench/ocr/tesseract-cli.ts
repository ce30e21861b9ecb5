import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The `tesseract` command line, for the side-by-side: the same page images, settings comparable to
 * the worker's (`--oem 1` LSTM only, `--psm 3` automatic layout as the engine sets), one core
 * (`OMP_THREAD_LIMIT=1`: Tesseract's OpenMP would otherwise use both), one process per batch of
 * pages (a list file), its output split on the page separator (form feed).
 */
const run = promisify(execFile);
const env = { ...process.env, OMP_THREAD_LIMIT: '1' };

export interface CliInfo {
  version: string;
  tessdataDir: string;
}

/** The installed command line, or undefined when there is none. */
export async function tesseractCli(): Promise<CliInfo | undefined> {
  try {
    const version = (await run('tesseract', ['--version'], { env })).stdout.split('\n')[0]!.trim();
    const langs = await run('tesseract', ['--list-langs'], { env });
    const tessdataDir = /"([^"]+)"/.exec(langs.stdout + langs.stderr)?.[1] ?? '';
    return { version, tessdataDir };
  } catch {
    return undefined;
  }
}

/**
 * Which data the command line's model is: the Debian package's copyright names its upstream
 * (`tessdata_fast`, `tessdata_best` or `tessdata`); elsewhere the file size is all there is.
 */
export function cliModelData(info: CliInfo, model: string): string {
  const file = join(info.tessdataDir, `${model}.traineddata`);
  const size = existsSync(file) ? `${(statSync(file).size / 1e6).toFixed(1)} MB` : 'missing';
  const copyright = `/usr/share/doc/tesseract-ocr-${model}/copyright`;
  const upstream = existsSync(copyright) ? /^Upstream-Name:\s*(\S+)/m.exec(readFileSync(copyright, 'utf8'))?.[1] : undefined;
  return `${model}.traineddata ${size}${upstream ? `, ${upstream}` : ''}`;
}

/** A /proc stat line's fields from the third (state) on: the process name, in brackets, may hold spaces. */
const statFields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');
/** Clock ticks a second, as /proc counts CPU time (USER_HZ, 100 on Linux). */
const ticks = 100;

/** CPU time this process's waited-for children used so far (Linux /proc; undefined elsewhere), ms. */
export function childrenCpuMs(): number | undefined {
  try {
    const fields = statFields(readFileSync('/proc/self/stat', 'utf8'));
    // Fields 16 and 17 (cutime, cstime) in clock ticks, counted from field 3 here.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / ticks;
  } catch {
    return undefined;
  }
}

/**
 * CPU time this process's live children have used so far (Linux /proc; 0 elsewhere), ms: the native
 * engine's long-lived tesseract processes, which `childrenCpuMs` counts only once they have exited.
 */
export function liveChildrenCpuMs(): number {
  let ms = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    try {
      const fields = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      // Fields 4 (ppid), 14 and 15 (utime, stime), counted from field 3 here.
      if (Number(fields[1]) === process.pid) ms += ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
    } catch {
      // Gone meanwhile: then its time is in childrenCpuMs.
    }
  }
  return ms;
}

export interface CliRead {
  texts: string[];
  wallMs: number;
  cpuMs: number | undefined;
}

/** Reads the images in one process; `tessdataDir` to use other model data than the installed one. */
export async function readWithCli(images: string[], model: string, listFile: string, tessdataDir?: string): Promise<CliRead> {
  writeFileSync(listFile, images.join('\n') + '\n');
  const args = [listFile, 'stdout', '-l', model, '--psm', '3', '--oem', '1', ...(tessdataDir ? ['--tessdata-dir', tessdataDir] : [])];
  const cpu = childrenCpuMs();
  const t = performance.now();
  const { stdout } = await run('tesseract', args, { env, maxBuffer: 256 * 1024 * 1024 });
  const wallMs = performance.now() - t;
  const after = childrenCpuMs();
  const texts = stdout.split('\f');
  if (texts.length > images.length && texts.at(-1)!.trim() === '') texts.pop();
  if (texts.length !== images.length) throw new Error(`tesseract gave ${texts.length} pages for ${images.length} images`);
  return { texts, wallMs, cpuMs: cpu === undefined || after === undefined ? undefined : after - cpu };
}

/** The command line's start-up (model load) per process: the median wall time of reading a tiny image. */
export async function cliInitMs(image: string, model: string, listFile: string, tessdataDir?: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) times.push((await readWithCli([image], model, listFile, tessdataDir)).wallMs);
  return times.sort((a, b) => a - b)[1]!;
}
