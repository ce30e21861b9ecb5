import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { onceAsync } from '../../lazy.ts';
import { policies, retry, type RetryClock } from '../../retry.ts';
import type { IndexedBookFields, IndexedPage, PageHit, PageQuery, SearchEngine, SearchView } from '../../search/engine.ts';

/**
 * The search engine on a managed Amazon OpenSearch Service domain (issue 17), spoken to over its REST
 * API with `fetch` and SigV4 (service `es`, the SDK's own signer). No OpenSearch client: the official
 * one (@opensearch-project/opensearch 3.9.0) adds about 300 KB to a function's bundle, all of it parsed
 * at cold start; this adapter about 9 KB over the AWS SDK every function already carries.
 *
 * The engine stores and matches terms our own code analyzed (lib/search/analysis.ts): each field is
 * the terms joined by single spaces under the `whitespace` analyzer, so OpenSearch's positions are the
 * terms' positions, and hits and totals are those of the local engine (SQLite FTS5).
 *
 * Every client value travels as a JSON value (a term query's value, a match query's text, a script
 * param, a bulk action's `_id`): never in a URL, never inside a script's source. The URL carries only
 * the configured index name (checked) and constant query parameters.
 *
 * Visibility in time (OpenSearch is near real time):
 * - putPages: `refresh` as configured, by default none: pages are searchable after the next
 *   refresh, within about 1 s (`refresh_interval` is set explicitly to 1s, so an index that saw no
 *   search for 30 s does not go search-idle and postpone it). `'wait_for'` answers once they are
 *   searchable, without forcing a refresh (for tests against a real domain, or read-your-writes).
 * - setBookFields and removeBook: `refresh=true` (the by-query APIs know no `wait_for`): a book made
 *   private or deleted is out of other readers' results when the call returns. Both are rare.
 *
 * setBookFields against a concurrent putPages: `_update_by_query` updates the pages it found in a
 * snapshot, each only if unchanged since. A page that putPages replaced after the snapshot is a version
 * conflict. Aborting on it (the default) would leave the book half-updated and answer 409; ignoring it
 * would keep whatever fields that putPages carried, possibly the old visibility (a private book's page
 * left public). So `conflicts=proceed`, and while the answer counts conflicts the update runs again
 * (the refresh at the end of each run lets the next one see the newer pages). Each run touches only
 * pages whose fields differ from the new ones, so a rerun costs what is left to do. removeBook does the
 * same with `_delete_by_query`. What no engine call can order: a putPages built from book fields read
 * before a setBookFields or a removeBook that has finished since; the indexing code re-reads its book
 * after putPages (and sets the fields again, or removes the pages) for that.
 */

export interface OpenSearchEngineOptions {
  /** The domain's endpoint: `https://search-….es.amazonaws.com`, or the host alone (HTTPS). */
  endpoint: string;
  /** The index of pages: lowercase letters, digits, `_`, `-`, `.`. */
  index: string;
  region: string;
  /** Default: the AWS SDK's credential chain (on Lambda, the function role's). */
  credentials?: ConstructorParameters<typeof SignatureV4>[0]['credentials'];
  /** Default: the global fetch. Tests pass the fake's (test/support/fake-opensearch.ts). */
  fetch?: typeof fetch;
  /** putPages' refresh: `false` (default, searchable within about 1 s) or `'wait_for'`. */
  refreshOnPut?: false | 'wait_for';
  /** A `_bulk` request's body stays under this many bytes (default 5 MiB; a domain takes 10 MiB or more). */
  maxBulkBytes?: number;
  /** Replicas of the index when ensureIndex creates it (default 0: one data node). */
  replicas?: number;
  /** Each HTTP request's time limit (default 10 s). */
  timeoutMs?: number;
  /** How retries wait (tests pass one that does not). */
  clock?: RetryClock;
}

export interface OpenSearchEngine extends SearchEngine {
  /** Creates the index with pageIndexSettings and pageIndexMapping unless it exists. Every other call runs it first, once per engine. */
  ensureIndex(): Promise<void>;
}

/** A non-2xx answer: its status and OpenSearch's error type, never its reason (which may quote the request). */
export class OpenSearchError extends Error {
  override name = 'OpenSearchError';
  constructor(
    readonly status: number,
    readonly type: string,
    operation: string,
  ) {
    super(`OpenSearch answered ${status} (${type}) to ${operation}`);
  }
}

/** Pages a `_bulk` request did not store: how many, and their error types (no reasons). */
export class OpenSearchBulkError extends Error {
  override name = 'OpenSearchBulkError';
  constructor(
    readonly failed: number,
    readonly sent: number,
    readonly types: string[],
  ) {
    super(`OpenSearch did not store ${failed} of ${sent} pages (${types.join(', ')})`);
  }
}

/** The BM25 parameters, pinned (Lucene's defaults): k1 1.2, b 0.75. */
export const pageSimilarity = { type: 'BM25', k1: 1.2, b: 0.75 } as const;

/** A page's stored fields: the IndexedPage, its terms as one space-joined string per field. */
export const pageIndexMapping = {
  dynamic: 'strict',
  properties: {
    bookTextId: { type: 'keyword' },
    pageNumber: { type: 'integer' },
    userId: { type: 'keyword' },
    visibility: { type: 'keyword' },
    status: { type: 'keyword' },
    language: { type: 'keyword' },
    exact: { type: 'text', analyzer: 'whitespace', similarity: 'page_bm25' },
    stemmed: { type: 'text', analyzer: 'whitespace', similarity: 'page_bm25' },
  },
} as const;

/** The deepest page a query may reach: offset 10,000 plus a limit of 100. */
export const maxResultWindow = 10_100;

/**
 * One shard, so BM25's statistics (document counts, average length) are the whole index's and a
 * ranking does not depend on which shard a page landed in. Pages of every book fit one shard for long
 * (a shard holds tens of GB).
 */
export const pageIndexSettings = (replicas = 0) =>
  ({
    index: {
      number_of_shards: 1,
      number_of_replicas: replicas,
      refresh_interval: '1s',
      max_result_window: maxResultWindow,
      similarity: { page_bm25: pageSimilarity },
    },
  }) as const;

/** The one script of setBookFields: constant source, every value a param. */
export const setBookFieldsScript =
  'ctx._source.userId = params.userId; ctx._source.visibility = params.visibility; ' +
  'ctx._source.status = params.status; ctx._source.language = params.language;';

const bookFieldNames = ['userId', 'visibility', 'status', 'language'] as const;

/** The document of one page (what `_bulk` sends). */
export function pageDocument(page: IndexedPage) {
  return {
    bookTextId: page.bookTextId,
    pageNumber: page.pageNumber,
    userId: page.userId,
    visibility: page.visibility,
    status: page.status,
    language: page.language,
    exact: joinTerms(page.exact, 'exact'),
    stemmed: joinTerms(page.stemmed, 'stemmed'),
  };
}

export const pageId = (bookTextId: string, pageNumber: number) => `${bookTextId}:${pageNumber}`;

const term = (field: string, value: string) => ({ term: { [field]: { value } } });

function viewFilter(view: SearchView): object[] {
  switch (view.kind) {
    case 'all':
      return [];
    case 'public':
      return [term('visibility', 'public')];
    case 'publicAndOwn':
      checkString(view.ownerId, 'ownerId');
      return [{ bool: { should: [term('visibility', 'public'), term('userId', view.ownerId)], minimum_should_match: 1 } }];
    default:
      throw new RangeError('Unknown search view');
  }
}

/** The `_search` body of a query (validated first: out-of-contract values throw a RangeError). */
export function searchBody(query: PageQuery) {
  const { mode, field, terms, limit, offset } = query;
  if (field !== 'exact' && field !== 'stemmed') throw new RangeError('Unknown search field');
  if (!Array.isArray(terms) || terms.length < 1 || terms.length > 32) throw new RangeError('A query has 1 to 32 terms');
  for (const t of terms) checkTerm(t, 64);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new RangeError('limit is 1 to 100');
  if (!Number.isInteger(offset) || offset < 0 || offset > 10_000) throw new RangeError('offset is 0 to 10000');
  const text = terms.join(' ');
  let must: object;
  if (mode === 'phrase') must = { match_phrase: { [field]: { query: text } } };
  else if (mode === 'all' || mode === 'any') must = { match: { [field]: { query: text, operator: mode === 'all' ? 'and' : 'or' } } };
  else throw new RangeError('Unknown match mode');
  const filter = viewFilter(query.view);
  if (query.bookTextId !== undefined) filter.push(term('bookTextId', checkString(query.bookTextId, 'bookTextId')));
  if (query.language !== undefined) filter.push(term('language', checkString(query.language, 'language')));
  return {
    query: { bool: { filter, must: [must] } },
    track_total_hits: true,
    from: offset,
    size: limit,
    sort: [{ _score: { order: 'desc' } }, { bookTextId: { order: 'asc' } }, { pageNumber: { order: 'asc' } }],
    _source: ['bookTextId', 'pageNumber'],
  };
}

/** The `_update_by_query` body of setBookFields: the book's pages whose fields differ, set by the constant script. */
export function setBookFieldsBody(bookTextId: string, fields: IndexedBookFields) {
  checkString(bookTextId, 'bookTextId');
  const params = {} as Record<(typeof bookFieldNames)[number], string>;
  for (const name of bookFieldNames) params[name] = checkString(fields[name], name);
  if (params.visibility !== 'public' && params.visibility !== 'private') throw new RangeError('visibility is public or private');
  return {
    query: {
      bool: {
        filter: [term('bookTextId', bookTextId)],
        must_not: [{ bool: { filter: bookFieldNames.map((name) => term(name, params[name])) } }],
      },
    },
    script: { lang: 'painless', source: setBookFieldsScript, params },
  };
}

/** The `_delete_by_query` body of removeBook. */
export function removeBookBody(bookTextId: string) {
  return { query: { bool: { filter: [term('bookTextId', checkString(bookTextId, 'bookTextId'))] } } };
}

/** A page's two NDJSON lines in a `_bulk` body. */
export function bulkLines(page: IndexedPage): string {
  checkString(page.bookTextId, 'bookTextId');
  if (!Number.isInteger(page.pageNumber) || page.pageNumber < 0 || page.pageNumber > 2 ** 31 - 1) throw new RangeError('pageNumber is a non-negative 32-bit integer');
  for (const name of bookFieldNames) checkString(page[name], name);
  if (page.visibility !== 'public' && page.visibility !== 'private') throw new RangeError('visibility is public or private');
  return `${JSON.stringify({ index: { _id: pageId(page.bookTextId, page.pageNumber) } })}\n${JSON.stringify(pageDocument(page))}\n`;
}

/** Bulk bodies of at most maxBytes each (a page larger than that goes alone). */
export function bulkBodies(pages: IndexedPage[], maxBytes: number): { body: string; pages: IndexedPage[] }[] {
  const batches: { body: string; pages: IndexedPage[] }[] = [];
  let body = '';
  let bytes = 0;
  let batch: IndexedPage[] = [];
  for (const page of pages) {
    const lines = bulkLines(page);
    const size = Buffer.byteLength(lines);
    if (batch.length > 0 && bytes + size > maxBytes) {
      batches.push({ body, pages: batch });
      body = '';
      bytes = 0;
      batch = [];
    }
    body += lines;
    bytes += size;
    batch.push(page);
  }
  if (batch.length > 0) batches.push({ body, pages: batch });
  return batches;
}

// Lucene's WhitespaceTokenizer splits at Java's whitespace, and cuts tokens at 255 characters: a term
// holding either would not be one position. (Stricter than Java: no-break spaces count too.)
// eslint-disable-next-line no-control-regex -- Java counts these controls as whitespace
const whitespace = /[\s\p{Z}\u001C-\u001F]/u;

function checkTerm(t: unknown, maxLength: number): void {
  if (typeof t !== 'string' || t.length < 1 || t.length > maxLength || whitespace.test(t)) {
    throw new RangeError(`A term is 1 to ${maxLength} characters without whitespace`);
  }
}

function joinTerms(terms: string[], field: string): string {
  if (!Array.isArray(terms)) throw new RangeError(`${field} is an array of terms`);
  for (const t of terms) checkTerm(t, 255);
  return terms.join(' ');
}

function checkString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new RangeError(`${name} is a non-empty string`);
  return value;
}

const indexName = /^(?![-_+.])[a-z0-9._-]{1,255}$/;
const throttled = new Set([429, 502, 503, 504]);
const isRetryable = (error: unknown) =>
  (error instanceof OpenSearchError && throttled.has(error.status)) || (error instanceof TypeError && error.message === 'fetch failed');

type Json = Record<string, unknown>;

export function openSearchEngine(options: OpenSearchEngineOptions): OpenSearchEngine {
  const { index, region, refreshOnPut = false, maxBulkBytes = 5 * 1024 * 1024, replicas = 0, timeoutMs = 10_000, clock } = options;
  if (!indexName.test(index) || index === '.' || index === '..') throw new RangeError('Not an OpenSearch index name');
  const base = new URL(/^https?:\/\//.test(options.endpoint) ? options.endpoint : `https://${options.endpoint}`);
  const send = options.fetch ?? fetch;
  const signer = new SignatureV4({ service: 'es', region, sha256: Sha256, credentials: options.credentials ?? defaultProvider() });

  /** One signed request; its JSON answer, or the status alone for the statuses `accepted`. Throws OpenSearchError otherwise. */
  async function request(
    method: 'HEAD' | 'PUT' | 'POST',
    path: string,
    query: Record<string, string>,
    body?: string,
    contentType = 'application/json',
  ): Promise<{ status: number; json: Json }> {
    const operation = `${method} ${path}`;
    return retry(
      async () => {
        const headers: Record<string, string> = { host: base.host };
        if (body !== undefined) headers['content-type'] = contentType;
        const signed = await signer.sign({ method, protocol: base.protocol, hostname: base.hostname, port: base.port ? Number(base.port) : undefined, path, query, headers, body });
        const url = new URL(path, base);
        for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
        const { host: _host, ...sent } = signed.headers;
        const response = await send(url, { method, headers: sent, body, signal: AbortSignal.timeout(timeoutMs) });
        const text = method === 'HEAD' ? '' : await response.text();
        const json = parseJson(text);
        if (response.ok || (method === 'HEAD' && response.status === 404)) return { status: response.status, json };
        throw new OpenSearchError(response.status, errorType(json, response), operation);
      },
      { ...policies.throttling, retryable: isRetryable },
      clock,
    );
  }

  const indexPath = `/${index}`;

  let indexExists = false;
  const ensureIndex = async (): Promise<void> => {
    const { status } = await request('HEAD', indexPath, {});
    if (status !== 200) {
      const body = JSON.stringify({ settings: pageIndexSettings(replicas), mappings: pageIndexMapping });
      await request('PUT', indexPath, {}, body).catch((error: unknown) => {
        // Another container created it meanwhile.
        if (!(error instanceof OpenSearchError && error.type === 'resource_already_exists_exception')) throw error;
      });
    }
    indexExists = true;
  };
  // Before any other call, once: a `_bulk` into a missing index would create one with dynamic
  // mappings (the standard analyzer), and a search of a missing index fails.
  const ensureOnce = onceAsync(ensureIndex);
  const ensured = async () => {
    if (!indexExists) await ensureOnce();
  };

  /** Runs a by-query call until no version conflict is left (see the module's comment). */
  async function byQuery(kind: '_update_by_query' | '_delete_by_query', body: object): Promise<void> {
    const payload = JSON.stringify(body);
    await ensured();
    await retry(
      async () => {
        const { json } = await request('POST', `${indexPath}/${kind}`, { conflicts: 'proceed', refresh: 'true' }, payload);
        const failures = Array.isArray(json.failures) ? json.failures : [];
        if (failures.length > 0 || json.timed_out === true) {
          // Answered 200, yet pages failed: the first failure's status (or 500), and the failures' types.
          const status = (failures[0] as Json | undefined)?.status;
          const types = failures.length > 0 ? errorTypes(failures).join(', ') : 'timed_out';
          throw new OpenSearchError(typeof status === 'number' ? status : 500, types, `POST ${indexPath}/${kind}`);
        }
        return typeof json.version_conflicts === 'number' ? json.version_conflicts : 0;
      },
      { ...policies.contention, attempts: 5, until: (conflicts: number) => conflicts === 0, gaveUp: `Pages of the book kept changing during ${kind}` },
      clock,
    );
  }

  /** One `_bulk` request; pages OpenSearch turned away for load (429) are sent again, any other failure is thrown. */
  async function bulk(batch: IndexedPage[], body: string): Promise<void> {
    const query: Record<string, string> = refreshOnPut ? { refresh: refreshOnPut } : {};
    let pending = { pages: batch, body };
    await retry(
      async () => {
        const { json } = await request('POST', `${indexPath}/_bulk`, query, pending.body, 'application/x-ndjson');
        if (json.errors !== true) return [];
        const items = Array.isArray(json.items) ? (json.items as Json[]) : [];
        if (items.length !== pending.pages.length) throw new OpenSearchBulkError(pending.pages.length, pending.pages.length, ['unreadable answer']);
        const results = items.map((item) => (item.index ?? {}) as Json);
        const failed = results.filter((r) => typeof r.status !== 'number' || r.status >= 300 || r.error !== undefined);
        const permanent = failed.filter((r) => r.status !== 429);
        if (permanent.length > 0) throw new OpenSearchBulkError(failed.length, pending.pages.length, errorTypes(failed.map((r) => ({ error: r.error }))));
        const again = pending.pages.filter((_, i) => failed.includes(results[i]!));
        pending = { pages: again, body: again.map(bulkLines).join('') };
        return again;
      },
      {
        ...policies.unprocessedItems,
        until: (left: IndexedPage[]) => left.length === 0,
        gaveUp: 'OpenSearch kept turning pages away for load (429)',
      },
      clock,
    ).catch((error: unknown) => {
      if (error instanceof Error && error.name === 'RetriesExhausted') {
        throw new OpenSearchBulkError(pending.pages.length, batch.length, ['es_rejected_execution_exception']);
      }
      throw error;
    });
  }

  return {
    ensureIndex,

    async putPages(pages) {
      const batches = bulkBodies(pages, maxBulkBytes); // validates every page before sending any
      if (batches.length === 0) return;
      await ensured();
      for (const { body, pages: batch } of batches) await bulk(batch, body);
    },

    setBookFields: (bookTextId, fields) => byQuery('_update_by_query', setBookFieldsBody(bookTextId, fields)),

    removeBook: (bookTextId) => byQuery('_delete_by_query', removeBookBody(bookTextId)),

    async search(query) {
      const body = JSON.stringify(searchBody(query));
      // No ensureIndex here: search-api may not create the index (infra/permissions.ts). Before the
      // indexer's first write there is no index, and no page to find.
      const answer = await request('POST', `${indexPath}/_search`, {}, body).catch((error: unknown) => {
        if (error instanceof OpenSearchError && error.type === 'index_not_found_exception') return undefined;
        throw error;
      });
      if (!answer) return { total: 0, hits: [] };
      const { json } = answer;
      const hits = json.hits as { total?: { value?: unknown; relation?: unknown }; hits?: { _source?: Json }[] } | undefined;
      const total = hits?.total;
      if (typeof total?.value !== 'number' || total.relation !== 'eq' || !Array.isArray(hits?.hits)) {
        throw new OpenSearchError(500, 'unexpected_answer', `POST ${indexPath}/_search`);
      }
      return {
        total: total.value,
        hits: hits.hits.map((hit): PageHit => {
          const source = hit._source ?? {};
          if (typeof source.bookTextId !== 'string' || typeof source.pageNumber !== 'number') {
            throw new OpenSearchError(500, 'unexpected_answer', `POST ${indexPath}/_search`);
          }
          return { bookTextId: source.bookTextId, pageNumber: source.pageNumber };
        }),
      };
    },
  };
}

function parseJson(text: string): Json {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Json) : {};
  } catch {
    return {};
  }
}

const typeName = /^[A-Za-z_][A-Za-z0-9_.]{0,99}$/;

/** OpenSearch's `error.type`, or AWS's error type header (IAM refusals); nothing else of the answer. */
function errorType(json: Json, response: Response): string {
  const error = json.error as Json | undefined;
  if (typeof error?.type === 'string' && typeName.test(error.type)) return error.type;
  const aws = response.headers.get('x-amzn-errortype')?.split(':')[0];
  return aws && typeName.test(aws) ? aws : 'unknown';
}

/** The distinct error types of failures (`{cause: {type}}` in by-query answers, `{error: {type}}` in bulk items). */
function errorTypes(failures: unknown[]): string[] {
  const types = new Set<string>();
  for (const failure of failures) {
    const f = (failure ?? {}) as Json;
    const type = ((f.cause ?? f.error ?? {}) as Json).type;
    types.add(typeof type === 'string' && typeName.test(type) ? type : 'unknown');
  }
  return [...types];
}
