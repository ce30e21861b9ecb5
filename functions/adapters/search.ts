import { config } from '../../lib/config.ts';
import { onceAsync } from '../../lib/lazy.ts';
import type { SearchEngine } from '../../lib/search/engine.ts';

/**
 * The search engine (issue 17): the OpenSearch domain when one is configured (on AWS), else the
 * embedded SQLite FTS5 engine (`npm start`, tests), one per process, shared by the search routes and
 * the indexer that runs beside them. Both take the same pre-analyzed terms (lib/search/analysis.ts).
 */
export const searchEngine = onceAsync(async (): Promise<SearchEngine> => {
  const { endpoint, index, dbPath } = config().search;
  if (endpoint) {
    const { openSearchEngine } = await import('../../lib/adapters/opensearch/search-engine.ts');
    return openSearchEngine({ endpoint, index, region: process.env.AWS_REGION ?? 'us-east-1' });
  }
  const { sqliteSearchEngine } = await import('../../lib/adapters/sqlite/search-engine.ts');
  return sqliteSearchEngine(dbPath);
});
