import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../infra/local/state.ts';
import { freePort, startService, type Service } from '../support/processes.ts';

/**
 * The docs' walkthroughs cannot rot (docs/testing.md, "Walkthroughs"): every fenced block whose info
 * string is `sh` or `bash` in a page of docs/walkthroughs/ runs, in the page's order, in one bash with
 * `set -euo pipefail`, against a freshly started `npm start`, from the project root, with the stack's
 * `DATA_DIR` and `PORT` in the environment, exactly as a reader pastes them. Blocks fenced otherwise
 * (`text`, `json`, none) are output samples and are not run; and no other document may hold an `sh`
 * or `bash` block (but the restore runbook's, which run against AWS), so every shell block of the
 * docs is one this test runs.
 *
 * One rule is added for the HTTP calls: `curl` fails the walkthrough on an HTTP error status (its
 * `--fail-with-body`), unless the step prints the status itself with `-w`, which is how a step that
 * expects a 404 or a 401 says so.
 */
const walkthroughDir = join(projectRoot, 'docs', 'walkthroughs');
const runnable = /^(sh|bash)$/;
/** Shell blocks that run against a deployed AWS account, which no local stack stands in for. */
const againstAws = ['docs/restore.md'];
/**
 * What each page promises its reader, in its comments and prose, checked in its output: a step that
 * quietly stops doing what the page says (a search that finds nothing) fails too.
 */
const promised: Record<string, string[]> = {
  'docs/walkthroughs/notifications.md': ['"unreadCount":2', 'Unauthorized: No token provided 401'],
  'docs/walkthroughs/ocr-and-books.md': ['\ncompleted\n', '"amountCents": 2', '"pageNumber":1,"snippet":"إنما <mark>', '"pageNumber":2,"snippet":"بني <mark>', '"missing":["الصالحة"]', '"arabic": "إنما الأعمال بالنيات"', '200 application/vnd.openxmlformats', '"rereadId":"', '}\n202\n', '}204\n'],
  'docs/walkthroughs/audio.md': ['404\n', '"cached":false', '\ncompleted\n', '200 audio/mpeg'],
};
/** Per walkthrough: the OCR one reads a 3-page scan with the reference worker, on a machine that may be busy. */
const timeoutMs = 240_000;

/** The fenced blocks of a Markdown text, with their info string's first word. */
export function fencedBlocks(markdown: string): { lang: string; code: string }[] {
  const blocks: { lang: string; code: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence!); i++) body.push(lines[i]!.slice(indent!.length));
    blocks.push({ lang: lang ?? '', code: body.join('\n') });
  }
  return blocks;
}

/** The script a walkthrough runs as: its shell blocks, in order, after the strict prelude. */
export function walkthroughScript(markdown: string): string {
  const prelude = [
    'set -euo pipefail',
    // An HTTP error fails the step, unless the step prints its status itself (-w).
    'curl() { local a; for a in "$@"; do case "$a" in -w|--write-out) command curl "$@"; return; esac; done; command curl --fail-with-body "$@"; }',
  ];
  const steps = fencedBlocks(markdown).filter((b) => runnable.test(b.lang)).map((b) => b.code);
  return [...prelude, ...steps].join('\n') + '\n';
}

function markdownFiles(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return path.endsWith('.md') ? [path] : [];
  return readdirSync(path).flatMap((name) => markdownFiles(join(path, name)));
}

const walkthroughs = markdownFiles(walkthroughDir).sort();

describe('the walkthroughs of the docs', () => {
  it('are the only documents with shell blocks, and each has some', () => {
    expect(walkthroughs.length).toBeGreaterThan(0);
    const others = [join(projectRoot, 'README.md'), ...markdownFiles(join(projectRoot, 'docs'))].filter((f) => !f.startsWith(walkthroughDir + '/') && !againstAws.includes(relative(projectRoot, f)));
    const withShell = others.filter((f) => fencedBlocks(readFileSync(f, 'utf8')).some((b) => runnable.test(b.lang)));
    expect(withShell.map((f) => relative(projectRoot, f))).toEqual([]);
    for (const f of walkthroughs) expect(fencedBlocks(readFileSync(f, 'utf8')).filter((b) => runnable.test(b.lang)).length, relative(projectRoot, f)).toBeGreaterThan(0);
  });

  describe('run as written against npm start', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'maktaba-walkthroughs-'));
    let service: Service | undefined;
    let env: NodeJS.ProcessEnv = {};
    beforeAll(async () => {
      const port = String(await freePort());
      const { LOG_LEVEL: _, ...rest } = process.env;
      env = { ...rest, DATA_DIR: dataDir, PORT: port, HOST: '127.0.0.1' };
      service = await startService({ DATA_DIR: dataDir, PORT: port, HOST: '127.0.0.1' });
    }, 90_000);
    afterAll(() => service?.stop());

    for (const file of walkthroughs) {
      const name = relative(projectRoot, file);
      it(
        name,
        async () => {
          const script = walkthroughScript(readFileSync(file, 'utf8'));
          const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
            const child = spawn('bash', ['-c', script], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
            let output = '';
            child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
            child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
            const timer = setTimeout(() => {
              output += `\n[walkthrough still running after ${timeoutMs / 1000} s: stopped]\n`;
              process.kill(-child.pid!, 'SIGKILL');
            }, timeoutMs);
            child.once('exit', (exitCode) => {
              clearTimeout(timer);
              resolve({ code: exitCode, output });
            });
          });
          writeFileSync(join(dataDir, `${name.replaceAll('/', '_')}.log`), output);
          expect(code, `${name} failed; its output:\n${output}\nnpm start's stderr (last 4000 characters):\n${service?.stderr().slice(-4000)}`).toBe(0);
          for (const text of promised[name] ?? []) expect(output, `${name} printed no ${JSON.stringify(text)}; its output:\n${output}`).toContain(text);
        },
        timeoutMs + 10_000,
      );
    }
  });
});
