import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs stand alone: a clone has nothing beside it, so the documents the code and the docs name
 * are in docs/, every link between them leads to a file and a section that exist, every reference in
 * code to a doc's section (`docs/interface.md, "Search"`) names a section that doc has, and no file
 * points outside the repository.
 */
const root = new URL('../..', import.meta.url).pathname;
const walked = ['README.md', 'docs', 'functions', 'lib', 'infra', 'ocr-worker', 'scripts', 'bench', 'test', '.ci'];
const self = 'test/unit/docs.test.ts';
/** The documents that came from outside the project, copied in: the interface, the first design, the local contract. */
const origins = ['docs/SPEC.md', 'docs/DESIGN.md', 'docs/local-runtime.md'];

function files(path: string): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full).flatMap((name) => (name === 'node_modules' || name === 'fixtures' ? [] : files(join(path, name))));
}

const read = (path: string) => readFileSync(join(root, path), 'utf8');
const docs = ['README.md', ...files('docs').filter((f) => f.endsWith('.md'))];
const code = [...walked.flatMap(files), ...files('redocly.yaml')].filter((f) => /\.(ts|mjs|js|yaml)$/.test(f) && f !== self);

/** Outside fenced blocks: what Markdown shows as text. */
function prose(markdown: string): string {
  return markdown.replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\s*\2[^\n]*$/gm, '');
}

/** A doc's section titles, and the anchors GitHub gives them. */
function sections(path: string): { titles: string[]; anchors: string[] } {
  const titles = [...prose(read(path)).matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.trim());
  const anchors = titles.map((t) =>
    t
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replaceAll(' ', '-'),
  );
  return { titles, anchors };
}

describe('the docs', () => {
  it('holds every document the code and the docs name', () => {
    for (const doc of origins) expect(existsSync(join(root, doc)), doc).toBe(true);
    expect(existsSync(join(root, 'docs/restore.md'))).toBe(true);
    const named = new Set([...walked.flatMap(files).filter((f) => f !== self && /\.(ts|mjs|js|md|sh)$|\/run$/.test(f))].flatMap((f) => [...read(f).matchAll(/\bdocs\/[\w/-]+\.md\b/g)].map((m) => m[0])));
    expect([...named].filter((d) => !existsSync(join(root, d)))).toEqual([]);
  });

  it('links only to files and sections that exist, inside the repository', () => {
    const broken: string[] = [];
    for (const doc of docs) {
      for (const [, target] of prose(read(doc)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?|mailto):/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? doc : relative(root, resolve(dirname(join(root, doc)), path));
        if (file.startsWith('..') || !existsSync(join(root, file))) broken.push(`${doc}: ${target}`);
        else if (anchor && !sections(file).anchors.includes(anchor)) broken.push(`${doc}: ${target} (no such section)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('has every section the code names by doc and title', () => {
    const missing: string[] = [];
    for (const f of walked.flatMap(files).filter((f) => f !== self && /\.(ts|mjs|js)$/.test(f))) {
      for (const [, doc, title] of read(f).matchAll(/\b(docs\/[\w/-]+\.md)[,:]?\s*(?:\*\s*)?\(?"([^"\n]+)"/g)) {
        if (doc === 'docs/SPEC.md' || !existsSync(join(root, doc!))) continue;
        const titles = sections(doc!).titles.map((t) => t.toLowerCase());
        if (!titles.includes(title!.toLowerCase())) missing.push(`${f}: ${doc}, "${title}"`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('keeps the README short, and it leads to every document of docs/', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    const linked = new Set([...prose(readme).matchAll(/\]\((docs\/[^)#\s]*)/g)].map((m) => m[1]!));
    const topLevel = files('docs').filter((f) => /^docs\/[^/]+\.md$/.test(f) && f !== 'docs/README.md');
    expect(topLevel.filter((f) => !linked.has(f))).toEqual([]);
  });

  it('points at nothing outside the repository', () => {
    const outside = walked.flatMap(files).filter((f) => /\.(ts|mjs|js|md|sh|json|yaml)$|\/run$/.test(f));
    // The sibling folder a clone does not have, spelt so that this file does not name it either.
    const sibling = ['..', 'shared'].join('/');
    const pointing = outside.filter((f) => read(f).includes(sibling));
    expect(pointing).toEqual([]);
  });

  it('names the spec, the design and the local contract in the docs by their place in the clone (docs/)', () => {
    // A bare name reads as the copy beside a checkout, which a clone does not have.
    const bareName = new RegExp(`(?<![/\\w.-])(${origins.map((d) => d.slice('docs/'.length).replaceAll('.', '\\.')).join('|')})`);
    expect(docs.filter((f) => bareName.test(prose(read(f))))).toEqual([]);
  });

  it('names the docs in code by their place in the clone (docs/)', () => {
    const names = files('docs')
      .filter((f) => f.endsWith('.md') && !/\/README\.md$/.test(f))
      .map((f) => f.slice('docs/'.length).replace(/^walkthroughs\//, '').replace('.md', '').replaceAll('.', '\\.'));
    const bareName = new RegExp(`(?<![/\\w-])(${names.join('|')})\\.md`);
    const bare = code.filter((f) => bareName.test(read(f)));
    expect(bare).toEqual([]);
  });
});
