import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { audioKeySuffix } from '../../lib/audio/audio-key.ts';
import { defaultNames, environmentFor } from '../../lib/config.ts';
import type { BucketNotification } from './embedded/notifications.ts';
import { projectRoot } from '../project-root.ts';

export { projectRoot };

/**
 * Where the local runtime keeps its state, and `local.json`, the record of a running stack that the
 * CLI reads to find it (docs/local-runtime.md).
 */

export const dataDir = (): string => resolve(projectRoot, process.env.DATA_DIR || '.local');

export const names = {
  ...defaultNames,
  ocrQueue: 'ocr-jobs',
  audioQueue: 'audio-jobs',
  /** An announcement's fan-out steps, which `announcement-worker` takes. */
  announcementQueue: 'announcements',
  /** The audio bucket's event notifications, which `audio-files-sync` takes (`AudioFileEvents` on AWS). */
  audioFileEvents: 'audio-file-events',
  /** The reference OCR worker's own: its page tasks and its ledger (a client's state, not the service's). */
  ocrPagesQueue: 'ocr-pages',
  ocrLedgerTable: 'maktaba-ocr-worker',
} as const;

/** The audio bucket's changes, announced on a queue as its notification configuration does on AWS (infra/storage.ts). */
export const bucketNotifications: readonly BucketNotification[] = [{ bucket: names.audioBucket, queue: names.audioFileEvents, suffix: audioKeySuffix }];

export interface LocalStack {
  pid: number;
  /** When that process started (lib/processes.ts), where known: a pid reused since is not the stack's. */
  started?: string;
  url: string;
  tableName: string;
  uploadsBucket: string;
  audioBucket: string;
  endpoints: { dynamodb: string; s3: string; sqs: string };
  queueUrls: Record<string, string>;
  /**
   * The pids of the stores that run as child processes (updated when one is restarted): a later
   * start removes any that outlived a killed `npm start` (infra/local/leftovers.ts).
   */
  processes?: { dynamodb: number; s3: number };
}

const stackFile = (dir: string) => join(dir, 'local.json');

export function writeStack(dir: string, stack: LocalStack): void {
  // Written whole, then renamed over the old one: a reader (a test, a tool outside) never sees it half written.
  const partial = `${stackFile(dir)}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(stack, null, 2)}\n`);
  renameSync(partial, stackFile(dir));
}

export function removeStack(dir: string): void {
  rmSync(stackFile(dir), { force: true });
}

/** local.json as it was last written, running or not; undefined when there is none. */
export function recordedStack(dir: string): LocalStack | undefined {
  try {
    return JSON.parse(readFileSync(stackFile(dir), 'utf8')) as LocalStack;
  } catch {
    return undefined;
  }
}

export function readStack(dir: string): LocalStack {
  const file = stackFile(dir);
  if (!existsSync(file)) throw new Error(`no local stack is running for DATA_DIR ${dir}: start one with npm start`);
  const stack = JSON.parse(readFileSync(file, 'utf8')) as LocalStack;
  try {
    process.kill(stack.pid, 0);
  } catch {
    throw new Error(`the local stack recorded in ${file} (pid ${stack.pid}) is not running: start it with npm start`);
  }
  return stack;
}

/** The HS256 secret of local tokens: generated on first start, kept in DATA_DIR (mode 0600). */
export function jwtSecret(dir: string, create: boolean): string {
  const file = join(dir, 'jwt-secret');
  if (!existsSync(file)) {
    if (!create) throw new Error(`no token secret in ${dir}: start the local stack once with npm start`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}

/** The search index of `npm start` (SEARCH_DB): an SQLite file that one process holds at a time. */
export const searchDbFile = (dir: string) => join(dir, 'search.sqlite');
/** Where `npm start`'s search indexer keeps its position in the table's stream (infra/local/stream-poller.ts). */
export const streamCheckpointFile = (dir: string) => join(dir, 'search-stream.json');

/**
 * The environment every function sees locally: the same variables the CDK stack sets on AWS, and, for
 * `npm start`, the search index's file (`searchDb`; left out, the engine is in memory, as in tests,
 * where each worker process has its own).
 */
export function functionEnvironment(stack: Omit<LocalStack, 'pid' | 'url'>, secret: string, options: { searchDb?: string } = {}): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_ENDPOINT_URL_DYNAMODB: stack.endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: stack.endpoints.s3,
    AWS_ENDPOINT_URL_SQS: stack.endpoints.sqs,
    ...environmentFor({
      tableName: stack.tableName,
      uploadsBucket: stack.uploadsBucket,
      audioBucket: stack.audioBucket,
      ocrQueueUrl: stack.queueUrls[names.ocrQueue],
      audioQueueUrl: stack.queueUrls[names.audioQueue],
      announcementQueueUrl: stack.queueUrls[names.announcementQueue],
      adapters: 'local',
      jwtSecret: secret,
      searchDb: options.searchDb,
    }),
  };
}
