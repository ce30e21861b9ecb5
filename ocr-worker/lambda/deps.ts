import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SQSClient } from '@aws-sdk/client-sqs';
import { workerDocumentClient, workerS3 } from '../adapters/aws-clients.ts';
import { dynamoLedger } from '../adapters/dynamo-ledger.ts';
import { s3JobFiles } from '../adapters/s3-files.ts';
import { httpServiceApi } from '../client/http-api.ts';
import { readPage } from '../engine/read-page.ts';
import { chosenEngine, createOcrEngine, engineName } from '../engine/choose-engine.ts';
import type { RunnerDeps } from '../job/runner.ts';
import type { ServiceApi } from '../client/service-api.ts';
import type { FileBytes, OcrJobMessage, PageSource } from '../contract.ts';
import { openSource, type TextLayerPolicy } from '../open-source.ts';
import { modelFor } from '../text/language.ts';
import { pageReadingTimeoutMs } from './limits.ts';
import { log } from './log.ts';

/** What the worker's functions read from their environment (set by infra/ocr-worker-lambda.ts). */
export const workerEnvironment = {
  ledgerTable: 'OCR_LEDGER_TABLE',
  pagesQueueUrl: 'OCR_PAGES_QUEUE_URL',
  apiUrl: 'OCR_API_URL',
} as const;

export function env(name: keyof typeof workerEnvironment): string {
  const value = process.env[workerEnvironment[name]];
  if (!value) throw new Error(`${workerEnvironment[name]} is not set`);
  return value;
}

/**
 * The tesseract.js worker script: the bundle puts its own beside the handler (infra/ocr-worker-bundle.ts,
 * with only the core this runtime loads); run from source, tesseract.js's own.
 */
export function bundledWorkerScript(): string | undefined {
  const beside = join(dirname(fileURLToPath(import.meta.url)), 'tesseract-worker.cjs');
  return existsSync(beside) ? beside : undefined;
}

export interface LambdaDeps extends Omit<RunnerDeps, 'api'> {
  sqs: SQSClient;
  /**
   * The API as this job's worker: with the credential its message carries (lib/auth/job-credentials.ts
   * on the service's side), valid for that job alone. The worker holds no token of its own.
   */
  apiFor(message: OcrJobMessage): ServiceApi;
  /** The job's file as pages, with a PDF's text layer decided by this policy (the job's sample check, or a task's copy of it). */
  openSourceWith(bytes: FileBytes, textLayer?: TextLayerPolicy): Promise<PageSource>;
}

let composed: LambdaDeps | undefined;

/**
 * The runner's dependencies, composed once per container: the ledger table, the bucket, the API (per
 * job, with its credential), and one engine, native tesseract where the image has it, else tesseract.js
 * (engine/choose-engine.ts; never closed: tesseract.js recycles its workers itself, native tesseract
 * replaces its kept processes itself, and the container's end ends them).
 */
export function lambdaDeps(): LambdaDeps {
  if (composed) return composed;
  const workerPath = bundledWorkerScript();
  const baseUrl = env('apiUrl');
  const engine = chosenEngine();
  // Once per cold start: which engine this package reads with (the image's native, the zip's tesseract.js).
  log.info('OCR engine', { engine: engineName(engine) });
  composed = {
    ledger: dynamoLedger(workerDocumentClient(), env('ledgerTable')),
    files: s3JobFiles(workerS3()),
    apiFor: (message) => httpServiceApi({ baseUrl, token: message.credential }),
    engine: createOcrEngine(workerPath ? { workerPath } : {}, engine),
    openSource: (bytes) => openSource(bytes),
    openSourceWith: openSource,
    modelFor,
    read: readPage,
    owner: `lambda:${randomUUID()}`,
    pageTimeoutMs: pageReadingTimeoutMs,
    sqs: new SQSClient({}),
  };
  return composed;
}
