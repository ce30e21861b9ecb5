import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { objectGrantsTableMarkdown, routeTableMarkdown, sizingTableMarkdown } from '../../scripts/readme-tables.ts';

const doc = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const architecture = doc('docs/architecture.md');
const operations = doc('docs/operations.md');

/** The docs' tables are printed from the route table and functions.ts; a change to either must reach them. */
describe('the docs’ generated tables', () => {
  it('list every route of the route table, with its function and auth mode (docs/architecture.md, "Routes")', () => {
    expect(architecture).toContain(routeTableMarkdown());
  });

  it('give every function’s memory and timeout as deployed (docs/operations.md, "Functions")', () => {
    expect(operations).toContain(sizingTableMarkdown());
  });

  it('give every function’s S3 grants as the stack writes them (docs/operations.md, "Permissions")', () => {
    expect(operations).toContain(objectGrantsTableMarkdown());
  });
});
