import { existsSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { isCurrentSearchIndex, lockedIndexMessage, searchIndexHolder } from '../../lib/adapters/sqlite/search-engine.ts';
import { isRunning } from '../../lib/processes.ts';
import { dynamoPageStore } from '../../lib/adapters/dynamo/book-text-pages.ts';
import { scanBookTextIds } from '../../lib/adapters/dynamo/book-text-scan.ts';
import { reindexBookTexts } from '../../lib/search/indexing.ts';
import { readStack, searchDbFile, streamCheckpointFile, type LocalStack } from './state.ts';
import { startStreamPoller } from './stream-poller.ts';

/**
 * `npm start`'s search indexer (issue 17): the stream poller handing the table's changes to the
 * `search-indexer` handler, which writes this process's search engine (`searchEngine()`, the SQLite
 * file SEARCH_DB that the `search-api` handler searches in the same process).
 *
 * An index that is missing (a DATA_DIR from before the search, the file deleted to rebuild it) or was
 * never finished (no checkpoint yet) is built first from the table, every BookText (a Scan: an offline
 * step, not a request), before the poller reads the stream: changes made meanwhile are in the stream,
 * so they are applied after the books were read, and the index ends in step with the table. Requests
 * are served all the while; a search finds the books indexed so far.
 */
/**
 * Clears the way to the search index's lock (`<file>.lock`, a directory node-sqlite3-wasm holds while
 * a connection is open, and which outlives a process killed with it open). Issue 29: a SIGKILLed
 * `npm start` left it, and every later start failed on it.
 * - Its holder (`<file>.owner`) is no longer running: the lock is stale, removed at once.
 * - Its holder runs (an `npm start` of this DATA_DIR shutting down, or scripts/reindex.ts): waited
 *   for up to `waitMs`, then an error that names the process.
 * - No holder recorded (a lock from a version that did not record one): waited for, then removed
 *   unless a running stack owns the DATA_DIR (local.json), which is then named in the error.
 */
export async function releaseSearchIndexLock(dir: string, waitMs = 15_000, log: (line: string) => unknown = (line) => process.stderr.write(`search-indexer: ${line}\n`)): Promise<void> {
  const file = searchDbFile(dir);
  const lock = `${file}.lock`;
  if (!existsSync(lock)) return;
  const holder = searchIndexHolder(file);
  if (holder && !isRunning(holder)) {
    rmSync(lock, { recursive: true, force: true });
    log(`removed ${lock}, left by process ${holder.pid}, which ended without closing the index (killed)`);
    return;
  }
  for (const end = Date.now() + waitMs; existsSync(lock) && Date.now() < end; ) await sleep(100);
  if (!existsSync(lock)) return;
  if (holder) throw new Error(lockedIndexMessage(file));
  let stack: LocalStack;
  try {
    stack = readStack(dir);
  } catch {
    rmSync(lock, { recursive: true, force: true });
    log(`removed ${lock}, left by an npm start that ended without closing the index`);
    return;
  }
  throw new Error(`the search index ${file} is held by the npm start of this DATA_DIR running as pid ${stack.pid} (${stack.url}): stop it, or use another DATA_DIR`);
}

/**
 * Removes a search index this code cannot use as it is (an older layout: it is derived data), and the
 * stream position that goes with it, so that startSearchIndexer builds it again from the table. Run
 * before anything opens the index.
 */
export function discardStaleSearchIndex(dir: string, log: (line: string) => unknown = (line) => process.stderr.write(`search-indexer: ${line}\n`)): void {
  const file = searchDbFile(dir);
  if (isCurrentSearchIndex(file)) return;
  rmSync(file, { force: true });
  rmSync(streamCheckpointFile(dir), { force: true });
  log(`${file} was written by an older version: it is built again from the table`);
}

export function startSearchIndexer(dir: string, tableName: string, log = (line: string) => process.stderr.write(`search-indexer: ${line}\n`)) {
  const checkpointFile = streamCheckpointFile(dir);
  const build = !existsSync(searchDbFile(dir)) || !existsSync(checkpointFile);
  return startStreamPoller({
    tableName,
    checkpointFile,
    log,
    before: build ? () => buildIndex(log) : undefined,
  });
}

/** Indexes every BookText of the table into the process's search engine (the functions' environment is set). */
async function buildIndex(log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const [{ indexerDeps }, { deps }, { searchEngine }] = await Promise.all([
    import('../../functions/search-indexer/handler.ts'),
    import('../../functions/_shared/deps.ts'),
    import('../../functions/_shared/adapters/search.ts'),
  ]);
  await searchEngine(); // the index file exists from here on, even for a table with no book yet
  const { db } = deps();
  const total = await reindexBookTexts({ ...indexerDeps(), pages: dynamoPageStore(db) }, scanBookTextIds(db));
  log(`built the search index from the table: ${total.books} books, ${total.pagesIndexed} pages in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
