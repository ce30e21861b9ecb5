import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { onceAsync } from '../../lazy.ts';
import { maxLimit, maxOffset, maxWindow } from '../../paging.ts';
import { policies, retry, type RetryClock } from '../../retry.ts';
import type { BookListQuery, IndexedBook, IndexedBookFields, IndexedPage, PageHit, PageQuery, SearchEngine, SearchView } from '../../search/engine.ts';
import { bm25 } from '../../search/bm25.ts';
import { isFiled, variantKeys } from '../../search/ocr-variants.ts';
import {
  checkIndexedPages,
  forgivingTerms,
  listingBook,
  listingQuery,
  matchableTerms,
  maxQueryTerms,
  maxSimilarTerms,
  phraseFirstTerms,
  revisionOf,
  similarKeys,
  type ListingQuery,
} from '../../search/rules.ts';
import { booksIndexOf, termsIndexOf } from './index-names.ts';

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
 * - putPages and putBook: `refresh` as configured, by default none: pages are searchable after the
 *   next refresh, within about 1 s (`refresh_interval` is set explicitly to 1s, so an index that saw
 *   no search for 30 s does not go search-idle and postpone it). `'wait_for'` answers once they are
 *   searchable, without forcing a refresh (for tests against a real domain, or read-your-writes).
 * - setBookFields, hideBook and removeBook: `refresh=true` (the by-query APIs know no `wait_for`): a
 *   book made private, hidden or deleted is out of other readers' results when the call returns. All
 *   are rare.
 *
 * Revisions (engine.ts `rev`, `pageRev`): a page document holds `textRev` (its terms') and `bookRev`
 * (the book fields it carries), a listing entry `rev`. putPages and putBook write by `_bulk` `update`
 * actions with a constant script (putPageScript, putBookScript) that keeps, part by part, what is held
 * where its revision is higher, and answers `noop` when it keeps everything. `scripted_upsert` runs
 * the same script on a document not stored yet (from `{}`), so a page's text travels once, as params,
 * not also as an `upsert` document. Not `version_type=external`: documents already stored carry
 * internal versions (1, 2, ...), which a put at revision 0 or 1 would fail against, and a page has two
 * revisions, not one. An update reads the document, then writes it if unchanged meanwhile; another
 * writer in between is a conflict OpenSearch retries itself (retriesOnConflict), then the item is sent
 * again. Documents written before revisions have none: the scripts and setBookFields' query read a
 * missing revision as 0 (older than any put that carries one, equal to one that carries none), and
 * ensureIndex maps the new fields on an index made before them (pageMappingUpdate).
 *
 * hideBook: an `_update_by_query` on each index (pages, then the listing entry) of the book's public
 * documents, made private by a constant script that leaves every revision as it is: the next put of
 * the book's fields at a revision not lower than the one held sets them again (engine.ts).
 *
 * The catalogue listing (putBook, listBooks) is a second index beside the pages, `<index>-books`
 * (index-names.ts): one document per book (id = bookTextId), its view fields, filters and sort keys
 * as keywords. A keyword sorts by its UTF-8 bytes (Lucene's BytesRef order, unsigned bytes: code
 * point order), the order of the DynamoDB catalogue's keys; `tags` and `categories` are keyword
 * arrays, which a `terms` filter matches when any value is one of the filter's. listBooks is one
 * `_search`: filters only (no scoring), the sort key, `from`/`size`, `track_total_hits: true` (the
 * exact total, however many match). putBook is a `_bulk` of one `update` action (the id travels in
 * the JSON body, not the URL), made visible as putPages' writes are (`refreshOnPut`); removeBook
 * removes the pages, then the entry (`_delete_by_query`, `refresh=true`).
 *
 * The vocabulary of similar terms (issue 32; engine.ts `similarTerms`) is a third index,
 * `<index>-terms` (index-names.ts): one document per filed term (ocr-variants.ts `isFiled`), its id
 * the term (in the bulk action's JSON, never the URL), its fields the term and the keys it is filed
 * under (`variantKeys`), keywords. putPages files the distinct filed terms of its pages by a `_bulk`
 * of `create` actions beside the pages' (the two run side by side; each made visible as the pages
 * are, `refreshOnPut`): an item answering 409 (version_conflict_engine_exception) holds a term filed
 * already, a success. Each engine remembers the terms it has filed (or found filed), up to
 * maxRememberedTerms, so a container sends a term once; a batch that failed is not remembered. Terms
 * are never taken out (a removed page's term widens a query to nothing). similarTerms is one
 * `_search`: a `terms` filter on the keys, the keyword sort of `term` (UTF-8 bytes), `size`
 * maxSimilarTerms; no index yet answers no term, as a search finds no page.
 *
 * A forgiving search (engine.ts `forgiving`) matches by a `filter`, a `bool` of each word's `match`
 * (its alternatives, `or`) with `minimum_should_match` the words a page must hold; it scores by a
 * `dis_max` of its ranking groups, each a `constant_score` boosted so that each group ranks above
 * everything below it (forgivingBoosts) plus the group's BM25 (the typed terms' or every alternative's).
 *
 * setBookFields (and hideBook) against a concurrent putPages: `_update_by_query` updates the pages it
 * found in a snapshot, each only if unchanged since. A page that putPages rewrote after the snapshot
 * is a version conflict (a `noop` writes nothing: no conflict). Aborting on it (the default) would
 * leave the book half-updated and answer 409; ignoring it would leave that page with the fields it
 * held or those the put carried, older than the new ones unless the put's revision was higher (the
 * old visibility: a private book's page left public). So `conflicts=proceed`, and while the answer
 * counts conflicts the update runs again (the refresh at the end of each run lets the next one see
 * the newer pages). Each run selects only the pages it must change (setBookFieldsBody), so a rerun
 * costs what is left to do. removeBook does the same with `_delete_by_query`. What revisions cannot
 * order: a putPages built from a book read before a removeBook that has finished since (the pages
 * went with their revisions, the put makes them again); the indexing code re-reads its book after
 * putPages (and removes the pages) for that.
 */

export interface OpenSearchEngineOptions {
  /** The domain's endpoint: `https://search-….es.amazonaws.com`, or the host alone (HTTPS). */
  endpoint: string;
  /** The index of pages: lowercase letters, digits, `_`, `-`, `.`. The listing's is `<index>-books`, the filed terms' `<index>-terms` (index-names.ts). */
  index: string;
  region: string;
  /** Default: the AWS SDK's credential chain (on Lambda, the function role's). */
  credentials?: ConstructorParameters<typeof SignatureV4>[0]['credentials'];
  /** Default: the global fetch. Tests pass the fake's (test/support/fake-opensearch.ts). */
  fetch?: typeof fetch;
  /** putPages' (its pages' and its terms') and putBook's refresh: `false` (default, searchable within about 1 s) or `'wait_for'`. */
  refreshOnPut?: false | 'wait_for';
  /** A `_bulk` request's body stays under this many bytes (default 5 MiB; a domain takes 10 MiB or more). */
  maxBulkBytes?: number;
  /** Replicas of each index when ensureIndex creates it (default 0: one data node). */
  replicas?: number;
  /** Each HTTP request's time limit (default 10 s). */
  timeoutMs?: number;
  /** How retries wait (tests pass one that does not). */
  clock?: RetryClock;
}

export interface OpenSearchEngine extends SearchEngine {
  /**
   * Creates the index of pages (pageIndexSettings, pageIndexMapping), the listing's
   * (bookIndexSettings, bookIndexMapping) and the filed terms' (termIndexSettings, termIndexMapping),
   * each unless it exists; the pages' or the listing's that exists is given the fields mapped since it
   * was made (pageMappingUpdate, bookMappingUpdate; the terms' has gained none). Every write runs it
   * first, once per engine.
   */
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

/** Pages (or listing entries) a `_bulk` request did not store: how many, and their error types (no reasons). */
export class OpenSearchBulkError extends Error {
  override name = 'OpenSearchBulkError';
  constructor(
    readonly failed: number,
    readonly sent: number,
    readonly types: string[],
    what = 'pages',
  ) {
    super(`OpenSearch did not store ${failed} of ${sent} ${what} (${types.join(', ')})`);
  }
}

/** The BM25 parameters, pinned (lib/search/bm25.ts: k1 1.2, b 0.75, Lucene's defaults). */
export const pageSimilarity = { type: 'BM25', ...bm25 } as const;

/**
 * The fields a page document gained after indexes were first deployed: its revisions, `textRev` (of
 * its terms, IndexedPage `pageRev`) and `bookRev` (of the book fields it carries, `rev`). An index
 * made before has none: ensureIndex adds them (`PUT <index>/_mapping`, allowed on a live index and
 * idempotent), and the scripts read a document without them as revision 0.
 */
export const pageMappingUpdate = { properties: { textRev: { type: 'long' }, bookRev: { type: 'long' } } } as const;

/** A page's stored fields: the IndexedPage, its terms as one space-joined string per field, its revisions. */
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
    ...pageMappingUpdate.properties,
  },
} as const;

/** The deepest page a query may reach: the listing window (lib/paging.ts), offset 10,000 plus a limit of 100. */
export const maxResultWindow = maxWindow;

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

/** The field a listing entry gained after indexes were first deployed: its `rev` (as pageMappingUpdate). */
export const bookMappingUpdate = { properties: { rev: { type: 'long' } } } as const;

/** A listing entry's stored fields (IndexedBook): keywords, `tags` and `categories` arrays of them, and its `rev`. */
export const bookIndexMapping = {
  dynamic: 'strict',
  properties: {
    bookTextId: { type: 'keyword' },
    userId: { type: 'keyword' },
    visibility: { type: 'keyword' },
    status: { type: 'keyword' },
    language: { type: 'keyword' },
    tags: { type: 'keyword' },
    categories: { type: 'keyword' },
    byDate: { type: 'keyword' },
    byName: { type: 'keyword' },
    byPages: { type: 'keyword' },
    ...bookMappingUpdate.properties,
  },
} as const;

/** One shard (a listing of 100,000 books is a few tens of MB), the pages' refresh and result window. */
export const bookIndexSettings = (replicas = 0) =>
  ({
    index: {
      number_of_shards: 1,
      number_of_replicas: replicas,
      refresh_interval: '1s',
      max_result_window: maxResultWindow,
    },
  }) as const;

/**
 * A filed term's stored fields (engine.ts `similarTerms`): the term, and the keys it is filed under
 * (ocr-variants.ts `variantKeys`), an array of keywords a `terms` filter matches by any of them. The
 * document's id is the term too; `term` is what the search sorts on (a keyword: UTF-8 byte order) and
 * answers.
 */
export const termIndexMapping = {
  dynamic: 'strict',
  properties: {
    term: { type: 'keyword' },
    keys: { type: 'keyword' },
  },
} as const;

/**
 * One shard (a document is a term of at most 24 characters and its keys: a vocabulary of millions of
 * terms is some hundreds of MB), the pages' refresh. A search answers at most maxSimilarTerms terms,
 * within the default result window (10,000).
 */
export const termIndexSettings = (replicas = 0) =>
  ({
    index: {
      number_of_shards: 1,
      number_of_replicas: replicas,
      refresh_interval: '1s',
    },
  }) as const;

/**
 * How many filed terms an engine remembers having filed (about 100 bytes each in a Set, 20 MB at
 * most): past that it forgets them all and starts again, each term forgotten costing one `create`
 * answered 409 the next time it is put.
 */
export const maxRememberedTerms = 200_000;

/**
 * putPages' script, run by one `_bulk` update per page (`scripted_upsert`: also on a page not stored
 * yet, whose source starts as `{}`). Its params are the page's document (pageDocument). The terms
 * follow `textRev`, the book fields `bookRev`: each part is replaced when the put's revision is
 * higher than the one held, or equal and the part differs (equal: the later put wins), a revision
 * missing from a document written before revisions counting as 0. Neither part newer or changed:
 * `noop`, nothing written. That is the common case of an equal put: the table's stream indexes again
 * every page a route has just put (lib/search/indexing.ts), and a noop costs OpenSearch a read of the
 * document, not a second indexing of the page's text. (Painless `a.equals(b)` is false for a missing b.)
 */
export const putPageScript =
  'def s = ctx._source; ' +
  'def heldText = s.textRev == null ? 0 : s.textRev; ' +
  'def heldBook = s.bookRev == null ? 0 : s.bookRev; ' +
  'boolean newTerms = params.textRev > heldText || (params.textRev >= heldText && !(params.exact.equals(s.exact) && params.stemmed.equals(s.stemmed))); ' +
  'boolean newFields = params.bookRev > heldBook || (params.bookRev >= heldBook && !(params.userId.equals(s.userId) && params.visibility.equals(s.visibility) && params.status.equals(s.status) && params.language.equals(s.language))); ' +
  'if (newTerms) { s.exact = params.exact; s.stemmed = params.stemmed; s.textRev = params.textRev; } ' +
  'if (newFields) { s.userId = params.userId; s.visibility = params.visibility; s.status = params.status; s.language = params.language; s.bookRev = params.bookRev; } ' +
  "if (newTerms || newFields) { s.bookTextId = params.bookTextId; s.pageNumber = params.pageNumber; } else { ctx.op = 'noop'; }";

/**
 * putBook's script, as putPageScript for a listing entry, which has one revision: the entry put
 * (`params.entry`, bookDocument) replaces the whole source unless the one held has a higher `rev`.
 */
export const putBookScript = "if (params.entry.rev >= (ctx._source.rev == null ? 0 : ctx._source.rev)) { ctx._source = params.entry; } else { ctx.op = 'noop'; }";

/** The one script of setBookFields: constant source, every value a param. Which pages it runs on is its query's (setBookFieldsBody). */
export const setBookFieldsScript =
  'ctx._source.userId = params.userId; ctx._source.visibility = params.visibility; ' +
  'ctx._source.status = params.status; ctx._source.language = params.language; ctx._source.bookRev = params.bookRev;';

/** hideBook's script, on pages and listing entries alike: private, no revision touched (engine.ts `hideBook`). */
export const hideBookScript = "ctx._source.visibility = 'private';";

/**
 * How many times OpenSearch itself runs an update again when the document changed between its read
 * and its write (another writer of the same page); past that the item answers 409 and is sent again.
 */
export const retriesOnConflict = 3;

const bookFieldNames = ['userId', 'visibility', 'status', 'language'] as const;

/** The document of one page: what putPageScript takes its parts from (its params). */
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
    textRev: revisionOf(page.pageRev, 'pageRev'),
    bookRev: revisionOf(page.rev, 'rev'),
  };
}

export const pageId = (bookTextId: string, pageNumber: number) => `${bookTextId}:${pageNumber}`;

const term = (field: string, value: string | number) => ({ term: { [field]: { value } } });

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

/** The document of a listing entry (checked and made well-formed by lib/search/rules.ts `listingBook`). */
export function bookDocument(book: IndexedBook) {
  const entry = listingBook(book);
  return {
    bookTextId: entry.bookTextId,
    userId: entry.userId,
    visibility: entry.visibility,
    status: entry.status,
    language: entry.language,
    tags: entry.tags,
    categories: entry.categories,
    byDate: entry.byDate,
    byName: entry.byName,
    byPages: entry.byPages,
    rev: entry.rev ?? 0, // listingBook sets it
  };
}

/** A `_bulk` update's two NDJSON lines: the id in the action, never in the URL; the script builds a missing document from `{}`. */
function updateLines(id: string, source: string, params: object): string {
  const action = { update: { _id: id, retry_on_conflict: retriesOnConflict } };
  return `${JSON.stringify(action)}\n${JSON.stringify({ script: { lang: 'painless', source, params }, scripted_upsert: true, upsert: {} })}\n`;
}

/** A listing entry's two NDJSON lines in a `_bulk` body (putBookScript). */
export function bookBulkLines(book: IndexedBook): string {
  const document = bookDocument(book);
  return updateLines(document.bookTextId, putBookScript, { entry: document });
}

/**
 * The `_search` body of a listing query (lib/search/rules.ts `listingQuery`: checked, strings
 * well-formed), or null when no book can match it (no request is sent). Filters only: a bool of
 * `term`s and `terms`, nothing scored.
 */
export function listBooksBody(query: BookListQuery) {
  const q: ListingQuery | null = listingQuery(query);
  if (!q) return null;
  // An empty owner owns no book: the view is the public books (a term's value is never empty).
  const filter: object[] = viewFilter(q.view.kind === 'publicAndOwn' && q.view.ownerId === '' ? { kind: 'public' } : q.view);
  if (q.status !== undefined) filter.push(term('status', q.status));
  if (q.language !== undefined) filter.push(term('language', q.language));
  if (q.tags.length > 0) filter.push({ terms: { tags: q.tags } });
  if (q.categories.length > 0) filter.push({ terms: { categories: q.categories } });
  return {
    query: { bool: { filter } },
    track_total_hits: true,
    from: q.offset,
    size: q.limit,
    sort: [{ [q.sortKey]: { order: q.descending ? 'desc' : 'asc' } }],
    _source: ['bookTextId'],
  };
}

/**
 * The score of a phrase hit of `phraseFirst`: a `should` clause, `constant_score` (its score is its
 * boost, whatever the phrase's frequency), added to the `must`'s BM25 score. It must exceed any BM25
 * score of the `must`, so that every phrase hit ranks before every other page: Lucene's BM25 gives a
 * term less than its idf (idf · f / (f + k1 · norm)), an idf is at most ln(1 + (N − 0.5) / 1.5) < 21.1
 * for a shard's N of at most 2^31 documents, and a `must` holds at most 32 terms (a phrase's weight
 * is the sum of its terms' idf): under 675. Within the phrase hits the order is still the `must`'s
 * BM25. Lucene adds the two as float32: from 1,000 its step is 6e-5 to 1.2e-4, so phrase hits whose
 * BM25 scores differ by less than that tie (and go by bookTextId and pageNumber).
 */
export const phraseFirstBoost = 1_000;

/**
 * The boosts of a forgiving query's ranking groups (engine.ts `forgiving`). The query's `must` is a
 * `dis_max` of one `bool` per group (`tie_breaker` 0: a page scores the highest of the groups it is
 * in), each the group's boost (a `constant_score`) and its BM25: the typed terms' `match` for the
 * phrase, near-phrase and typed-words groups, each word's `match` (its alternatives, `or`) for the
 * every-word group and for the rest (whose `bool` is those `match`es alone). The words' `bool`, with
 * `minimum_should_match` the words a page must hold, is a `filter`: it matches, it does not score. A
 * group's BM25 sums the scores of the terms a page holds: at most maxQueryTerms (32) words of
 * maxAlternatives (7) distinct alternatives each, 224 terms (a term that is an alternative of two
 * words counts twice), each scoring less than its idf, under 21.1 (phraseFirstBoost): under 4,727. So
 * each boost exceeds the next by more than that: a page ranks by the first group it is in, by at least
 * 273, and within it by the group's BM25. The boosts are exact
 * in float32 (integers below 2^24); the highest score is under 24,727, where float32's step is 2^-9
 * (0.002; 2^-10 under 16,384, ...): pages of one group whose BM25 scores differ by less than that tie,
 * and go by bookTextId and pageNumber.
 *
 * The largest forgiving query rules.ts allows stays under Lucene's limit of 1,024 clauses
 * (`indices.query.bool.max_clause_count`, which Lucene 9 counts over the whole rewritten query, one
 * per term query and one per phrase query, whatever its terms: PhraseQuery.visit consumes its terms
 * once, and one per `match_all`): the filters 4 (two of the view, the book, the language) and the
 * words 224; the phrase group 1 + 32, the near phrases maxNearPhrases (48) + 32, the typed words
 * 1 + 32, every word 1 + 224, the rest 224: 823.
 */
export const forgivingBoosts = { everyWord: 5_000, typed: 10_000, nearPhrase: 15_000, phrase: 20_000 } as const;

/**
 * The `_search` body of a query (validated first: out-of-contract values throw a RangeError), or
 * null when no page can match it: a term that is not an index term is in no page
 * (lib/search/rules.ts `matchableTerms`), so it is never sent, and the answer is known. With
 * `phraseFirst`, a `should` ranks its phrase hits first (phraseFirstBoost); a `bool` with a `must`
 * needs no `should` to match (minimum_should_match is 0 then), so hits and totals are the `must`'s.
 * A forgiving query (forgivingQuery) has a `filter` and a `must` of its own.
 */
export function searchBody(query: PageQuery) {
  const { mode, field, terms, limit, offset } = query;
  if (field !== 'exact' && field !== 'stemmed') throw new RangeError('Unknown search field');
  if (mode !== 'phrase' && mode !== 'all' && mode !== 'any') throw new RangeError('Unknown match mode');
  if (!Array.isArray(terms) || terms.length > maxQueryTerms) throw new RangeError(`A query has at most ${maxQueryTerms} terms`);
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) throw new RangeError(`limit is 1 to ${maxLimit}`);
  if (!Number.isInteger(offset) || offset < 0 || offset > maxOffset) throw new RangeError(`offset is 0 to ${maxOffset}`);
  const phrase = phraseFirstTerms(query);
  const forgiving = forgivingTerms(query);
  const filter = viewFilter(query.view);
  let clauses: { must: object; should: object[]; filter?: object } | null;
  if (forgiving) {
    clauses = forgivingQuery(terms, forgiving, phrase);
  } else {
    const kept = matchableTerms(query);
    clauses = kept && plainQuery(mode, field, kept, phrase);
  }
  if (!clauses) return null;
  if (query.bookTextId !== undefined) filter.push(term('bookTextId', checkString(query.bookTextId, 'bookTextId')));
  if (query.language !== undefined) filter.push(term('language', checkString(query.language, 'language')));
  if (clauses.filter) filter.push(clauses.filter);
  const should = clauses.should.length > 0 ? { should: clauses.should } : {};
  return {
    query: { bool: { filter, must: [clauses.must], ...should } },
    track_total_hits: true,
    from: offset,
    size: limit,
    sort: [{ _score: { order: 'desc' } }, { bookTextId: { order: 'asc' } }, { pageNumber: { order: 'asc' } }],
    _source: ['bookTextId', 'pageNumber'],
  };
}

/** A `should` scoring `boost` for each page `filter` matches. */
const constantScore = (filter: object, boost: number) => ({ constant_score: { filter, boost } });
const matchAll = { match_all: {} };
const phraseOn = (field: 'exact' | 'stemmed', phrase: readonly string[]) => ({ match_phrase: { [field]: { query: phrase.join(' ') } } });

/** The `must` of `mode` on the terms kept, and phraseFirst's `should`. */
function plainQuery(mode: PageQuery['mode'], field: PageQuery['field'], kept: string[], phrase: string[] | null) {
  for (const t of [...kept, ...(phrase ?? [])]) checkTerm(t, 64);
  const text = kept.join(' ');
  const must = mode === 'phrase' ? phraseOn(field, kept) : { match: { [field]: { query: text, operator: mode === 'all' ? 'and' : 'or' } } };
  return { must, should: phrase ? [constantScore(phraseOn('exact', phrase), phraseFirstBoost)] : [] };
}

/**
 * A forgiving query's `filter` (the words a page must hold) and `must` (its ranking groups,
 * forgivingBoosts), or null when no page can hold `minimumWords` of its words: its terms as
 * lib/search/rules.ts `forgivingTerms` kept them (a word of no alternative left is held by no page, so
 * it is left out, and no page holds every word). The groups no page can be in are left out: near phrases when there are none, the typed terms
 * when one is no index term, every word when a word is held by no page.
 */
function forgivingQuery(typed: string[], forgiving: { words: string[][]; minimumWords: number; nearPhrases: string[][] }, phrase: string[] | null) {
  const words = forgiving.words.filter((alternatives) => alternatives.length > 0);
  if (words.length < forgiving.minimumWords) return null;
  const typedTerms = matchableTerms({ mode: 'all', terms: typed });
  // The typed terms a page can hold (its word's first alternative each), which the first three groups score.
  const typedScored = [...new Set(typed)].filter((t) => words.some((alternatives) => alternatives.includes(t)));
  for (const t of [...words.flat(), ...forgiving.nearPhrases.flat(), ...(typedTerms ?? []), ...(phrase ?? [])]) checkTerm(t, 64);
  const held = (alternatives: readonly string[]) => ({ match: { stemmed: { query: alternatives.join(' '), operator: 'or' } } });
  const typedBm25 = typedScored.length > 0 ? { should: [{ match: { stemmed: { query: typedScored.join(' '), operator: 'or' } } }] } : {};
  /** A group: its boost for the pages `filter` matches, and its BM25. */
  const group = (filter: object, boost: number, bm25: { must?: object[]; should?: object[] }) => ({
    bool: { must: [constantScore(filter, boost), ...(bm25.must ?? [])], ...(bm25.should ? { should: bm25.should } : {}) },
  });
  const groups: object[] = [];
  if (phrase) groups.push(group(phraseOn('exact', phrase), forgivingBoosts.phrase, typedBm25));
  if (forgiving.nearPhrases.length > 0) {
    const near = { bool: { should: forgiving.nearPhrases.map((p) => phraseOn('exact', p)), minimum_should_match: 1 } };
    groups.push(group(near, forgivingBoosts.nearPhrase, typedBm25));
  }
  if (typedTerms) groups.push(group(matchAll, forgivingBoosts.typed, { must: [{ match: { stemmed: { query: typedTerms.join(' '), operator: 'and' } } }] }));
  if (words.length === forgiving.words.length) groups.push(group(matchAll, forgivingBoosts.everyWord, { must: words.map(held) }));
  groups.push({ bool: { should: words.map(held), minimum_should_match: 1 } });
  const filter = { bool: { should: words.map(held), minimum_should_match: forgiving.minimumWords } };
  return { filter, must: { dis_max: { queries: groups, tie_breaker: 0 } }, should: [] };
}

/**
 * The `_update_by_query` body of setBookFields: the book's pages it must change, set by the constant
 * script. Selected are the pages whose `bookRev` is not higher than `fields.rev`, but for those already
 * at `fields.rev` with these very fields: two `must_not`s. A page with an older `bookRev` is selected
 * even if its fields are these: it must take the new revision, or a stale put at a revision between
 * the two (the stream's indexer, late) would later find its fields older than itself and replace them.
 * A page written before revisions has no `bookRev`, which neither clause matches (a range or a term
 * matches no missing field): it is selected, as a revision of 0 is, and leaves with one. So each run
 * touches only what is left to do, and a rerun (conflicts, see the module's comment) converges.
 */
export function setBookFieldsBody(bookTextId: string, fields: IndexedBookFields) {
  checkString(bookTextId, 'bookTextId');
  const params = {} as Record<(typeof bookFieldNames)[number], string>;
  for (const name of bookFieldNames) params[name] = checkString(fields[name], name);
  if (params.visibility !== 'public' && params.visibility !== 'private') throw new RangeError('visibility is public or private');
  const rev = revisionOf(fields.rev, 'rev');
  return {
    query: {
      bool: {
        filter: [term('bookTextId', bookTextId)],
        must_not: [{ range: { bookRev: { gt: rev } } }, { bool: { filter: [term('bookRev', rev), ...bookFieldNames.map((name) => term(name, params[name]))] } }],
      },
    },
    script: { lang: 'painless', source: setBookFieldsScript, params: { ...params, bookRev: rev } },
  };
}

/**
 * The `_update_by_query` body of hideBook, the same on both indexes: the book's public documents (a
 * page's or its listing entry's `bookTextId`, never an id in the URL), made private by the constant
 * script, which takes no param.
 */
export function hideBookBody(bookTextId: string) {
  return {
    query: { bool: { filter: [term('bookTextId', checkString(bookTextId, 'bookTextId')), term('visibility', 'public')] } },
    script: { lang: 'painless', source: hideBookScript },
  };
}

/** The `_delete_by_query` body of removeBook. */
export function removeBookBody(bookTextId: string) {
  return { query: { bool: { filter: [term('bookTextId', checkString(bookTextId, 'bookTextId'))] } } };
}

/** A page's two NDJSON lines in a `_bulk` body (putPageScript). */
export function bulkLines(page: IndexedPage): string {
  checkString(page.bookTextId, 'bookTextId');
  if (!Number.isInteger(page.pageNumber) || page.pageNumber < 0 || page.pageNumber > 2 ** 31 - 1) throw new RangeError('pageNumber is a non-negative 32-bit integer');
  for (const name of bookFieldNames) checkString(page[name], name);
  if (page.visibility !== 'public' && page.visibility !== 'private') throw new RangeError('visibility is public or private');
  return updateLines(pageId(page.bookTextId, page.pageNumber), putPageScript, pageDocument(page));
}

/** Bulk bodies of at most maxBytes each (a page larger than that goes alone). */
export function bulkBodies(pages: IndexedPage[], maxBytes: number): { body: string; pages: IndexedPage[] }[] {
  return batchesOf(pages, bulkLines, maxBytes).map(({ body, items }) => ({ body, pages: items }));
}

/** Items' NDJSON lines in bodies of at most maxBytes each (an item larger than that goes alone). */
function batchesOf<T>(items: readonly T[], linesOf: (item: T) => string, maxBytes: number): { body: string; items: T[] }[] {
  const batches: { body: string; items: T[] }[] = [];
  let body = '';
  let bytes = 0;
  let batch: T[] = [];
  for (const item of items) {
    const lines = linesOf(item);
    const size = Buffer.byteLength(lines);
    if (batch.length > 0 && bytes + size > maxBytes) {
      batches.push({ body, items: batch });
      body = '';
      bytes = 0;
      batch = [];
    }
    body += lines;
    bytes += size;
    batch.push(item);
  }
  if (batch.length > 0) batches.push({ body, items: batch });
  return batches;
}

/**
 * A filed term's two NDJSON lines in a `_bulk` body: a `create` (a term filed already answers 409,
 * and is left as it is), its id the term, its document the term and its keys.
 */
export function termBulkLines(term: string): string {
  if (!isFiled(term)) throw new RangeError('Only a filed term (ocr-variants.ts isFiled) is filed');
  checkTerm(term, 64);
  return `${JSON.stringify({ create: { _id: term } })}\n${JSON.stringify({ term, keys: variantKeys(term) })}\n`;
}

/**
 * The `_search` body of similarTerms (its keys checked by lib/search/rules.ts `similarKeys`), or null
 * when no key can be one a term is filed under (no request is sent): filters only, the terms in their
 * keyword order (UTF-8 bytes), at most maxSimilarTerms. No total: none is needed.
 */
export function similarTermsBody(keys: readonly string[]) {
  const wanted = similarKeys(keys);
  if (wanted.length === 0) return null;
  return {
    query: { bool: { filter: [{ terms: { keys: wanted } }] } },
    size: maxSimilarTerms,
    sort: [{ term: { order: 'asc' } }],
    _source: ['term'],
  };
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
/** Bulk updates sent again: turned away for load, or still conflicting with another writer of the document. */
const sentAgain = new Set([409, 429]);
/** Bulk creates sent again: turned away for load (a 409 is a document there already). */
const sentAgainCreate = new Set([429]);
const isRetryable = (error: unknown) =>
  (error instanceof OpenSearchError && throttled.has(error.status)) || (error instanceof TypeError && error.message === 'fetch failed');

type Json = Record<string, unknown>;

export function openSearchEngine(options: OpenSearchEngineOptions): OpenSearchEngine {
  const { index, region, refreshOnPut = false, maxBulkBytes = 5 * 1024 * 1024, replicas = 0, timeoutMs = 10_000, clock } = options;
  const booksIndex = booksIndexOf(index);
  const termsIndex = termsIndexOf(index);
  if (!indexName.test(index) || index === '.' || index === '..' || !indexName.test(booksIndex) || !indexName.test(termsIndex)) {
    throw new RangeError('Not an OpenSearch index name');
  }
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
  const booksPath = `/${booksIndex}`;
  const termsPath = `/${termsIndex}`;

  let indexExists = false;
  /**
   * Creates one index unless it exists (another container may be creating it meanwhile). An index
   * that existed, or that another creator made (perhaps an older version of this code, mid-deploy),
   * is given the fields mapped since (`update`, pageMappingUpdate): a no-op on an index that has
   * them. An index that has gained no field since it was first made has no `update`.
   */
  const create = async (path: string, definition: object, update?: object): Promise<void> => {
    const { status } = await request('HEAD', path, {});
    if (status !== 200) {
      const created = await request('PUT', path, {}, JSON.stringify(definition)).then(
        () => true,
        (error: unknown) => {
          if (!(error instanceof OpenSearchError && error.type === 'resource_already_exists_exception')) throw error;
          return false;
        },
      );
      if (created) return;
    }
    if (update) await request('PUT', `${path}/_mapping`, {}, JSON.stringify(update));
  };
  const ensureIndex = async (): Promise<void> => {
    await create(indexPath, { settings: pageIndexSettings(replicas), mappings: pageIndexMapping }, pageMappingUpdate);
    await create(booksPath, { settings: bookIndexSettings(replicas), mappings: bookIndexMapping }, bookMappingUpdate);
    await create(termsPath, { settings: termIndexSettings(replicas), mappings: termIndexMapping });
    indexExists = true;
  };
  // Before any other call, once: a `_bulk` into a missing index would create one with dynamic
  // mappings (the standard analyzer), and a search of a missing index fails.
  const ensureOnce = onceAsync(ensureIndex);
  const ensured = async () => {
    if (!indexExists) await ensureOnce();
  };

  /** Runs a by-query call until no version conflict is left (see the module's comment). */
  async function byQuery(kind: '_update_by_query' | '_delete_by_query', body: object, path = indexPath): Promise<void> {
    const payload = JSON.stringify(body);
    await ensured();
    await retry(
      async () => {
        const { json } = await request('POST', `${path}/${kind}`, { conflicts: 'proceed', refresh: 'true' }, payload);
        const failures = Array.isArray(json.failures) ? json.failures : [];
        if (failures.length > 0 || json.timed_out === true) {
          // Answered 200, yet pages failed: the first failure's status (or 500), and the failures' types.
          const status = (failures[0] as Json | undefined)?.status;
          const types = failures.length > 0 ? errorTypes(failures).join(', ') : 'timed_out';
          throw new OpenSearchError(typeof status === 'number' ? status : 500, types, `POST ${path}/${kind}`);
        }
        return typeof json.version_conflicts === 'number' ? json.version_conflicts : 0;
      },
      { ...policies.contention, attempts: 5, until: (conflicts: number) => conflicts === 0, gaveUp: `Pages of the book kept changing during ${kind}` },
      clock,
    );
  }

  /**
   * One `_bulk` request of `update` actions (or `create`s, which write a document only where none is:
   * one there answers 409, version_conflict_engine_exception, a success here). Items OpenSearch turned
   * away for load (429), and updates that kept conflicting with another writer (409, after
   * retriesOnConflict), are sent again, each update's script running on the document as it is then;
   * any other failure is thrown. `linesOf` makes an item's two lines again for a resend.
   */
  async function bulk<T>(path: string, batch: T[], body: string, linesOf: (item: T) => string, what = 'pages', action: 'update' | 'create' = 'update'): Promise<void> {
    const query: Record<string, string> = refreshOnPut ? { refresh: refreshOnPut } : {};
    const again = action === 'create' ? sentAgainCreate : sentAgain;
    const there = (r: Json) => action === 'create' && r.status === 409 && (r.error as Json | undefined)?.type === 'version_conflict_engine_exception';
    let pending = { items: batch, body, types: [] as string[] };
    await retry(
      async () => {
        const { json } = await request('POST', `${path}/_bulk`, query, pending.body, 'application/x-ndjson');
        if (json.errors !== true) return [];
        const answered = Array.isArray(json.items) ? (json.items as Json[]) : [];
        if (answered.length !== pending.items.length) throw new OpenSearchBulkError(pending.items.length, pending.items.length, ['unreadable answer'], what);
        // A `noop` (the script kept what was held: a newer revision) is a success, and so is a `create` of a document there.
        const results = answered.map((item) => (item[action] ?? {}) as Json);
        const failed = results.filter((r) => (typeof r.status !== 'number' || r.status >= 300 || r.error !== undefined) && !there(r));
        const permanent = failed.filter((r) => !again.has(r.status as number));
        const types = errorTypes(failed.map((r) => ({ error: r.error })));
        if (permanent.length > 0) throw new OpenSearchBulkError(failed.length, pending.items.length, types, what);
        const left = pending.items.filter((_, i) => failed.includes(results[i]!));
        pending = { items: left, body: left.map(linesOf).join(''), types };
        return left;
      },
      {
        ...policies.unprocessedItems,
        until: (left: T[]) => left.length === 0,
        gaveUp: `OpenSearch kept turning ${what} away (429: load, 409: conflicts)`,
      },
      clock,
    ).catch((error: unknown) => {
      if (error instanceof Error && error.name === 'RetriesExhausted') {
        throw new OpenSearchBulkError(pending.items.length, batch.length, pending.types, what);
      }
      throw error;
    });
  }

  /**
   * Terms this engine has filed (or found filed): each is sent once (see the module's comment), until
   * more than maxRememberedTerms are remembered and all are forgotten.
   */
  const filed = new Set<string>();
  /** The distinct filed terms of pages this engine has not filed yet, in the order they come. */
  const unfiled = (pages: readonly IndexedPage[]): string[] => {
    const terms = new Set<string>();
    for (const page of pages) for (const t of page.exact) if (!filed.has(t) && isFiled(t)) terms.add(t);
    return [...terms];
  };
  /** Files terms, batch after batch, each remembered once OpenSearch holds it. */
  const fileTerms = async (terms: readonly string[]): Promise<void> => {
    for (const { body, items } of batchesOf(terms, termBulkLines, maxBulkBytes)) {
      await bulk(termsPath, items, body, termBulkLines, 'terms', 'create');
      if (filed.size + items.length > maxRememberedTerms) filed.clear();
      for (const t of items) filed.add(t);
    }
  };

  /**
   * A `_search` answer's total (exact) and hits' sources; undefined when the index does not exist yet.
   * `counted`: the body asked for the exact total (`track_total_hits`); else the total is not read.
   */
  async function searchIndex(path: string, body: string, counted = true): Promise<{ total: number; sources: Json[] } | undefined> {
    // No ensureIndex here: search-api may not create an index (infra/permissions.ts). Before the
    // indexer's first write there is no index, and nothing to find.
    const answer = await request('POST', `${path}/_search`, {}, body).catch((error: unknown) => {
      if (error instanceof OpenSearchError && error.type === 'index_not_found_exception') return undefined;
      throw error;
    });
    if (!answer) return undefined;
    const hits = answer.json.hits as { total?: { value?: unknown; relation?: unknown }; hits?: { _source?: Json }[] } | undefined;
    const total = hits?.total;
    if ((counted && (typeof total?.value !== 'number' || total.relation !== 'eq')) || !Array.isArray(hits?.hits)) {
      throw new OpenSearchError(500, 'unexpected_answer', `POST ${path}/_search`);
    }
    return { total: typeof total?.value === 'number' ? total.value : 0, sources: hits.hits.map((hit) => hit._source ?? {}) };
  }

  return {
    ensureIndex,

    async putPages(pages) {
      checkIndexedPages(pages); // the rules every engine applies (index terms only), before sending any
      const batches = bulkBodies(pages, maxBulkBytes); // and what this one needs
      if (batches.length === 0) return;
      const terms = unfiled(pages);
      await ensured();
      // The pages and their new terms side by side: each refreshOnPut waits for its own index's refresh.
      const [written, termsFiled] = await Promise.allSettled([
        (async () => {
          for (const { body, pages: batch } of batches) await bulk(indexPath, batch, body, bulkLines);
        })(),
        fileTerms(terms),
      ]);
      if (written.status === 'rejected') throw written.reason;
      if (termsFiled.status === 'rejected') throw termsFiled.reason;
    },

    async setBookFields(bookTextId, fields) {
      await byQuery('_update_by_query', setBookFieldsBody(bookTextId, fields)); // async: a bad argument rejects, not throws
    },

    async hideBook(bookTextId) {
      const body = hideBookBody(bookTextId);
      await byQuery('_update_by_query', body);
      await byQuery('_update_by_query', body, booksPath);
    },

    async removeBook(bookTextId) {
      const body = removeBookBody(bookTextId);
      await byQuery('_delete_by_query', body);
      await byQuery('_delete_by_query', body, booksPath);
    },

    async putBook(book) {
      const lines = bookBulkLines(book); // checks the entry before sending anything
      await ensured();
      await bulk(booksPath, [book], lines, bookBulkLines, 'listing entries');
    },

    async listBooks(query) {
      const body = listBooksBody(query);
      if (!body) return { total: 0, bookTextIds: [] };
      const found = await searchIndex(booksPath, JSON.stringify(body));
      if (!found) return { total: 0, bookTextIds: [] };
      return {
        total: found.total,
        bookTextIds: found.sources.map((source) => {
          if (typeof source.bookTextId !== 'string') throw new OpenSearchError(500, 'unexpected_answer', `POST ${booksPath}/_search`);
          return source.bookTextId;
        }),
      };
    },

    async similarTerms(keys) {
      const body = similarTermsBody(keys);
      if (!body) return [];
      const found = await searchIndex(termsPath, JSON.stringify(body), false);
      if (!found) return [];
      return found.sources.map((source) => {
        if (typeof source.term !== 'string') throw new OpenSearchError(500, 'unexpected_answer', `POST ${termsPath}/_search`);
        return source.term;
      });
    },

    async search(query) {
      const body = searchBody(query);
      if (!body) return { total: 0, hits: [] };
      const found = await searchIndex(indexPath, JSON.stringify(body));
      if (!found) return { total: 0, hits: [] };
      return {
        total: found.total,
        hits: found.sources.map((source): PageHit => {
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
