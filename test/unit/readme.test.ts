import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { objectGrantsTableMarkdown, routeTableMarkdown, sizingTableMarkdown } from '../../scripts/readme-tables.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The README's tables are printed from the route table and functions.ts; a change to either must reach it. */
describe('README', () => {
  it('lists every route of the route table, with its function and auth mode', () => {
    expect(readme).toContain(routeTableMarkdown());
  });

  it('gives every function’s memory and timeout as deployed', () => {
    expect(readme).toContain(sizingTableMarkdown());
  });

  it('gives every function’s S3 grants as the stack writes them', () => {
    expect(readme).toContain(objectGrantsTableMarkdown());
  });
});
