import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs stand alone: a clone has nothing beside it, so the documents the code and README name
 * (SPEC.md, DESIGN.md, local-runtime.md, restore.md) are in docs/, and no file points outside the repository.
 */
const root = new URL('../..', import.meta.url).pathname;
const walked = ['README.md', 'docs', 'functions', 'lib', 'infra', 'ocr-worker', 'scripts', 'bench', 'test', '.ci'];

function files(path: string): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full).flatMap((name) => (name === 'node_modules' || name === 'fixtures' ? [] : files(join(path, name))));
}

describe('the docs', () => {
  it('holds every document the code and README name', () => {
    for (const name of ['SPEC.md', 'DESIGN.md', 'local-runtime.md', 'restore.md']) expect(existsSync(join(root, 'docs', name)), name).toBe(true);
  });

  it('points at nothing outside the repository', () => {
    const outside = walked.flatMap(files).filter((f) => /\.(ts|mjs|js|md|sh|json|yaml)$|\/run$/.test(f));
    const pointing = outside.filter((f) => f !== 'test/unit/docs.test.ts' && readFileSync(join(root, f), 'utf8').includes('../shared'));
    expect(pointing).toEqual([]);
  });

  it('names the design and the local runtime\'s contract in code by their place in the clone (docs/)', () => {
    const code = walked.flatMap(files).filter((f) => /\.(ts|mjs|js)$/.test(f) && f !== 'test/unit/docs.test.ts');
    const bare = code.filter((f) => /(?<![/\w])(DESIGN|local-runtime)\.md/.test(readFileSync(join(root, f), 'utf8')));
    expect(bare).toEqual([]);
  });
});
