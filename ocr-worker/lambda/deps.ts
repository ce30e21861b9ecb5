import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { workerDocumentClient, workerS3 } from '../adapters/aws-clients.ts';
import { dynamoLedger } from '../adapters/dynamo-ledger.ts';
import { s3JobFiles } from '../adapters/s3-files.ts';
import { httpServiceApi } from '../client/http-api.ts';
import { readPage } from '../engine/read-page.ts';
import { createTesseractEngine } from '../engine/tesseract-engine.ts';
import type { RunnerDeps } from '../job/runner.ts';
import type { FileBytes, PageSource } from '../contract.ts';
import { openSource, type TextLayerPolicy } from '../open-source.ts';
import { modelFor } from '../text/language.ts';
import { pageReadingTimeoutMs } from './limits.ts';
import { reauthenticating, secretToken, tokenOf, type SecretToken } from './token.ts';

/** What the worker's functions read from their environment (set by infra/ocr-worker-lambda.ts). */
export const workerEnvironment = {
  ledgerTable: 'OCR_LEDGER_TABLE',
  pagesQueueUrl: 'OCR_PAGES_QUEUE_URL',
  apiUrl: 'OCR_API_URL',
  tokenSecretArn: 'OCR_WORKER_TOKEN_SECRET_ARN',
} as const;

/** The token itself, instead of the secret: `npm start` signs one for its own worker account. */
export const tokenVariable = 'OCR_WORKER_TOKEN';

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

export interface LambdaDeps extends RunnerDeps {
  sqs: SQSClient;
  /** The job's file as pages, with a PDF's text layer decided by this policy (the job's sample check, or a task's copy of it). */
  openSourceWith(bytes: FileBytes, textLayer?: TextLayerPolicy): Promise<PageSource>;
}

let composed: LambdaDeps | undefined;

/**
 * The runner's dependencies, composed once per container: the ledger table, the bucket, the API with
 * the token from Secrets Manager, and one engine (never closed: it recycles its tesseract workers
 * itself, and the container's end ends them).
 */
export function lambdaDeps(): LambdaDeps {
  if (composed) return composed;
  const given = process.env[tokenVariable];
  const token: SecretToken = given ? { get: async () => tokenOf(given), forget: () => undefined } : secretToken(new SecretsManagerClient({}), env('tokenSecretArn'));
  const workerPath = bundledWorkerScript();
  composed = {
    ledger: dynamoLedger(workerDocumentClient(), env('ledgerTable')),
    files: s3JobFiles(workerS3()),
    api: reauthenticating(httpServiceApi({ baseUrl: env('apiUrl'), token: () => token.get() }), token),
    engine: createTesseractEngine(workerPath ? { workerPath } : {}),
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
