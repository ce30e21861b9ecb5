import '../infra/local/process-setup.ts';
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { dynamoDocumentClient } from '../lib/adapters/aws/clients.ts';
import { dynamoPageStore } from '../lib/adapters/dynamo/book-text-pages.ts';
import { scanBookTextIds } from '../lib/adapters/dynamo/book-text-scan.ts';
import { dynamoBookTextStore } from '../lib/adapters/dynamo/book-texts.ts';
import type { Db } from '../lib/adapters/dynamo/table.ts';
import { config, variables } from '../lib/config.ts';
import type { SearchEngine } from '../lib/search/engine.ts';
import { reindexBookTexts } from '../lib/search/indexing.ts';

/**
 * The search backfill (issue 17): indexes every BookText of the table again (a Scan: an offline tool,
 * never a request path), or only the books named with `--book`. Run again at will: it writes what the
 * table holds now.
 *
 * - Against AWS, with the operator's credentials (an identity policy allowing the domain's
 *   `es:ESHttpHead`, `es:ESHttpPut` and `es:ESHttpPost` on `pages` and under it, and reads of the table)
 *   and the stack's outputs:
 *
 *       SEARCH_ENDPOINT=https://<SearchDomainEndpoint> TABLE_NAME=<TableName> AWS_REGION=<region> npx tsx scripts/reindex.ts [--book ID ...]
 *
 * - Locally, with `npm start` stopped (its process holds the search index, `$DATA_DIR/search.sqlite`):
 *   it starts DynamoDB Local on DATA_DIR itself. (`npm start` also builds the index from the table
 *   when the file is missing, so deleting it and starting again does the same.)
 *
 *       DATA_DIR=<dir> npx tsx scripts/reindex.ts [--book ID ...]
 *
 * Prints the totals as JSON on stdout; progress on stderr.
 */
const { values } = parseArgs({ options: { book: { type: 'string', multiple: true } } });
const log = (line: string) => process.stderr.write(`reindex: ${line}\n`);

async function reindex(db: Db, engine: SearchEngine) {
  const started = Date.now();
  const ids = values.book?.length ? values.book : scanBookTextIds(db);
  const total = await reindexBookTexts({ engine, bookTexts: dynamoBookTextStore(db), pages: dynamoPageStore(db) }, ids, (done, sum) => {
    if (done % 100 === 0) log(`${done} books, ${sum.pagesIndexed} pages`);
  });
  return { ...total, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

async function onAws() {
  const { endpoint, index } = config().search;
  log(`indexing table ${config().tableName} into ${endpoint} (index ${index})`);
  const { searchEngine } = await import('../functions/_shared/adapters/search.ts');
  return reindex({ client: dynamoDocumentClient(), tableName: config().tableName }, await searchEngine());
}

async function locally() {
  const [{ dataDir, names, searchDbFile }, { startDynamoDb }, { sqliteSearchEngine }] = await Promise.all([
    import('../infra/local/state.ts'),
    import('../infra/local/embedded/dynamodb.ts'),
    import('../lib/adapters/sqlite/search-engine.ts'),
  ]);
  const dir = dataDir();
  const running = `${dir}/local.json`;
  if (existsSync(running)) {
    const { pid } = JSON.parse(readFileSync(running, 'utf8')) as { pid: number };
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    if (alive) {
      throw new Error(
        `npm start is running on ${dir} (pid ${pid}) and holds its search index: stop it first (or stop it, delete ${searchDbFile(dir)} and start it again: it builds a missing index)`,
      );
    }
  }
  if (!existsSync(`${dir}/dynamodb`)) throw new Error(`no local state in ${dir}: nothing to index`);
  const dynamo = await startDynamoDb({ dataDir: dir });
  Object.assign(process.env, { AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
  const engine = sqliteSearchEngine(searchDbFile(dir));
  try {
    log(`indexing the local table into ${searchDbFile(dir)}`);
    const total = await reindex({ client: dynamoDocumentClient(), tableName: names.tableName }, engine);
    // Left merged, the index is as fast as it will be when npm start opens it.
    await engine.merged();
    return total;
  } finally {
    engine.close();
    await dynamo.stop();
  }
}

const aws = Boolean(process.env[variables.searchEndpoint]);
if (aws && !process.env[variables.tableName]) {
  process.stderr.write(`reindex: ${variables.searchEndpoint} is set: ${variables.tableName} is needed too\n`);
  process.exit(1);
}
(aws ? onAws() : locally()).then(
  (total) => {
    process.stdout.write(`${JSON.stringify(total)}\n`);
    process.exit(0);
  },
  (error: Error) => {
    process.stderr.write(`reindex: ${error.message.split('\n')[0]}\n`);
    process.exit(1);
  },
);
