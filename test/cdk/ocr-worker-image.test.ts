import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileSystem } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFolder, ocrWorkerImagePlatform, ocrWorkerImageSource, stageOcrWorkerImage } from '../../infra/ocr-worker-image.ts';
import { handlerOf, ocrWorkerRuntime } from '../../infra/ocr-worker-lambda.ts';
import { tessdataDirVariable } from '../../ocr-worker/engine/choose-engine.ts';
import { argsOf, dockerfileStages, ocrWorkerDockerfile, type Instruction } from '../support/dockerfile.ts';
import './ocr-worker-stub.ts';

/**
 * The OCR worker's Dockerfile (ocr-worker/image/Dockerfile), read for what the worker relies on: no
 * Docker here to build it, so these hold its essentials, and docs/ocr-worker.md ("The container image")
 * says how an operator builds and runs it. test/e2e/ocr-worker-bundle.test.ts holds the bundle it copies.
 */

const dockerfile = ocrWorkerDockerfile();
const [preamble, ric, final] = dockerfileStages(dockerfile) as [Instruction[], Instruction[], Instruction[]];
const env = Object.fromEntries(argsOf(final, 'ENV').flatMap((a) => [...a.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]])));
const lock = JSON.parse(readFileSync(path.join(ocrWorkerImageSource, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; integrity?: string; bin?: Record<string, string>; dependencies?: Record<string, string> }>;
};

const staged: string[] = [];
afterAll(() => {
  for (const dir of staged) rmSync(dir, { recursive: true, force: true });
});

describe('the OCR worker’s container image', () => {
  it('is two stages from one Node image of the Lambda runtime’s major version, on Debian 12, built for arm64 by CDK', () => {
    const runtimeMajor = /^nodejs(\d+)\.x$/.exec(ocrWorkerRuntime.name)![1];
    expect(argsOf(preamble, 'ARG')).toEqual([`NODE_IMAGE=node:${runtimeMajor}-bookworm-slim`]);
    expect(argsOf(ric, 'FROM')).toEqual(['${NODE_IMAGE} AS ric']);
    expect(argsOf(final, 'FROM')).toEqual(['${NODE_IMAGE}']);
    // The platform is CDK's to give (`docker build --platform`), not written into FROM.
    expect(dockerfile).not.toMatch(/--platform/);
    expect(ocrWorkerImagePlatform.platform).toBe('linux/arm64');
  });

  it('builds AWS’s runtime interface client, pinned by its lock, in a stage of its own, and leaves the compilers there', () => {
    const pkg = JSON.parse(readFileSync(path.join(ocrWorkerImageSource, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies).toEqual({ 'aws-lambda-ric': expect.stringMatching(/^\d+\.\d+\.\d+$/) });
    const client = lock.packages['node_modules/aws-lambda-ric']!;
    expect(client.version).toBe(pkg.dependencies['aws-lambda-ric']);
    expect(client.integrity).toMatch(/^sha512-/);
    expect(argsOf(ric, 'RUN').join(' ')).toMatch(/apt-get install .*\bcmake\b.*\bg\+\+/);
    expect(argsOf(ric, 'WORKDIR')).toEqual(['/opt/ric']);
    expect(argsOf(ric, 'COPY')).toEqual(['package.json package-lock.json ./']);
    expect(argsOf(ric, 'RUN').at(-1)).toMatch(/^npm ci --omit=dev/);
    expect(argsOf(final, 'RUN').join(' ')).not.toMatch(/g\+\+|cmake|build-essential/);
    expect(argsOf(final, 'COPY')).toContain('--from=ric /opt/ric/node_modules /opt/ric/node_modules');
    // Node runs the client's own bin (no npx: it would write to a read-only home at every cold start).
    expect(JSON.parse(argsOf(final, 'ENTRYPOINT')[0]!)).toEqual(['/usr/local/bin/node', `/opt/ric/node_modules/aws-lambda-ric/${client.bin!['aws-lambda-ric']}`]);
  });

  it('installs Debian’s tesseract and bakes the npm packages’ models where OCR_TESSDATA_DIR points, native or fail, one thread a process', () => {
    expect(argsOf(final, 'RUN').join(' ')).toMatch(/apt-get install -y --no-install-recommends tesseract-ocr\b/);
    expect(env).toMatchObject({ OCR_ENGINE: 'native', OMP_THREAD_LIMIT: '1', [tessdataDirVariable]: '/opt/tessdata' });
    const models = argsOf(final, 'RUN').find((r) => r.includes('traineddata.gz'))!;
    expect(models).toContain('for gz in node_modules/@tesseract.js-data/*/*/*.traineddata.gz; do gunzip -c "$gz" > "/opt/tessdata/$(basename "$gz" .gz)"; done');
    expect(models).toContain('tesseract --version');
  });

  it('runs the bundle from /var/task, the job handler unless the function’s command names another', () => {
    expect(argsOf(final, 'WORKDIR')).toEqual(['/var/task']);
    expect(argsOf(final, 'COPY')).toContain(`${bundleFolder}/ ./`);
    expect(JSON.parse(argsOf(final, 'CMD')[0]!)).toEqual([handlerOf('job')]);
  });

  it('is built from a context of its own files and the bundle alone, whose hash does not depend on where it is staged', () => {
    const a = stageOcrWorkerImage(process.env.OCR_WORKER_ASSET!, mkdtempSync(path.join(tmpdir(), 'image-a-')));
    const b = stageOcrWorkerImage(process.env.OCR_WORKER_ASSET!, mkdtempSync(path.join(tmpdir(), 'image-b-')));
    staged.push(a, b);
    expect(readdirSync(a).sort()).toEqual([...readdirSync(ocrWorkerImageSource), bundleFolder].sort());
    expect(readdirSync(path.join(a, bundleFolder)).sort()).toEqual(readdirSync(process.env.OCR_WORKER_ASSET!).sort());
    expect(FileSystem.fingerprint(a)).toBe(FileSystem.fingerprint(b));
    for (const fn of ['job', 'pages'] as const) expect(readdirSync(path.join(a, bundleFolder))).toContain(`${handlerOf(fn).split('.')[0]}.mjs`);
  });
});
