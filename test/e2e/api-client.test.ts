import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/_shared/contract/document.ts';
import { projectRoot } from '../../infra/project-root.ts';
import { startApi, seedAccounts } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

/**
 * A client made from the document alone (issue 15), as a client developer would: types from
 * openapi-typescript, calls through openapi-fetch. The calls must type-check (and wrong ones must
 * not), then run against the local API.
 */

/** A client's code: typed calls, and two that the types must refuse. */
const clientSource = `import createClient from 'openapi-fetch';
import type { paths } from './api-types.ts';

const client = createClient<paths>({ baseUrl: process.env.API_URL });
const headers = { authorization: \`Bearer \${process.env.API_TOKEN}\` };

export async function main() {
  const voices = await client.GET('/audio/voices');
  const ids: string[] = (voices.data?.voices ?? []).map((voice) => voice.id);

  const fields = await client.GET('/audio/fields');
  const names: string[] = fields.data?.fields ?? [];

  const inbox = await client.GET('/notifications', { params: { query: { page: 1, limit: 5 } }, headers });
  const total: number | undefined = inbox.data?.total;

  const books = await client.GET('/ocr/books', { params: { query: { limit: 2, sort: 'name_asc' } } });
  const titles: (string | null)[] = (books.data?.books ?? []).map((book) => book.fileName);

  const missing = await client.GET('/ocr/books/{bookTextId}', { params: { path: { bookTextId: '66f1c2a9e4b0a1b2c3d4e5f6' }, query: { pageLimit: 10 } } });
  const pages: number | undefined = missing.data?.book.pages.length;

  // @ts-expect-error: the inbox's limit is a number
  await client.GET('/notifications', { params: { query: { limit: 'five' } }, headers });
  // @ts-expect-error: there is no such route
  await client.GET('/ocr/nothing');

  return { ids, names, total, titles, pages, missingStatus: missing.response.status, inboxStatus: inbox.response.status };
}

console.log(JSON.stringify(await main()));
`;

let dir: string;
let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  // Inside the project, so that the client resolves openapi-fetch from its node_modules.
  mkdirSync(path.join(projectRoot, 'node_modules', '.cache'), { recursive: true });
  dir = mkdtempSync(path.join(projectRoot, 'node_modules', '.cache', 'api-client-'));
  api = await startApi();
}, 60_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await api?.close();
});

const run = (file: string, args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(process.execPath, [file, ...args], { cwd: dir, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 }).catch(
    (error: { stdout: string; stderr: string; code: number }) => ({ ...error, failed: true }),
  );

describe('a client generated from the document', () => {
  it('type-checks its calls and refuses wrong ones, then calls the API', async () => {
    const types = astToString(await openapiTS(openApiDocument() as never));
    writeFileSync(path.join(dir, 'api-types.ts'), types);
    writeFileSync(path.join(dir, 'client.mts'), clientSource);

    const tsc = path.join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const options = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--allowImportingTsExtensions', '--skipLibCheck', '--types', 'node'];
    const checked = await run(tsc, [...options, 'client.mts']);
    expect(`${checked.stdout}${checked.stderr}`).toBe('');

    // Without the expectations, the two wrong calls are errors: the types do refuse them.
    writeFileSync(path.join(dir, 'client.mts'), clientSource.replaceAll('// @ts-expect-error', '//'));
    const refused = await run(tsc, [...options, 'client.mts']);
    expect(String(refused.stdout).match(/error TS\d+/g)).toHaveLength(2);

    writeFileSync(path.join(dir, 'client.mts'), clientSource);
    const fixture = await seedAccounts(testStores(), { users: [{ key: 'reader', username: 'reader' }] });
    const tsx = path.join(projectRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const called = await run(tsx, ['client.mts'], { API_URL: api.url, API_TOKEN: fixture.users.reader!.token });
    expect(String(called.stderr)).not.toMatch(/Error/);
    const result = JSON.parse(called.stdout.trim().split('\n').at(-1)!);
    expect(result).toMatchObject({ ids: ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'], names: ['arabic', 'english', 'commentary'], inboxStatus: 200, total: 0, missingStatus: 404 });
  }, 120_000);
});
