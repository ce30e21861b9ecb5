import { createHash, createHmac } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import * as v from 'valibot';
import { openSearchEngine, type OpenSearchEngine, type OpenSearchEngineOptions } from '../../lib/adapters/opensearch/search-engine.ts';

/**
 * An in-memory OpenSearch, as a `fetch` function for lib/adapters/opensearch/search-engine.ts. It
 * answers exactly the part of the REST API that adapter sends, and only in the shapes written down
 * below as valibot schemas: any other body, path or query parameter is refused with a 400 (as
 * OpenSearch refuses what it cannot parse), so a test through it checks the adapter's requests too.
 *
 * - `HEAD /{index}`, `PUT /{index}` (settings and mappings: keyword, integer, long, and text with the
 *   `whitespace` analyzer and a BM25 similarity; `dynamic: strict`; `max_result_window` or its default,
 *   10,000), `PUT /{index}/_mapping` (new fields added to an index; a field mapped already must be
 *   mapped the same);
 * - `POST /{index}/_bulk` (NDJSON actions with an `_id`: `index`, followed by a page document, a
 *   listing entry (keywords, `tags` and `categories` arrays of keywords, revisions as longs) or a filed
 *   term (`term`, and `keys` an array of keywords); `create`, followed by one of those, which for an
 *   id there writes nothing and answers 409 version_conflict_engine_exception, as OpenSearch does;
 *   `update`, followed by a script, its `upsert` and `scripted_upsert`), a keyword of more than 32,766
 *   bytes of UTF-8 refused as Lucene refuses an immense term;
 * - `POST /{index}/_search` of pages: `bool` with `filter` (`term`, and `bool.should` of `term`s
 *   with `minimum_should_match: 1`) and one `must`, either plain (a `match` with `operator` and/or, or a
 *   `match_phrase`; at most one `should`, a `constant_score` of a `match_phrase` filter) or forgiving (a
 *   `filter` also of a `bool` of `match`es, `should` with an integer `minimum_should_match`; the `must`
 *   a `dis_max` with `tie_breaker: 0` of up to five queries, each a `bool` of a `constant_score` (of a
 *   `match_phrase`, of `match_all`, or of a `bool` of `match_phrase` `should`s with
 *   `minimum_should_match: 1`) and `match`es, `must` or `should`, or the `bool` of `match`es alone), `track_total_hits: true`,
 *   `from`/`size` (within `max_result_window`), the sort `_score` desc, `bookTextId` asc, `pageNumber`
 *   asc, `_source` of those two fields. With a `must`, a `should` need not match: it only adds its
 *   score to the pages it matches;
 * - `POST /{index}/_search` of the listing: `bool` with `filter` only (those clauses, and `terms`
 *   of `tags` or `categories`: any value of the array among the filter's), `track_total_hits: true`,
 *   `from`/`size`, one sort on a single-valued keyword field of the mapping, asc or desc, by its
 *   UTF-8 bytes (Lucene's order), `_source` of `bookTextId`;
 * - `POST /{index}/_search` of filed terms: `bool` with one `filter`, a `terms` of `keys`, `size` (no
 *   `from`, no `track_total_hits`: the total is exact up to 10,000, `gte` past it, OpenSearch's
 *   default), the sort `term` asc (UTF-8 bytes), `_source` of `term`;
 * - `POST /{index}/_update_by_query?conflicts=proceed&refresh=true` with a `bool` of `filter` (keyword
 *   `term`s) and `must_not` (a `range` `gt` of a revision, or a `bool` of `filter`s of `term`s, a
 *   revision's among them) and a script;
 * - `POST /{index}/_delete_by_query?conflicts=proceed&refresh=true` with a `bool` of `filter`.
 *
 * Scripts: the fake runs only the adapter's painless scripts, each known by its exact source (copied
 * here, not imported: a script changed in the adapter is unknown here until its interpretation below
 * is changed too) and its params checked strictly (painless would read a missing one as null). Each
 * is interpreted as painless runs it: a missing source field reads as null, `ctx.op = 'noop'` writes
 * nothing (a bulk item answers `result: noop`, a by-query call counts it in `noops`).
 *
 * Scores are Lucene's BM25 (BM25Similarity, Lucene 9): per term `idf · f / (f + k1 · (1 − b + b · dl / avgdl))`
 * with `idf = ln(1 + (N − n + 0.5) / (n + 0.5))`, N the documents with the field, n those with the
 * term, avgdl the field's mean length; a document's length dl as Lucene stores it, in one byte
 * (SmallFloat.intToByte4: exact up to 40 terms, rounded down to 4 significant bits beyond). A phrase scores as one term whose
 * frequency is the phrase's and whose idf is the sum of its terms'. `match` sums its terms' scores,
 * a `bool` its `must`s' and its matching `should`s' (matching when every `must` and at least
 * `minimum_should_match` `should`s match; with a `must` and no `minimum_should_match`, none need), a
 * `constant_score` its boost (1 by default), a `dis_max` the highest of its matching queries' (`tie_breaker` 0), in doubles (Lucene: float32, so Lucene ties some scores
 * the fake tells apart).
 * Unlike Lucene the statistics never count deleted documents (Lucene does until segments merge), and
 * a write is searchable at once (OpenSearch: after the next refresh).
 *
 * With `credentials`, every request's SigV4 signature is checked (service `es`), by a computation of
 * its own (node:crypto), not the adapter's library.
 */

// ---------------------------------------------------------------------------------------------
// Request shapes
// ---------------------------------------------------------------------------------------------

const text = v.pipe(v.string(), v.minLength(1));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
/** A revision as the adapter sends it (lib/search/rules.ts `revisionOf`), a `long`. */
const revision = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
/** An object with exactly one key, as `term`, `match` and `match_phrase` take their field. */
const oneField = <K extends string, S extends v.GenericSchema>(fields: readonly K[], value: S) =>
  v.pipe(
    v.record(v.picklist(fields), value),
    v.check((r) => Object.keys(r).length === 1, 'exactly one field'),
  );

const keywordFields = ['bookTextId', 'userId', 'visibility', 'status', 'language'] as const;
const textFields = ['exact', 'stemmed'] as const;
const revisionFields = ['textRev', 'bookRev', 'rev'] as const;

export const TermQuery = v.strictObject({ term: oneField(keywordFields, v.strictObject({ value: text })) });
/** A `term` on a revision (a `long`): equal to it. */
export const RevisionTermQuery = v.strictObject({ term: oneField(revisionFields, v.strictObject({ value: revision })) });
/** A `range` on a revision: greater than `gt` (a document without the field: no match). */
export const RangeQuery = v.strictObject({ range: oneField(revisionFields, v.strictObject({ gt: revision })) });
export const FilterClause = v.union([
  TermQuery,
  v.strictObject({
    bool: v.strictObject({ should: v.pipe(v.array(TermQuery), v.minLength(1)), minimum_should_match: v.literal(1) }),
  }),
]);
/** `terms`: any value of the listing entry's array among these (non-empty). */
export const TermsQuery = v.strictObject({ terms: oneField(['tags', 'categories'] as const, v.pipe(v.array(text), v.minLength(1))) });
export const BookFilterClause = v.union([FilterClause, TermsQuery]);
export const Match = v.strictObject({ match: oneField(textFields, v.strictObject({ query: text, operator: v.picklist(['and', 'or']) })) });
export const MatchPhrase = v.strictObject({ match_phrase: oneField(textFields, v.strictObject({ query: text })) });
export const MatchClause = v.union([Match, MatchPhrase]);

const boost = v.optional(v.pipe(v.number(), v.minValue(0)));

/** A `should` scoring its boost for each document the filter matches (`boost` defaults to 1). */
export const ConstantScoreClause = v.strictObject({ constant_score: v.strictObject({ filter: MatchPhrase, boost }) });

/**
 * A forgiving query's `must`: a `bool` of `match`es (a word's alternatives each), at least
 * `minimum_should_match` of them matching (more than there are: none matches).
 */
export const WordsClause = v.strictObject({
  bool: v.strictObject({ should: v.pipe(v.array(Match), v.minLength(1)), minimum_should_match: v.pipe(count, v.minValue(1)) }),
});

/** `match_all`: every document (a group's boost for every page the query matches). */
export const MatchAll = v.strictObject({ match_all: v.strictObject({}) });

/**
 * A forgiving query's ranking group: a `bool` whose `must` is a `constant_score` (its boost) of a
 * phrase, of any of several phrases (a `bool` of `should`s, `minimum_should_match: 1`) or of
 * `match_all`, then the `match`es whose BM25 it scores, and `should` `match`es it scores when they
 * match; or the rest, the words' `bool` alone (WordsClause).
 */
export const GroupClause = v.union([
  v.strictObject({
    bool: v.strictObject({
      must: v.pipe(
        v.array(
          v.union([
            v.strictObject({
              constant_score: v.strictObject({
                filter: v.union([
                  MatchPhrase,
                  MatchAll,
                  v.strictObject({ bool: v.strictObject({ should: v.pipe(v.array(MatchPhrase), v.minLength(1)), minimum_should_match: v.literal(1) }) }),
                ]),
                boost,
              }),
            }),
            Match,
          ]),
        ),
        v.minLength(1),
        v.check((must) => 'constant_score' in must[0]! && must.slice(1).every((c) => 'match' in c), 'a constant_score, then matches'),
      ),
      should: v.optional(v.pipe(v.array(Match), v.minLength(1))),
    }),
  }),
  WordsClause,
]);

/** A forgiving query's groups: a page scores the highest of the groups it is in (`tie_breaker` 0: the others add nothing). */
export const GroupsClause = v.strictObject({
  dis_max: v.strictObject({ queries: v.pipe(v.array(GroupClause), v.minLength(1), v.maxLength(5)), tie_breaker: v.literal(0) }),
});

/** `POST /{index}/_search` of pages: a plain query (one match, at most one phrase `should`), or a forgiving one (the words a `filter`, its groups the `must`). */
export const SearchRequest = v.strictObject({
  query: v.strictObject({
    bool: v.union([
      v.strictObject({ filter: v.array(FilterClause), must: v.strictTuple([MatchClause]), should: v.optional(v.strictTuple([ConstantScoreClause])) }),
      v.strictObject({ filter: v.array(v.union([FilterClause, WordsClause])), must: v.strictTuple([GroupsClause]) }),
    ]),
  }),
  track_total_hits: v.literal(true),
  from: count,
  size: v.pipe(count, v.minValue(1)),
  sort: v.strictTuple([
    v.strictObject({ _score: v.strictObject({ order: v.literal('desc') }) }),
    v.strictObject({ bookTextId: v.strictObject({ order: v.literal('asc') }) }),
    v.strictObject({ pageNumber: v.strictObject({ order: v.literal('asc') }) }),
  ]),
  _source: v.strictTuple([v.literal('bookTextId'), v.literal('pageNumber')]),
});

/** `POST /{index}/_search` of the listing: filters only, one keyword sort. */
export const BookSearchRequest = v.strictObject({
  query: v.strictObject({ bool: v.strictObject({ filter: v.array(BookFilterClause) }) }),
  track_total_hits: v.literal(true),
  from: count,
  size: v.pipe(count, v.minValue(1)),
  sort: v.strictTuple([oneField(['byDate', 'byName', 'byPages'] as const, v.strictObject({ order: v.picklist(['asc', 'desc']) }))]),
  _source: v.strictTuple([v.literal('bookTextId')]),
});

/** `POST /{index}/_search` of filed terms: those filed under any of the keys, by the term's keyword order; no total asked for. */
export const TermsSearchRequest = v.strictObject({
  query: v.strictObject({ bool: v.strictObject({ filter: v.strictTuple([v.strictObject({ terms: v.strictObject({ keys: v.pipe(v.array(text), v.minLength(1)) }) })]) }) }),
  size: v.pipe(count, v.minValue(1)),
  sort: v.strictTuple([v.strictObject({ term: v.strictObject({ order: v.literal('asc') }) })]),
  _source: v.strictTuple([v.literal('term')]),
});

/** A painless script: its source must be one of `scripts` (below), which checks its params. */
export const Script = v.strictObject({ lang: v.literal('painless'), source: text, params: v.optional(v.record(v.string(), v.unknown())) });

/** `POST /{index}/_update_by_query`. */
export const UpdateByQueryRequest = v.strictObject({
  query: v.strictObject({
    bool: v.strictObject({
      filter: v.pipe(v.array(TermQuery), v.minLength(1)),
      must_not: v.optional(v.array(v.union([RangeQuery, v.strictObject({ bool: v.strictObject({ filter: v.array(v.union([TermQuery, RevisionTermQuery])) }) })]))),
    }),
  }),
  script: Script,
});

/** `POST /{index}/_delete_by_query`. */
export const DeleteByQueryRequest = v.strictObject({
  query: v.strictObject({ bool: v.strictObject({ filter: v.pipe(v.array(TermQuery), v.minLength(1)) }) }),
});

const FieldMapping = v.variant('type', [
  v.strictObject({ type: v.literal('keyword') }),
  v.strictObject({ type: v.literal('integer') }),
  v.strictObject({ type: v.literal('long') }),
  v.strictObject({ type: v.literal('text'), analyzer: v.literal('whitespace'), similarity: v.optional(v.string()) }),
]);

/** `PUT /{index}`. */
export const CreateIndexRequest = v.strictObject({
  settings: v.strictObject({
    index: v.strictObject({
      number_of_shards: v.pipe(count, v.minValue(1)),
      number_of_replicas: count,
      refresh_interval: v.pipe(v.string(), v.regex(/^\d+(ms|s|m)$/)),
      max_result_window: v.optional(v.pipe(count, v.minValue(1))),
      similarity: v.optional(v.record(v.string(), v.strictObject({ type: v.literal('BM25'), k1: v.number(), b: v.number() }))),
    }),
  }),
  mappings: v.strictObject({ dynamic: v.literal('strict'), properties: v.record(v.string(), FieldMapping) }),
});

/** `PUT /{index}/_mapping`: fields to add. */
export const PutMappingRequest = v.strictObject({ properties: v.record(v.string(), FieldMapping) });

const documentId = v.pipe(v.string(), v.minLength(1), v.maxBytes(512));
/** A `_bulk` action line. */
export const BulkAction = v.union([
  v.strictObject({ index: v.strictObject({ _id: documentId }) }),
  v.strictObject({ create: v.strictObject({ _id: documentId }) }),
  v.strictObject({ update: v.strictObject({ _id: documentId, retry_on_conflict: v.optional(count) }) }),
]);

/** The line after an `update` action: a script, and what a missing document starts as. */
export const BulkUpdate = v.strictObject({
  script: Script,
  upsert: v.optional(v.record(v.string(), v.unknown())),
  scripted_upsert: v.optional(v.boolean()),
});

/** A `_bulk` document line: a page (written before revisions: without them). */
export const PageDocument = v.strictObject({
  bookTextId: text,
  pageNumber: v.pipe(count, v.maxValue(2 ** 31 - 1)),
  userId: text,
  visibility: v.picklist(['public', 'private']),
  status: text,
  language: text,
  exact: v.string(),
  stemmed: v.string(),
  textRev: v.optional(revision),
  bookRev: v.optional(revision),
});

/** A `_bulk` document line: a listing entry (written before revisions: without its `rev`). */
export const BookDocument = v.strictObject({
  bookTextId: text,
  userId: text,
  visibility: v.picklist(['public', 'private']),
  status: text,
  language: text,
  tags: v.array(text),
  categories: v.array(text),
  byDate: text,
  byName: text,
  byPages: text,
  rev: v.optional(revision),
});

/** A `_bulk` document line: a filed term, and the keys it is filed under. */
export const TermDocument = v.strictObject({ term: text, keys: v.pipe(v.array(text), v.minLength(1)) });

const AnyDocument = v.union([PageDocument, BookDocument, TermDocument]);

/** The query parameters each route takes (values allowed); any other is refused. */
const routeParameters: Record<string, Record<string, readonly string[]>> = {
  index: {},
  _mapping: {},
  _bulk: { refresh: ['false', 'wait_for'] },
  _search: {},
  _update_by_query: { conflicts: ['proceed'], refresh: ['true'] },
  _delete_by_query: { conflicts: ['proceed'], refresh: ['true'] },
};
const requiredParameters: Record<string, readonly string[]> = { _update_by_query: ['conflicts', 'refresh'], _delete_by_query: ['conflicts', 'refresh'] };

// ---------------------------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------------------------

type PageDoc = v.InferOutput<typeof PageDocument>;
type BookDoc = v.InferOutput<typeof BookDocument>;
type TermDoc = v.InferOutput<typeof TermDocument>;
type Doc = PageDoc | BookDoc | TermDoc;
/** A stored document as a test reads it: the fields of whichever kind it is. */
export type StoredDocument = Partial<PageDoc & BookDoc & TermDoc>;
/** OpenSearch's `index.max_result_window` when an index's settings leave it out. */
const defaultResultWindow = 10_000;
/** How many hits a search counts exactly when it does not ask for `track_total_hits` (OpenSearch's default). */
const defaultTrackTotalHits = 10_000;
/** Lucene's longest term (IndexWriter.MAX_TERM_LENGTH), in bytes of UTF-8. */
const maxTermBytes = 32_766;
type Mapping = v.InferOutput<typeof CreateIndexRequest>;

interface Stored {
  source: Doc;
  seqNo: number;
  /** Per text field: its tokens. */
  tokens: Record<string, string[]>;
}

interface Index {
  name: string;
  settings: Mapping['settings']['index'];
  mappings: Mapping['mappings'];
  docs: Map<string, Stored>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

export interface InjectedError {
  status: number;
  type: string;
  /** Default: a reason quoting the request's body, as OpenSearch's parse errors do. */
  reason?: string;
}

export interface FakeOpenSearchOptions {
  /** When set, each request's SigV4 signature is verified with these (and `region`, service `es`). */
  credentials?: Credentials;
  region?: string;
}

class Refused extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    reason: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(reason);
  }
}

// Java's Character.isWhitespace, which Lucene's WhitespaceTokenizer splits at (no-break spaces are not).
// eslint-disable-next-line no-control-regex -- Java counts these controls as whitespace
const javaWhitespace = /[\t\n\u000B\f\r\u001C-\u001F \u1680\u2000-\u2006\u2008-\u200A\u2028\u2029\u205F\u3000]+/;
export const whitespaceTokens = (s: string): string[] => s.split(javaWhitespace).filter((t) => t.length > 0);

/** Lucene's SmallFloat.intToByte4 then byte4ToInt: the document length BM25 sees. */
export function luceneLength(length: number): number {
  const free = 24; // 255 - longToInt4(Integer.MAX_VALUE)
  if (length < free) return length;
  const i = length - free;
  const bits = 32 - Math.clz32(i);
  if (bits < 4) return length;
  const shift = bits - 4;
  return free + ((((i >>> shift) & 0x07) | 0x08) << shift);
}

export class FakeOpenSearch {
  readonly requests: RecordedRequest[] = [];
  private readonly indexes = new Map<string, Index>();
  private readonly failures: InjectedError[] = [];
  private bulkItemError: ((id: string, line: unknown) => InjectedError | undefined) | undefined;
  private afterSnapshot: (() => void) | undefined;
  private seqNo = 0;
  private lastHits: { id: string; score: number }[] = [];

  constructor(private readonly options: FakeOpenSearchOptions = {}) {}

  /** The `fetch` to give the adapter. */
  readonly fetch = (async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const body = typeof init.body === 'string' ? init.body : init.body == null ? '' : String(init.body);
    const method = (init.method ?? 'GET').toUpperCase();
    const request: RecordedRequest = { method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body };
    this.requests.push(request);
    try {
      if (this.options.credentials) verifySignature(request, url, this.options.credentials, this.options.region ?? 'us-east-1');
      const injected = this.failures.shift();
      if (injected) throw new Refused(injected.status, injected.type, injected.reason ?? `failed to parse [${body}]`);
      const { status, json } = this.route(request);
      return new Response(method === 'HEAD' || json === undefined ? null : JSON.stringify(json), {
        status,
        headers: { 'content-type': 'application/json; charset=UTF-8' },
      });
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      const answer = { error: { root_cause: [{ type: error.type, reason: error.message }], type: error.type, reason: error.message }, status: error.status };
      return new Response(method === 'HEAD' ? null : JSON.stringify(answer), {
        status: error.status,
        headers: { 'content-type': 'application/json; charset=UTF-8', ...error.headers },
      });
    }
  }) as typeof fetch;

  /** The ids and scores of the last search's hits. */
  lastSearchHits(): { id: string; score: number }[] {
    return this.lastHits;
  }

  /** Sends the fake a request of the test's own, signed with the fake's credentials. */
  rawSigned(method: string, pathAndQuery: string, body: string, contentType = 'application/json'): Promise<Response> {
    const url = new URL(pathAndQuery, fakeDomain.endpoint);
    const credentials = this.options.credentials ?? { accessKeyId: 'none', secretAccessKey: 'none' };
    return this.fetch(url, { method, body, headers: signedHeaders(method, url, body, contentType, credentials, this.options.region ?? 'us-east-1') });
  }

  /** The next requests (one per entry) are answered with these errors instead. */
  failNext(...errors: InjectedError[]): void {
    this.failures.push(...errors);
  }

  /** From now on, `_bulk` items for which this returns an error (given the id and the action's second line) are not stored and answer it. */
  rejectBulkItems(decide: ((id: string, line: unknown) => InjectedError | undefined) | undefined): void {
    this.bulkItemError = decide;
  }

  /** Runs once, in the next by-query call, between its search and its writes (a concurrent writer). */
  duringNextByQuery(write: () => void): void {
    this.afterSnapshot = write;
  }

  /** A write as another client's `_bulk` would make it. */
  put(index: string, id: string, doc: Doc): void {
    this.store(this.index(index), id, doc);
  }

  /** The stored documents of an index (pages, listing entries or filed terms), by id. */
  documents(index: string): Map<string, StoredDocument> {
    return new Map([...(this.indexes.get(index)?.docs ?? [])].map(([id, d]) => [id, structuredClone(d.source) as StoredDocument]));
  }

  /** What the fake indexed from a `PUT /{index}`. */
  indexDefinition(index: string) {
    const i = this.indexes.get(index);
    return i && { settings: { index: i.settings }, mappings: i.mappings };
  }

  private index(name: string): Index {
    const index = this.indexes.get(name);
    if (!index) throw new Refused(404, 'index_not_found_exception', `no such index [${name}]`);
    return index;
  }

  private route(request: RecordedRequest): { status: number; json?: unknown } {
    const match = /^\/([a-z0-9][a-z0-9._-]*)(?:\/(_bulk|_search|_update_by_query|_delete_by_query|_mapping))?$/.exec(request.path);
    if (!match) throw new Refused(400, 'illegal_argument_exception', `no handler found for uri [${request.path}]`);
    const [, name, action = 'index'] = match as unknown as [string, string, string | undefined];
    checkParameters(action, request.query);
    const json = action === '_bulk' ? undefined : request.method === 'HEAD' ? undefined : parseJson(request);
    const expected = action === 'index' ? ['HEAD', 'PUT'] : action === '_mapping' ? ['PUT'] : ['POST'];
    if (!expected.includes(request.method)) throw new Refused(405, 'method_not_allowed', `Incorrect HTTP method for uri [${request.path}]`);
    if (request.method !== 'HEAD') {
      const contentType = action === '_bulk' ? 'application/x-ndjson' : 'application/json';
      if (request.headers['content-type'] !== contentType) throw new Refused(406, 'content_type_not_acceptable', `expected ${contentType}`);
    }
    switch (action) {
      case 'index':
        if (request.method === 'HEAD') return { status: this.indexes.has(name) ? 200 : 404 };
        return this.createIndex(name, parse(CreateIndexRequest, json));
      case '_mapping':
        return this.putMapping(this.index(name), parse(PutMappingRequest, json));
      case '_bulk':
        return this.bulk(this.index(name), request.body);
      case '_search': {
        const index = this.index(name);
        // A search of pages scores (a `must`); a listing's only filters, counting them; filed terms' are not counted.
        const bool = (json as { query?: { bool?: object } } | undefined)?.query?.bool;
        if (bool && 'must' in bool) return this.search(index, parse(SearchRequest, json));
        if (json !== null && typeof json === 'object' && 'track_total_hits' in json) return this.searchBooks(index, parse(BookSearchRequest, json));
        return this.searchTerms(index, parse(TermsSearchRequest, json));
      }
      case '_update_by_query':
        return this.updateByQuery(this.index(name), parse(UpdateByQueryRequest, json));
      default:
        return this.deleteByQuery(this.index(name), parse(DeleteByQueryRequest, json));
    }
  }

  private createIndex(name: string, body: Mapping) {
    if (this.indexes.has(name)) throw new Refused(400, 'resource_already_exists_exception', `index [${name}] already exists`);
    checkSimilarities(body.mappings.properties, body.settings.index);
    this.indexes.set(name, { name, settings: body.settings.index, mappings: structuredClone(body.mappings), docs: new Map() });
    return { status: 200, json: { acknowledged: true, shards_acknowledged: true, index: name } };
  }

  /** New fields join the mapping; a field mapped already may only be mapped the same (no change then). */
  private putMapping(index: Index, body: v.InferOutput<typeof PutMappingRequest>) {
    checkSimilarities(body.properties, index.settings);
    for (const [field, mapping] of Object.entries(body.properties)) {
      const held = index.mappings.properties[field];
      if (held && !isDeepStrictEqual(held, mapping)) throw new Refused(400, 'illegal_argument_exception', `mapper [${field}] cannot be changed from type [${held.type}] to [${mapping.type}]`);
    }
    Object.assign(index.mappings.properties, structuredClone(body.properties));
    return { status: 200, json: { acknowledged: true } };
  }

  private store(index: Index, id: string, doc: Doc): void {
    const tokens: Record<string, string[]> = {};
    for (const [field, value] of Object.entries(doc)) {
      const mapping = index.mappings.properties[field];
      if (!mapping) throw new Refused(400, 'strict_dynamic_mapping_exception', `mapping set to strict, dynamic introduction of [${field}] is not allowed`);
      if (mapping.type === 'text') tokens[field] = whitespaceTokens(String(value));
      else if (mapping.type === 'integer' || mapping.type === 'long') {
        const fits = mapping.type === 'integer' ? Number.isInteger(value) : Number.isSafeInteger(value);
        if (!fits) throw new Refused(400, 'mapper_parsing_exception', `failed to parse field [${field}]`);
      } else {
        // A keyword: a string, or an array of them (OpenSearch takes an array for any field).
        const values: unknown[] = Array.isArray(value) ? value : [value];
        if (!values.every((one) => typeof one === 'string')) throw new Refused(400, 'mapper_parsing_exception', `failed to parse field [${field}]`);
        if (values.some((one) => Buffer.byteLength(one as string) > maxTermBytes)) {
          throw new Refused(400, 'illegal_argument_exception', `Document contains at least one immense term in field="${field}"`);
        }
      }
    }
    index.docs.set(id, { source: structuredClone(doc), seqNo: ++this.seqNo, tokens });
  }

  private bulk(index: Index, body: string) {
    if (!body.endsWith('\n')) throw new Refused(400, 'illegal_argument_exception', 'The bulk request must be terminated by a newline [\\n]');
    const lines = body.slice(0, -1).split('\n');
    if (lines.length % 2 !== 0) throw new Refused(400, 'illegal_argument_exception', 'Malformed action/metadata line');
    type Write =
      | { kind: 'index' | 'create'; id: string; doc: Doc; line: unknown }
      | { kind: 'update'; id: string; update: v.InferOutput<typeof BulkUpdate>; line: unknown };
    const writes: Write[] = [];
    for (let i = 0; i < lines.length; i += 2) {
      const action = parse(BulkAction, parseLine(lines[i]!));
      const line = parseLine(lines[i + 1]!);
      if ('index' in action) writes.push({ kind: 'index', id: action.index._id, doc: parse(AnyDocument, line), line });
      else if ('create' in action) writes.push({ kind: 'create', id: action.create._id, doc: parse(AnyDocument, line), line });
      else writes.push({ kind: 'update', id: action.update._id, update: parse(BulkUpdate, line), line });
    }
    let errors = false;
    const items: unknown[] = [];
    for (const write of writes) {
      const { id, kind } = write;
      let result: { result: 'created' | 'updated' | 'noop'; status: number } | undefined;
      let error = this.bulkItemError?.(id, write.line);
      if (!error) {
        try {
          if (write.kind === 'update') result = this.updateDocument(index, id, write.update);
          else if (write.kind === 'create') result = this.createDocument(index, id, write.doc);
          else result = this.indexDocument(index, id, write.doc);
        } catch (e) {
          if (!(e instanceof Refused)) throw e;
          error = { status: e.status, type: e.type, reason: e.message };
        }
      }
      if (error) {
        errors = true;
        items.push({ [kind]: { _index: index.name, _id: id, status: error.status, error: { type: error.type, reason: error.reason ?? `failed to parse [${JSON.stringify(write.line)}]` } } });
      } else {
        items.push({ [kind]: { _index: index.name, _id: id, ...result, _seq_no: index.docs.get(id)?.seqNo } });
      }
    }
    return { status: 200, json: { took: 1, errors, items } };
  }

  /** A `create` item: the document unless one of that id is there (409, as OpenSearch answers). */
  private createDocument(index: Index, id: string, doc: Doc) {
    const held = index.docs.get(id);
    if (held) throw new Refused(409, 'version_conflict_engine_exception', `[${id}]: version conflict, document already exists (current version [${held.seqNo}])`);
    this.store(index, id, doc);
    return { result: 'created' as const, status: 201 };
  }

  private indexDocument(index: Index, id: string, doc: Doc) {
    const existed = index.docs.has(id);
    this.store(index, id, doc);
    return existed ? { result: 'updated' as const, status: 200 } : { result: 'created' as const, status: 201 };
  }

  /**
   * An `update` item: the script on the stored document; on a missing one, on the upsert document with
   * `scripted_upsert`, else the upsert document itself (no upsert: document_missing). A noop writes nothing.
   */
  private updateDocument(index: Index, id: string, update: v.InferOutput<typeof BulkUpdate>) {
    const current = index.docs.get(id);
    // OpenSearch's UpdateHelper wraps a script's failure: "failed to execute script".
    const run = (source: Record<string, unknown>, op: 'index' | 'create') => {
      try {
        return runScript(update.script, source, op);
      } catch (e) {
        if (e instanceof Refused && e.type === 'script_exception') throw new Refused(400, 'illegal_argument_exception', `failed to execute script (${e.message})`);
        throw e;
      }
    };
    let source: Record<string, unknown> | undefined;
    if (current) source = run(current.source, 'index');
    else if (!update.upsert) throw new Refused(404, 'document_missing_exception', `[${id}]: document missing`);
    else source = update.scripted_upsert ? run(update.upsert, 'create') : update.upsert;
    if (!source) return { result: 'noop' as const, status: 200 };
    this.store(index, id, parse(AnyDocument, source));
    return current ? { result: 'updated' as const, status: 200 } : { result: 'created' as const, status: 201 };
  }

  private search(index: Index, body: v.InferOutput<typeof SearchRequest>) {
    checkWindow(index, body.from + body.size);
    const bool = body.query.bool;
    const matches: { id: string; doc: Stored; score: number }[] = [];
    const statistics = new Map<string, FieldStatistics>();
    const must = this.scorer(index, bool.must[0], statistics);
    // A bool's score is the sum of its matching must and should clauses' scores (filters score 0);
    // with a must, no should needs to match.
    const should = ('should' in bool ? (bool.should ?? []) : []).map((clause) => this.scorer(index, clause, statistics));
    // A filter on text (a forgiving query's words) matches as its scorer does, and scores nothing.
    const filters = bool.filter.map((clause) => ('bool' in clause && 'should' in clause.bool && clause.bool.should.some((c) => 'match' in c) ? this.scorer(index, clause as ScoringClause, statistics) : clause));
    const filtered = (doc: Stored) => filters.every((f) => (typeof f === 'function' ? f(doc) !== undefined : filterMatches(f as v.InferOutput<typeof FilterClause>, doc.source)));
    for (const [id, doc] of index.docs) {
      if (!filtered(doc)) continue;
      const score = must(doc);
      if (score === undefined) continue;
      matches.push({ id, doc, score: should.reduce((sum, clause) => sum + (clause(doc) ?? 0), score) });
    }
    const page = (doc: Stored) => doc.source as PageDoc;
    matches.sort(
      (a, b) =>
        b.score - a.score ||
        Buffer.compare(Buffer.from(page(a.doc).bookTextId), Buffer.from(page(b.doc).bookTextId)) ||
        page(a.doc).pageNumber - page(b.doc).pageNumber,
    );
    const window = matches.slice(body.from, body.from + body.size);
    this.lastHits = window.map(({ id, score }) => ({ id, score }));
    return searchAnswer(
      matches.length,
      window.map(({ id, doc, score }) => ({
        _index: index.name,
        _id: id,
        _score: score,
        _source: { bookTextId: page(doc).bookTextId, pageNumber: page(doc).pageNumber },
        sort: [score, page(doc).bookTextId, page(doc).pageNumber],
      })),
    );
  }

  private searchBooks(index: Index, body: v.InferOutput<typeof BookSearchRequest>) {
    checkWindow(index, body.from + body.size);
    const [[field, { order }]] = Object.entries(body.sort[0]) as [[string, { order: 'asc' | 'desc' }]];
    if (index.mappings.properties[field]?.type !== 'keyword') throw new Refused(400, 'search_phase_execution_exception', `No mapping found for [${field}] in order to sort on`);
    const matches: { id: string; key: string }[] = [];
    for (const [id, doc] of index.docs) {
      if (!body.query.bool.filter.every((clause) => filterMatches(clause, doc.source))) continue;
      const key = (doc.source as Record<string, unknown>)[field];
      if (typeof key !== 'string') throw new Refused(400, 'illegal_argument_exception', `the fake sorts on single-valued keywords only [${field}]`);
      matches.push({ id, key });
    }
    // Keywords sort by their UTF-8 bytes (BytesRef order); equal keys by document (here: by id).
    const sign = order === 'asc' ? 1 : -1;
    matches.sort((a, b) => sign * Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)) || Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)));
    const page = matches.slice(body.from, body.from + body.size);
    return searchAnswer(
      matches.length,
      page.map(({ id, key }) => ({ _index: index.name, _id: id, _score: null, _source: { bookTextId: (index.docs.get(id)!.source as BookDoc).bookTextId }, sort: [key] })),
    );
  }

  /**
   * A search of filed terms: those whose `keys` hold any of the filter's, by the term's UTF-8 bytes (a
   * keyword's order), the first `size`. Not asked for `track_total_hits`, the total is exact up to
   * 10,000 and a lower bound (`gte`) past it, as OpenSearch counts by default.
   */
  private searchTerms(index: Index, body: v.InferOutput<typeof TermsSearchRequest>) {
    checkWindow(index, body.size);
    if (index.mappings.properties.term?.type !== 'keyword') throw new Refused(400, 'search_phase_execution_exception', 'No mapping found for [term] in order to sort on');
    const matches: { id: string; key: string }[] = [];
    for (const [id, doc] of index.docs) {
      if (!body.query.bool.filter.every((clause) => filterMatches(clause, doc.source))) continue;
      const key = (doc.source as Record<string, unknown>).term;
      if (typeof key !== 'string') throw new Refused(400, 'illegal_argument_exception', 'the fake sorts on single-valued keywords only [term]');
      matches.push({ id, key });
    }
    matches.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)) || Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)));
    return searchAnswer(
      Math.min(matches.length, defaultTrackTotalHits),
      matches.slice(0, body.size).map(({ id, key }) => ({ _index: index.name, _id: id, _score: null, _source: { term: key }, sort: [key] })),
      matches.length > defaultTrackTotalHits ? 'gte' : 'eq',
    );
  }

  /**
   * The score of a document for a scoring clause, undefined when it does not match: a `match` or
   * `match_phrase` its BM25; a `bool` the sum of its matching clauses' (every `must` matching, at least
   * `minimum_should_match` of its `should`s); a `constant_score` its boost. Each text field's
   * statistics are read once per search (`statistics`).
   */
  private scorer(index: Index, clause: ScoringClause, statistics: Map<string, FieldStatistics>): (doc: Stored) => number | undefined {
    if ('dis_max' in clause) {
      const queries = clause.dis_max.queries.map((c) => this.scorer(index, c, statistics));
      return (doc) => {
        const scores = queries.map((scorer) => scorer(doc)).filter((score) => score !== undefined);
        return scores.length === 0 ? undefined : Math.max(...scores);
      };
    }
    if ('constant_score' in clause) {
      const { filter, boost = 1 } = clause.constant_score;
      const matches = this.scorer(index, filter, statistics);
      return (doc) => (matches(doc) === undefined ? undefined : boost);
    }
    if ('match_all' in clause) return () => 0;
    if ('bool' in clause) {
      const bool = clause.bool as { must?: ScoringClause[]; should?: ScoringClause[]; minimum_should_match?: number };
      const must = (bool.must ?? []).map((c) => this.scorer(index, c, statistics));
      const should = (bool.should ?? []).map((c) => this.scorer(index, c, statistics));
      // With a must and no minimum_should_match, no should need match (OpenSearch's default).
      const minimum = bool.minimum_should_match ?? (must.length > 0 ? 0 : 1);
      return (doc) => {
        let sum = 0;
        for (const scorer of must) {
          const score = scorer(doc);
          if (score === undefined) return undefined;
          sum += score;
        }
        let matched = 0;
        for (const scorer of should) {
          const score = scorer(doc);
          if (score === undefined) continue;
          matched++;
          sum += score;
        }
        return matched >= minimum ? sum : undefined;
      };
    }
    const [[field, spec]] = Object.entries('match' in clause ? clause.match : clause.match_phrase) as [[string, { query: string; operator?: 'and' | 'or' }]];
    const mapping = index.mappings.properties[field];
    if (mapping?.type !== 'text') throw new Refused(400, 'query_shard_exception', `field [${field}] is not a text field`);
    const similarity = mapping.similarity === undefined ? { k1: 1.2, b: 0.75 } : index.settings.similarity![mapping.similarity]!;
    const terms = whitespaceTokens(spec.query);
    let stats = statistics.get(field);
    if (!stats) statistics.set(field, (stats = fieldStatistics(index, field)));
    const { docCount, avgdl, docFreq } = stats;
    const idf = (t: string) => {
      const n = docFreq.get(t) ?? 0;
      return Math.log(1 + (docCount - n + 0.5) / (n + 0.5));
    };
    const bm25 = (weight: number, freq: number, length: number) =>
      (weight * freq) / (freq + similarity.k1 * (1 - similarity.b + (similarity.b * luceneLength(length)) / avgdl));

    if ('match_phrase' in clause) {
      const weight = terms.reduce((sum, t) => sum + idf(t), 0);
      return (doc) => {
        const tokens = doc.tokens[field] ?? [];
        let freq = 0;
        for (let start = 0; start + terms.length <= tokens.length; start++) {
          if (terms.every((t, k) => tokens[start + k] === t)) freq++;
        }
        return freq === 0 ? undefined : bm25(weight, freq, tokens.length);
      };
    }
    return (doc) => {
      const tokens = doc.tokens[field] ?? [];
      let score = 0;
      let matched = 0;
      for (const t of terms) {
        const freq = tokens.filter((token) => token === t).length;
        if (freq === 0) continue;
        matched++;
        score += bm25(idf(t), freq, tokens.length);
      }
      const enough = spec.operator === 'and' ? matched === terms.length : matched > 0;
      return enough ? score : undefined;
    };
  }

  /** The documents a by-query call selects, as they are now (its snapshot). */
  private select(index: Index, bool: { filter: TermClause[]; must_not?: (RangeClause | { bool: { filter: (TermClause | RevisionTermClause)[] } })[] }) {
    const selected: { id: string; seqNo: number }[] = [];
    for (const [id, doc] of index.docs) {
      if (!bool.filter.every((c) => filterMatches(c, doc.source))) continue;
      if (bool.must_not?.some((not) => ('range' in not ? filterMatches(not, doc.source) : not.bool.filter.every((c) => filterMatches(c, doc.source))))) continue;
      selected.push({ id, seqNo: doc.seqNo });
    }
    const write = this.afterSnapshot;
    this.afterSnapshot = undefined;
    write?.();
    return selected;
  }

  private updateByQuery(index: Index, body: v.InferOutput<typeof UpdateByQueryRequest>) {
    // A script that fails fails the whole request, before any document is written (the fake checks its params up front).
    checkScript(body.script);
    const selected = this.select(index, body.query.bool);
    let updated = 0;
    let noops = 0;
    let conflicts = 0;
    for (const { id, seqNo } of selected) {
      const current = index.docs.get(id);
      if (!current || current.seqNo !== seqNo) {
        conflicts++;
        continue;
      }
      const source = runScript(body.script, current.source, 'index');
      if (!source) {
        noops++;
        continue;
      }
      this.store(index, id, parse(AnyDocument, source));
      updated++;
    }
    return { status: 200, json: byQueryAnswer(selected.length, { updated, noops, version_conflicts: conflicts }) };
  }

  private deleteByQuery(index: Index, body: v.InferOutput<typeof DeleteByQueryRequest>) {
    const selected = this.select(index, body.query.bool);
    let deleted = 0;
    let conflicts = 0;
    for (const { id, seqNo } of selected) {
      if (index.docs.get(id)?.seqNo !== seqNo) {
        conflicts++;
        continue;
      }
      index.docs.delete(id);
      deleted++;
    }
    return { status: 200, json: byQueryAnswer(selected.length, { deleted, version_conflicts: conflicts }) };
  }
}

type TermClause = v.InferOutput<typeof TermQuery>;
/** What scores (or only matches) in a search of pages: its `must`, its `should`s and what they hold. */
type ScoringClause =
  | v.InferOutput<typeof MatchClause>
  | v.InferOutput<typeof ConstantScoreClause>
  | v.InferOutput<typeof WordsClause>
  | v.InferOutput<typeof GroupClause>
  | v.InferOutput<typeof GroupsClause>
  | v.InferOutput<typeof MatchAll>
  | { constant_score: { filter: ScoringClause; boost?: number } }
  | { bool: { must?: ScoringClause[]; should?: ScoringClause[]; minimum_should_match?: number } };
type RevisionTermClause = v.InferOutput<typeof RevisionTermQuery>;
type RangeClause = v.InferOutput<typeof RangeQuery>;

/** Lucene's statistics of a text field over the documents that have it: docCount, the mean length (sumTotalTermFreq / docCount), docFreq per term. */
interface FieldStatistics {
  docCount: number;
  avgdl: number;
  docFreq: Map<string, number>;
}

function fieldStatistics(index: Index, field: string): FieldStatistics {
  let docCount = 0;
  let totalLength = 0;
  const docFreq = new Map<string, number>();
  for (const doc of index.docs.values()) {
    const tokens = doc.tokens[field] ?? [];
    if (tokens.length === 0) continue;
    docCount++;
    totalLength += tokens.length;
    for (const t of new Set(tokens)) docFreq.set(t, (docFreq.get(t) ?? 0) + 1);
  }
  return { docCount, avgdl: docCount === 0 ? 1 : totalLength / docCount, docFreq };
}

/** A search reaching past the index's result window (from + size) is refused, as OpenSearch refuses it. */
function checkWindow(index: Index, reach: number): void {
  const window = index.settings.max_result_window ?? defaultResultWindow;
  if (reach > window) throw new Refused(400, 'search_phase_execution_exception', `Result window is too large, from + size must be less than or equal to: [${window}]`);
}

/** A text field's similarity must be one the index's settings define. */
function checkSimilarities(properties: Mapping['mappings']['properties'], settings: Mapping['settings']['index']): void {
  for (const [field, mapping] of Object.entries(properties)) {
    if (mapping.type === 'text' && mapping.similarity !== undefined && !(mapping.similarity in (settings.similarity ?? {}))) {
      throw new Refused(400, 'mapper_parsing_exception', `Unknown Similarity type [${mapping.similarity}] for field [${field}]`);
    }
  }
}

/** A keyword's (or a revision's) values (none when the document lacks it: a missing field matches nothing). */
const keywordValues = (doc: Doc, field: string): unknown[] => {
  const value = (doc as Record<string, unknown>)[field];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
};

function filterMatches(clause: v.InferOutput<typeof BookFilterClause> | RevisionTermClause | RangeClause | { terms: Record<string, string[]> }, doc: Doc): boolean {
  if ('bool' in clause) return clause.bool.should.filter((c) => filterMatches(c, doc)).length >= clause.bool.minimum_should_match;
  if ('range' in clause) {
    const [[field, { gt }]] = Object.entries(clause.range) as [[string, { gt: number }]];
    return keywordValues(doc, field).some((one) => typeof one === 'number' && one > gt);
  }
  if ('terms' in clause) {
    const [[field, values]] = Object.entries(clause.terms) as [[string, string[]]];
    return keywordValues(doc, field).some((one) => values.includes(one as string));
  }
  const [[field, { value }]] = Object.entries(clause.term) as [[string, { value: string | number }]];
  return keywordValues(doc, field).includes(value);
}

function byQueryAnswer(total: number, counts: { updated?: number; deleted?: number; noops?: number; version_conflicts: number }) {
  return {
    took: 1,
    timed_out: false,
    total,
    updated: 0,
    deleted: 0,
    batches: 1,
    noops: 0,
    retries: { bulk: 0, search: 0 },
    throttled_millis: 0,
    requests_per_second: -1,
    throttled_until_millis: 0,
    failures: [],
    ...counts,
  };
}

/** What a painless update script sees and may change: `ctx.op` and `ctx._source`. */
interface ScriptContext {
  op: string;
  _source: Record<string, unknown>;
}

interface FakeScript<S extends v.GenericSchema = v.GenericSchema> {
  params: S;
  run(ctx: ScriptContext, params: v.InferOutput<S>): void;
}

const script = <S extends v.GenericSchema>(params: S, run: (ctx: ScriptContext, params: v.InferOutput<S>) => void): FakeScript => ({ params, run }) as FakeScript;

/** Painless `x == null ? 0 : x`: a revision a document written before revisions lacks. */
const orZero = (value: unknown): number => (value == null ? 0 : (value as number));

/**
 * The adapter's scripts (lib/adapters/opensearch/search-engine.ts), by their exact source, each with
 * what it does in painless. A source not here is refused: change a script there, and its
 * interpretation here must be changed with it.
 */
const scripts = new Map<string, FakeScript>([
  [
    // putPageScript: each part (the terms, the book fields) if its revision is higher than held, or equal and the part differs; else noop.
    'def s = ctx._source; ' +
      'def heldText = s.textRev == null ? 0 : s.textRev; ' +
      'def heldBook = s.bookRev == null ? 0 : s.bookRev; ' +
      'boolean newTerms = params.textRev > heldText || (params.textRev >= heldText && !(params.exact.equals(s.exact) && params.stemmed.equals(s.stemmed))); ' +
      'boolean newFields = params.bookRev > heldBook || (params.bookRev >= heldBook && !(params.userId.equals(s.userId) && params.visibility.equals(s.visibility) && params.status.equals(s.status) && params.language.equals(s.language))); ' +
      'if (newTerms) { s.exact = params.exact; s.stemmed = params.stemmed; s.textRev = params.textRev; } ' +
      'if (newFields) { s.userId = params.userId; s.visibility = params.visibility; s.status = params.status; s.language = params.language; s.bookRev = params.bookRev; } ' +
      "if (newTerms || newFields) { s.bookTextId = params.bookTextId; s.pageNumber = params.pageNumber; } else { ctx.op = 'noop'; }",
    script(v.strictObject({ ...PageDocument.entries, textRev: revision, bookRev: revision }), (ctx, p) => {
      const s = ctx._source;
      // painless `a.equals(b)`: false for a missing field.
      const newTerms = p.textRev > orZero(s.textRev) || (p.textRev >= orZero(s.textRev) && !(p.exact === s.exact && p.stemmed === s.stemmed));
      const sameFields = p.userId === s.userId && p.visibility === s.visibility && p.status === s.status && p.language === s.language;
      const newFields = p.bookRev > orZero(s.bookRev) || (p.bookRev >= orZero(s.bookRev) && !sameFields);
      if (newTerms) Object.assign(s, { exact: p.exact, stemmed: p.stemmed, textRev: p.textRev });
      if (newFields) Object.assign(s, { userId: p.userId, visibility: p.visibility, status: p.status, language: p.language, bookRev: p.bookRev });
      if (newTerms || newFields) Object.assign(s, { bookTextId: p.bookTextId, pageNumber: p.pageNumber });
      else ctx.op = 'noop';
    }),
  ],
  [
    // putBookScript: the whole entry unless the one held has a higher rev.
    "if (params.entry.rev >= (ctx._source.rev == null ? 0 : ctx._source.rev)) { ctx._source = params.entry; } else { ctx.op = 'noop'; }",
    script(v.strictObject({ entry: v.strictObject({ ...BookDocument.entries, rev: revision }) }), (ctx, p) => {
      if (p.entry.rev >= orZero(ctx._source.rev)) ctx._source = structuredClone(p.entry);
      else ctx.op = 'noop';
    }),
  ],
  [
    // setBookFieldsScript: the four fields and bookRev, unconditionally (its query chose the pages).
    'ctx._source.userId = params.userId; ctx._source.visibility = params.visibility; ' +
      'ctx._source.status = params.status; ctx._source.language = params.language; ctx._source.bookRev = params.bookRev;',
    script(
      v.strictObject({ userId: text, visibility: v.picklist(['public', 'private']), status: text, language: text, bookRev: revision }),
      (ctx, p) => void Object.assign(ctx._source, p),
    ),
  ],
  [
    // hideBookScript: private, nothing else.
    "ctx._source.visibility = 'private';",
    script(v.strictObject({}), (ctx) => void (ctx._source.visibility = 'private')),
  ],
]);

/** The known script of that source and its params checked, else a script error (as painless fails to compile, or at run time). */
function checkScript(body: v.InferOutput<typeof Script>): { known: FakeScript; params: unknown } {
  const known = scripts.get(body.source);
  if (!known) throw new Refused(400, 'script_exception', "compile error (the fake runs only the adapter's scripts, by their exact source)");
  const params = v.safeParse(known.params, body.params ?? {});
  if (!params.success) throw new Refused(400, 'script_exception', `runtime error: params [${v.getDotPath(params.issues[0]) ?? ''}] ${params.issues[0].message}`);
  return { known, params: params.output };
}

/**
 * Runs a script on a copy of `source`, `op` being what OpenSearch starts it with (`index` on a stored
 * document, `create` on a scripted upsert's): the source it leaves, or undefined for `noop` (or
 * `none`).
 */
function runScript(body: v.InferOutput<typeof Script>, source: Record<string, unknown>, op: 'index' | 'create'): Record<string, unknown> | undefined {
  const { known, params } = checkScript(body);
  const ctx: ScriptContext = { op, _source: structuredClone(source) };
  known.run(ctx, params);
  if (ctx.op === 'noop' || ctx.op === 'none') return undefined;
  if (ctx.op !== op) throw new Refused(400, 'illegal_argument_exception', `the fake runs no script operation [${ctx.op}]`);
  return ctx._source;
}

function checkParameters(action: string, query: Record<string, string>): void {
  const allowed = routeParameters[action]!;
  for (const [name, value] of Object.entries(query)) {
    if (!allowed[name]?.includes(value)) throw new Refused(400, 'illegal_argument_exception', `request [${action}] contains unrecognized parameter or value: [${name}]`);
  }
  for (const name of requiredParameters[action] ?? []) {
    if (!(name in query)) throw new Refused(400, 'illegal_argument_exception', `the fake expects [${name}] on ${action}`);
  }
}

function parseJson(request: RecordedRequest): unknown {
  if (request.method === 'HEAD') return undefined;
  return parseLine(request.body);
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new Refused(400, 'x_content_parse_exception', 'Failed to parse the request body');
  }
}

function parse<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const issue = result.issues[0];
  throw new Refused(400, 'x_content_parse_exception', `[${v.getDotPath(issue) ?? ''}] ${issue.message}`);
}

// ---------------------------------------------------------------------------------------------
// SigV4, verified from scratch (AWS's "Create a signed AWS API request")
// ---------------------------------------------------------------------------------------------

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** The signature of a request, from its signed headers (`host` taken from the URL). */
function signatureOf(request: RecordedRequest, url: URL, signedHeaderList: string, secretAccessKey: string, region: string): string {
  const amzDate = request.headers['x-amz-date'] ?? '';
  const headerValue = (name: string) => (name === 'host' ? url.host : (request.headers[name] ?? '')).trim().replace(/\s+/g, ' ');
  const canonicalPath = url.pathname
    .split('/')
    .map((segment) => rfc3986(decodeURIComponent(segment)))
    .join('/');
  const canonicalQuery = [...url.searchParams]
    .map(([k, val]) => [rfc3986(k), rfc3986(val)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : 1))
    .map(([k, val]) => `${k}=${val}`)
    .join('&');
  const canonicalRequest = [
    request.method,
    canonicalPath,
    canonicalQuery,
    signedHeaderList
      .split(';')
      .map((name) => `${name}:${headerValue(name)}\n`)
      .join(''),
    signedHeaderList,
    sha256(request.body),
  ].join('\n');
  const date = amzDate.slice(0, 8);
  const scope = `${date}/${region}/es/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), 'es'), 'aws4_request');
  return hmac(key, stringToSign).toString('hex');
}

/** Headers that sign a request (for tests that send the fake a body of their own). */
export function signedHeaders(method: string, url: URL, body: string, contentType: string, credentials: Credentials, region: string): Record<string, string> {
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const headers: Record<string, string> = { 'content-type': contentType, 'x-amz-date': amzDate, 'x-amz-content-sha256': sha256(body) };
  const list = 'content-type;host;x-amz-content-sha256;x-amz-date';
  const signature = signatureOf({ method, path: url.pathname, query: {}, headers, body }, url, list, credentials.secretAccessKey, region);
  const scope = `${amzDate.slice(0, 8)}/${region}/es/aws4_request`;
  return { ...headers, authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${list}, Signature=${signature}` };
}

function verifySignature(request: RecordedRequest, url: URL, credentials: Credentials, region: string): void {
  const denied = (why: string) => new Refused(403, 'security_exception', why, { 'x-amzn-errortype': 'InvalidSignatureException' });
  const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
    request.headers.authorization ?? '',
  );
  if (!auth) throw denied('Missing or malformed Authorization header');
  const [, accessKeyId, date, scopeRegion, service, signedHeaderList, signature] = auth as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) throw denied('Unknown access key');
  if (service !== 'es' || scopeRegion !== region) throw denied(`Credential should be scoped to ${region}/es`);
  if (!(request.headers['x-amz-date'] ?? '').startsWith(date!)) throw denied('Date mismatch');
  if (credentials.sessionToken !== undefined && request.headers['x-amz-security-token'] !== credentials.sessionToken) throw denied('Missing security token');
  const hash = request.headers['x-amz-content-sha256'];
  if (hash !== undefined && hash !== sha256(request.body)) throw denied('Body does not match its hash');
  const names = signedHeaderList!.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) throw denied('host and x-amz-date must be signed');
  if (credentials.sessionToken !== undefined && !names.includes('x-amz-security-token')) throw denied('The security token must be signed');
  if (signatureOf(request, url, signedHeaderList!, credentials.secretAccessKey, region) !== signature) {
    throw denied('The request signature we calculated does not match the signature you provided');
  }
}

// ---------------------------------------------------------------------------------------------
// The adapter over the fake
// ---------------------------------------------------------------------------------------------

/** Fixed fake credentials (AWS's documentation example); the fake checks signatures with them. */
export const fakeCredentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
export const fakeDomain = { endpoint: 'https://search-maktaba-fake.eu-west-1.es.amazonaws.com', region: 'eu-west-1', index: 'pages' };

/**
 * The OpenSearch adapter on a fresh fake: a SearchEngine for the shared contract suite
 * (test/support/search-engine-contract.ts), with its fake to look into. Retries do not wait. With
 * `fetch`, the adapter talks to another engine's fake (two containers, one domain).
 */
export function openSearchOverFake(options: Partial<OpenSearchEngineOptions> = {}): OpenSearchEngine & { fake: FakeOpenSearch } {
  const fake = new FakeOpenSearch({ credentials: fakeCredentials, region: fakeDomain.region });
  const engine = openSearchEngine({
    ...fakeDomain,
    credentials: fakeCredentials,
    fetch: fake.fetch,
    clock: { sleep: async () => {}, random: () => 0 },
    ...options,
  });
  return Object.assign(engine, { fake });
}

/** A `_search` answer as OpenSearch gives it: one shard, the total (exact unless `gte`), the window's hits. */
function searchAnswer(total: number, hits: unknown[], relation: 'eq' | 'gte' = 'eq') {
  return {
    status: 200,
    json: {
      took: 1,
      timed_out: false,
      _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
      hits: { total: { value: total, relation }, max_score: null, hits },
    },
  };
}
