import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleOcrWorkerSync, coreOfThisNode, lambdaCore, type OcrWorkerBundle } from '../../infra/ocr-worker-bundle.ts';
import { handlerOf } from '../../infra/ocr-worker-lambda.ts';
import { workerDocumentClient, workerS3 } from '../../ocr-worker/adapters/aws-clients.ts';
import { dynamoLedger } from '../../ocr-worker/adapters/dynamo-ledger.ts';
import { ensureLedgerTable } from '../../ocr-worker/adapters/ensure-ledger-table.ts';
import type { PageResult } from '../../ocr-worker/client/service-api.ts';
import { scannedPdf, textPng } from '../../ocr-worker/fixtures/pdf.ts';
import { arabicLines } from '../../ocr-worker/fixtures/texts.ts';
import { tessdataDirVariable } from '../../ocr-worker/engine/choose-engine.ts';
import { modelScript } from '../../ocr-worker/engine/models.ts';
import { nativeTesseract } from '../../ocr-worker/engine/native-engine.ts';
import { workerEnvironment } from '../../ocr-worker/lambda/deps.ts';
import { cer } from '../../ocr-worker/text/cer.ts';
import { argsOf, dockerfileStages, ocrWorkerDockerfile } from '../support/dockerfile.ts';

/**
 * The OCR worker's Lambda asset, built for this machine (x64, the core this Node loads) exactly as
 * the stack builds it for arm64, and its pages handler run by `node` from the asset: it must find
 * its tesseract worker script, wasm core, traineddata, pdfjs data and Skia binary inside the asset.
 * The service's API and Secrets Manager are one small fake server; the ledger and the bucket are the
 * embedded stores.
 */
const run = promisify(execFile);
const lines = arabicLines.slice(0, 3);
const dynamo = new DynamoDBClient({});
const s3 = workerS3();
const ledgerTable = `ocr-ledger-${randomUUID()}`;
const bucket = process.env.UPLOADS_BUCKET!;
let bundle: OcrWorkerBundle;
let server: Server;
let serverUrl: string;
const pagesPosted: PageResult[] = [];
const resultsPosted: Array<Record<string, unknown>> = [];
/** The credential the job's message carries: the only thing the worker may call the API with. */
const credential = 'mkjob1.the-jobs-own.credential';

const body = async (req: IncomingMessage): Promise<string> => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
};

beforeAll(async () => {
  bundle = bundleOcrWorkerSync({ outDir: mkdtempSync(join(tmpdir(), 'maktaba-ocr-worker-')), arch: process.arch as 'x64', core: await coreOfThisNode() });
  await ensureLedgerTable(dynamo, ledgerTable);
  server = createServer(async (req, res) => {
    const text = await body(req);
    const answer = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.headers.authorization !== `Bearer ${credential}`) return answer(401, { message: 'Unauthorized' });
    if (req.method === 'POST' && req.url === '/ocr/result/page') {
      pagesPosted.push(JSON.parse(text) as PageResult);
      return answer(200, { message: 'ok' });
    }
    if (req.method === 'GET' && req.url?.startsWith('/ocr/status/')) return answer(404, { message: 'Not found' });
    if (req.method === 'POST' && req.url === '/ocr/result') {
      resultsPosted.push(JSON.parse(text) as Record<string, unknown>);
      return answer(201, { usageInfo: { pages: 1 } });
    }
    return answer(404, { message: 'Not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  server?.close();
  dynamo.destroy();
  if (bundle) rmSync(bundle.dir, { recursive: true, force: true });
});

describe('the OCR worker Lambda asset', () => {
  it('holds one tesseract core, the worker script, every model and the target’s Skia binary, within the zip limit', () => {
    const files = readdirSync(bundle.dir);
    expect(files.filter((f) => f.endsWith('.wasm'))).toHaveLength(1);
    expect(files).toEqual(expect.arrayContaining(['job.mjs', 'pages.mjs', 'tesseract-worker.cjs']));
    for (const model of ['ara', 'eng', 'fas', 'urd']) {
      expect(existsSync(join(bundle.dir, `node_modules/@tesseract.js-data/${model}/4.0.0_best_int/${model}.traineddata.gz`)), model).toBe(true);
    }
    expect(existsSync(join(bundle.dir, `node_modules/@napi-rs/canvas-linux-${process.arch}-gnu`))).toBe(true);
    expect(existsSync(join(bundle.dir, 'node_modules/pdfjs-dist/standard_fonts'))).toBe(true);
    expect(bundle.bytes).toBeLessThan(100 * 1024 * 1024); // Lambda allows 250 MB unzipped; this stays far below
    expect(lambdaCore).toBe('tesseract-core-relaxedsimd');
  });

  it('is what the container image copies: each function’s command names a handler in it, and the Dockerfile’s model step finds every model', async () => {
    for (const fn of ['job', 'pages'] as const) expect(existsSync(join(bundle.dir, `${handlerOf(fn).split('.')[0]}.mjs`)), fn).toBe(true);
    // The image's RUN that bakes the models, run here on the bundle with its folder in /tmp instead of /opt.
    const [, , final] = dockerfileStages(ocrWorkerDockerfile());
    const bake = argsOf(final!, 'RUN').find((r) => r.includes('traineddata.gz'))!;
    const baked = argsOf(final!, 'ENV').join(' ').match(new RegExp(`${tessdataDirVariable}=(\\S+)`))![1]!;
    const dir = mkdtempSync(join(tmpdir(), 'maktaba-image-tessdata-'));
    try {
      const steps = bake.split(' && ').filter((step) => !step.startsWith('tesseract '));
      await run('sh', ['-ec', steps.join(' && ').replaceAll(baked, dir)], { cwd: bundle.dir });
      expect(readdirSync(dir).sort()).toEqual(Object.keys(modelScript).map((m) => `${m}.traineddata`).sort());
      const native = nativeTesseract();
      if (native) {
        const { stdout } = await run(native.command, ['--tessdata-dir', dir, '--list-langs']);
        expect(stdout.split('\n').slice(1).filter(Boolean).sort()).toEqual(Object.keys(modelScript).sort());
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a scanned Arabic PDF page with node from the asset, puts its image and posts the page and the result', async () => {
    const jobId = randomUUID();
    const key = `ocr/${randomUUID()}-scan.pdf`;
    const pdf = await scannedPdf([textPng({ lines, language: 'ar' })]);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: pdf }));
    // The job function's part, done here: the job is planned in the ledger.
    await dynamoLedger(workerDocumentClient(), ledgerTable).start(jobId, { pageCount: 1 }, Date.now());
    const message = {
      jobId,
      fileId: 'f'.repeat(24),
      bookTextId: 'b'.repeat(24),
      userId: 'u'.repeat(24),
      storage: { bucket, key },
      fileName: 'scan.pdf',
      fileType: 'application/pdf',
      fileSize: pdf.length,
      language: 'ar',
      customPrompt: null,
      metadata: {},
      credential,
    };
    const event = { Records: [{ messageId: 'm1', receiptHandle: 'r1', body: JSON.stringify({ message, pages: [1], textLayer: false }) }] };
    const script =
      `const { handler } = await import(${JSON.stringify(pathToFileURL(bundle.handlers.pages).href)});` +
      `const out = await handler(${JSON.stringify(event)});` +
      `console.log('RESULT ' + JSON.stringify(out)); process.exit(0);`;
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: bundle.dir,
      env: {
        ...process.env,
        [workerEnvironment.ledgerTable]: ledgerTable,
        [workerEnvironment.apiUrl]: serverUrl,
        [workerEnvironment.pagesQueueUrl]: 'http://127.0.0.1:1/unused',
        POWERTOOLS_LOG_LEVEL: 'ERROR',
      },
      timeout: 120_000,
    });
    const result = stdout.split('\n').find((l) => l.startsWith('RESULT '));
    expect(JSON.parse(result!.slice('RESULT '.length)), stdout + stderr).toEqual({ batchItemFailures: [] });

    expect(pagesPosted).toHaveLength(1);
    const [page] = pagesPosted;
    expect(page).toMatchObject({ jobId, pageNumber: 1, pageCount: 1, pagesProcessed: 1, storageKey: `ocr-pages/${jobId}/1.png` });
    expect(cer(lines.join('\n'), page!.text)).toBeLessThan(0.15);
    const image = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: page!.storageKey! }));
    expect(Buffer.from(await image.Body!.transformToByteArray()).subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(resultsPosted).toEqual([expect.objectContaining({ jobId, status: 'completed', pageCount: 1, language: 'ar', extractedText: page!.text })]);
  }, 150_000);
});
