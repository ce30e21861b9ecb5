import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsAssets } from '../../functions/api-docs/contract.ts';
import { tags } from '../../functions/_shared/contract/contract.ts';
import { openApiDocument } from '../../functions/_shared/contract/document.ts';
import { routes } from '../../functions/routes.ts';
import { projectRoot } from '../../infra/project-root.ts';
import { startApi } from '../support/api.ts';

/** The document describes the route table exactly, lints clean, and is what the API serves (issue 15). */

// The document is walked as the plain JSON it is.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;
let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api?.close());

const document = openApiDocument() as Json;
const operations = Object.entries(document.paths as Json).flatMap(([p, methods]) =>
  Object.entries(methods as Json).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${p}`, path: p, operation: operation as Json })),
);

describe('GET /openapi.json', () => {
  it('serves the document the route table and the contracts make, to anyone', async () => {
    const res = await api.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^application\/json/);
    expect(res.body).toEqual(document);
    expect(res.body.openapi).toBe('3.1.0');
    // The document's version is the package's.
    expect(res.body.info.version).toBe(JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')).version);
  });
});

describe('the document and the route table', () => {
  it('has every route and nothing else, each with its auth mode and function', () => {
    expect(operations.map((o) => o.key).sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
    for (const route of routes) {
      const { operation } = operations.find((o) => o.key === `${route.method} ${route.path}`)!;
      expect(operation['x-maktaba-auth'], route.path).toBe(route.auth);
      expect(operation['x-maktaba-function'], route.path).toBe(route.function);
      const bearer = (operation.security as Json[]).some((s) => 'bearer' in s);
      const anonymous = (operation.security as Json[]).length === 0 || (operation.security as Json[]).some((s) => Object.keys(s).length === 0);
      expect({ bearer, anonymous }, `${route.method} ${route.path}`).toEqual({
        bearer: route.auth !== 'none',
        anonymous: route.auth === 'none' || route.auth.startsWith('optional'),
      });
    }
  });

  it('documents each path parameter of each route, and no other', () => {
    for (const { key, path: template, operation } of operations) {
      const inPath = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      const documented = ((operation.parameters ?? []) as Json[]).filter((p) => p.in === 'path').map((p) => p.name).sort();
      expect(documented, key).toEqual(inPath);
    }
  });

  it('answers every route in its auth mode’s plain text, and puts every route in a documented group', () => {
    for (const route of routes) {
      const { operation } = operations.find((o) => o.key === `${route.method} ${route.path}`)!;
      if (route.auth === 'required' || route.auth === 'editor') {
        expect(operation.responses['401'].content['text/plain'].schema.enum, route.path).toEqual(['Unauthorized: No token provided']);
        expect(operation.responses['403'].content['text/plain'], route.path).toBeDefined();
      }
      expect(Object.keys(tags), route.path).toContain(operation.tags[0]);
    }
  });
});

describe('the lint', () => {
  it('is clean with Redocly CLI’s recommended rules (redocly.yaml)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'maktaba-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      const cli = path.join(projectRoot, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' };
      const run = await promisify(execFile)(process.execPath, [cli, 'lint', file, '--config', path.join(projectRoot, 'redocly.yaml'), '--format', 'json'], {
        env,
        cwd: dir,
        maxBuffer: 64 * 1024 * 1024,
      }).catch((error: { stdout: string; stderr: string }) => error);
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as { totals: Json; problems: Json[] };
      const problems = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('GET /docs', () => {
  it('serves the reference page, which loads only this API’s files and the document', async () => {
    const res = await api.call('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^text\/html/);
    const sources = [...String(res.body).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    const files = sources.filter((s) => !s!.startsWith('data:'));
    expect(files.sort()).toEqual(['docs/init.js', 'docs/swagger-ui-bundle.js', 'docs/swagger-ui.css']);
    for (const source of files) {
      const asset = await api.call('GET', `/${source}`);
      expect(asset.status, source).toBe(200);
      expect(asset.contentType, source).toBe(docsAssets[source!.slice('docs/'.length) as keyof typeof docsAssets]);
    }
  });

  it('serves no other file, whatever the path asks for', async () => {
    for (const name of ['package.json', '..%2Fpackage.json', '..%2F..%2Ffunctions%2Fapi-docs.ts', 'index.html', 'swagger-ui-bundle.js.map']) {
      expect(await api.call('GET', `/docs/${name}`), name).toMatchObject({ status: 404, body: { message: 'Not Found' } });
    }
  });
});
