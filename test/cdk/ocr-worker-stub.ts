import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The CDK tests synthesize with a stand-in for the OCR worker's asset (infra/ocr-worker-lambda.ts
 * reads OCR_WORKER_ASSET): building the real one fetches the arm64 Skia binary from npm, and the
 * tests stay offline. test/e2e/ocr-worker-bundle.test.ts builds and runs the real one.
 */
if (!process.env.OCR_WORKER_ASSET) {
  const dir = mkdtempSync(join(tmpdir(), 'maktaba-ocr-worker-stub-'));
  for (const name of ['job', 'pages']) writeFileSync(join(dir, `${name}.mjs`), 'export const handler = async () => ({ batchItemFailures: [] });\n');
  process.env.OCR_WORKER_ASSET = dir;
}
