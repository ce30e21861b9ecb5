import { config } from '../../../lib/config.ts';
import { onceAsync } from '../../../lib/lazy.ts';
import type { SearchEngine } from '../../../lib/search/engine.ts';
import { indexWrites, type IndexWrites } from '../../../lib/search/read-after-write.ts';
import type { IndexingDeps } from '../../../lib/search/indexing.ts';
import { onFirstUse } from '../../../lib/lazy.ts';

/**
 * The search engine (issue 17): the OpenSearch domain when one is configured (on AWS), else the
 * embedded SQLite FTS5 engine (`npm start`, tests), one per process, shared by the search routes and
 * the indexer that runs beside them. Both take the same pre-analyzed terms (lib/search/analysis.ts).
 */
export const searchEngine = onceAsync(async (): Promise<SearchEngine> => open(false));

/**
 * The write path's engine (issue 26, lib/search/read-after-write.ts): on OpenSearch each put answers
 * once it is searchable (`refresh=wait_for`), so a write is seen by the next read. The SQLite engine
 * is synchronous, and one per process (it holds its file): the same one.
 */
export const writePathSearchEngine = onceAsync(async (): Promise<SearchEngine> => (config().search.endpoint ? open('wait_for') : searchEngine()));

async function open(refreshOnPut: false | 'wait_for'): Promise<SearchEngine> {
  const { endpoint, index, dbPath } = config().search;
  if (endpoint) {
    const { openSearchEngine } = await import('../../../lib/adapters/opensearch/search-engine.ts');
    return openSearchEngine({ endpoint, index, region: process.env.AWS_REGION ?? 'us-east-1', refreshOnPut });
  }
  const { sqliteSearchEngine } = await import('../../../lib/adapters/sqlite/search-engine.ts');
  return sqliteSearchEngine(dbPath);
}

/** A write function's index writes: the write path's engine, loaded by the first write that needs it. */
export const writePathIndex = (stores: Omit<IndexingDeps, 'engine'>): IndexWrites =>
  indexWrites({ engine: onFirstUse<SearchEngine>(writePathSearchEngine), ...stores });
