import { describe, expect, it } from 'vitest';
import {
  bookIndexMapping,
  bookIndexSettings,
  bookMappingUpdate,
  forgivingBoosts,
  hideBookScript,
  maxResultWindow,
  OpenSearchBulkError,
  OpenSearchError,
  pageIndexMapping,
  pageIndexSettings,
  pageMappingUpdate,
  phraseFirstBoost,
  putBookScript,
  putPageScript,
  searchBody,
  setBookFieldsScript,
  termIndexMapping,
  termIndexSettings,
} from '../../lib/adapters/opensearch/search-engine.ts';
import type { BookListQuery, IndexedBookFields, IndexedPage, PageQuery, SearchEngine } from '../../lib/search/engine.ts';
import { variantKeys } from '../../lib/search/ocr-variants.ts';
import { maxAlternatives, maxNearPhrases, maxQueryTerms, maxSimilarTerms } from '../../lib/search/rules.ts';
import { fakeDomain, luceneLength, openSearchOverFake, type RecordedRequest } from '../support/fake-opensearch.ts';
import { list as everyBook, listedBook } from '../support/listing-contract.ts';
import { describeSearchEngine } from '../support/search-engine-contract.ts';

const book = (bookTextId: string, fields: Partial<IndexedBookFields> = {}): IndexedBookFields & { bookTextId: string } => ({
  bookTextId,
  userId: 'user-1',
  visibility: 'public',
  status: 'completed',
  language: 'en',
  ...fields,
});

/** A page of a book; its stemmed terms are the exact ones unless given. */
const page = (b: IndexedBookFields & { bookTextId: string }, pageNumber: number, exact: string, stemmed?: string): IndexedPage => ({
  ...b,
  pageNumber,
  exact: exact.split(' ').filter(Boolean),
  stemmed: (stemmed ?? exact).split(' ').filter(Boolean),
});

const query = (q: Partial<PageQuery> & Pick<PageQuery, 'terms'>): PageQuery => ({
  mode: 'all',
  field: 'stemmed',
  view: { kind: 'all' },
  limit: 10,
  offset: 0,
  ...q,
});

const ids = (result: { hits: { bookTextId: string; pageNumber: number }[] }) => result.hits.map((h) => `${h.bookTextId}:${h.pageNumber}`);
const requestsTo = (requests: RecordedRequest[], action: string) => requests.filter((r) => r.path === `/pages/${action}`);
const lastBody = (requests: RecordedRequest[], action: string): unknown => JSON.parse(requestsTo(requests, action).at(-1)!.body);
const sort = [{ _score: { order: 'desc' } }, { bookTextId: { order: 'asc' } }, { pageNumber: { order: 'asc' } }];

describe('OpenSearch search engine: requests', () => {
  it('creates the index once, with the mapping and settings, before its first write', async () => {
    const engine = openSearchOverFake();
    await engine.putPages([page(book('b1'), 1, 'x')]);
    await engine.search(query({ terms: ['x'] }));
    const [head, put, headBooks, putBooks, headTerms, putTerms, ...rest] = engine.fake.requests;
    expect([head!.method, head!.path, put!.method, put!.path]).toEqual(['HEAD', '/pages', 'PUT', '/pages']);
    expect([headBooks!.method, headBooks!.path, putBooks!.method, putBooks!.path]).toEqual(['HEAD', '/pages-books', 'PUT', '/pages-books']);
    expect([headTerms!.method, headTerms!.path, putTerms!.method, putTerms!.path]).toEqual(['HEAD', '/pages-terms', 'PUT', '/pages-terms']);
    // `x` is no filed term (three to 24 characters): no terms to file.
    expect(rest.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /pages/_bulk', 'POST /pages/_search']);
    expect(JSON.parse(put!.body)).toEqual({
      settings: {
        index: {
          number_of_shards: 1,
          number_of_replicas: 0,
          refresh_interval: '1s',
          max_result_window: 10_100,
          similarity: { page_bm25: { type: 'BM25', k1: 1.2, b: 0.75 } },
        },
      },
      mappings: {
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
          textRev: { type: 'long' },
          bookRev: { type: 'long' },
        },
      },
    });
    expect(JSON.parse(put!.body)).toEqual({ settings: pageIndexSettings(), mappings: pageIndexMapping });
    expect(engine.fake.indexDefinition('pages')).toEqual({ settings: pageIndexSettings(), mappings: pageIndexMapping });
    // The listing's index: keywords (tags and categories as arrays of them) and the rev, no similarity.
    expect(JSON.parse(putBooks!.body)).toEqual({
      settings: { index: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '1s', max_result_window: 10_100 } },
      mappings: {
        dynamic: 'strict',
        properties: {
          ...Object.fromEntries(
            ['bookTextId', 'userId', 'visibility', 'status', 'language', 'tags', 'categories', 'byDate', 'byName', 'byPages'].map((f) => [f, { type: 'keyword' }]),
          ),
          rev: { type: 'long' },
        },
      },
    });
    expect(engine.fake.indexDefinition('pages-books')).toEqual({ settings: bookIndexSettings(), mappings: bookIndexMapping });
    // The filed terms' index: the term and its keys, keywords; the default result window (10,000).
    expect(JSON.parse(putTerms!.body)).toEqual({
      settings: { index: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '1s' } },
      mappings: { dynamic: 'strict', properties: { term: { type: 'keyword' }, keys: { type: 'keyword' } } },
    });
    expect(engine.fake.indexDefinition('pages-terms')).toEqual({ settings: termIndexSettings(), mappings: termIndexMapping });
  });

  it('searches without creating the index (search-api may not), finding nothing before the first write', async () => {
    const engine = openSearchOverFake();
    expect(await engine.search(query({ terms: ['x'] }))).toEqual({ total: 0, hits: [] });
    expect(engine.fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /pages/_search']);
    expect(engine.fake.indexDefinition('pages')).toBeUndefined();
  });

  it('ensureIndex is idempotent, and a racing creator is no failure', async () => {
    const engine = openSearchOverFake({ replicas: 1 });
    await engine.ensureIndex();
    await engine.ensureIndex();
    // An index that exists is given the fields mapped since (none new here: the same mapping again).
    // The filed terms' index has gained no field since it was made: nothing to add.
    expect(engine.fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'HEAD /pages',
      'PUT /pages',
      'HEAD /pages-books',
      'PUT /pages-books',
      'HEAD /pages-terms',
      'PUT /pages-terms',
      'HEAD /pages',
      'PUT /pages/_mapping',
      'HEAD /pages-books',
      'PUT /pages-books/_mapping',
      'HEAD /pages-terms',
    ]);
    expect(JSON.parse(engine.fake.requests[1]!.body).settings.index.number_of_replicas).toBe(1);
    expect(JSON.parse(engine.fake.requests[3]!.body).settings.index.number_of_replicas).toBe(1);
    expect(JSON.parse(engine.fake.requests[5]!.body).settings.index.number_of_replicas).toBe(1);
    expect(engine.fake.indexDefinition('pages')).toEqual({ settings: pageIndexSettings(1), mappings: pageIndexMapping });

    // Another container creates the index between this one's HEAD (missing) and its PUT: perhaps an
    // older version of the code, so its mapping is completed as an existing index's is.
    const second = openSearchOverFake({ fetch: engine.fake.fetch });
    engine.fake.failNext({ status: 404, type: 'index_not_found_exception' });
    await expect(second.ensureIndex()).resolves.toBeUndefined();
    expect(engine.fake.requests.slice(-6).map((r) => `${r.method} ${r.path}`)).toEqual([
      'HEAD /pages',
      'PUT /pages',
      'PUT /pages/_mapping',
      'HEAD /pages-books',
      'PUT /pages-books/_mapping',
      'HEAD /pages-terms',
    ]);
    // The same race on the filed terms' index: made by another between this one's HEAD and PUT, it is left as it is.
    let raced = false;
    const racing = openSearchOverFake({
      fetch: async (url, init) => {
        if (raced || init?.method !== 'HEAD' || new URL(String(url)).pathname !== '/pages-terms') return engine.fake.fetch(url, init);
        raced = true;
        return new Response(null, { status: 404 });
      },
    });
    const before = engine.fake.requests.length;
    await expect(racing.ensureIndex()).resolves.toBeUndefined();
    expect(engine.fake.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      'HEAD /pages',
      'PUT /pages/_mapping',
      'HEAD /pages-books',
      'PUT /pages-books/_mapping',
      'PUT /pages-terms',
    ]);
    expect(engine.fake.indexDefinition('pages-terms')).toEqual({ settings: termIndexSettings(1), mappings: termIndexMapping });

    // A domain whose pages index predates the listing: the listing's index is created beside it.
    const older = openSearchOverFake();
    expect((await older.fake.rawSigned('PUT', '/pages', JSON.stringify({ settings: pageIndexSettings(), mappings: pageIndexMapping }))).status).toBe(200);
    await openSearchOverFake({ fetch: older.fake.fetch }).ensureIndex();
    expect(older.fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PUT /pages',
      'HEAD /pages',
      'PUT /pages/_mapping',
      'HEAD /pages-books',
      'PUT /pages-books',
      'HEAD /pages-terms',
      'PUT /pages-terms',
    ]);
  });

  it('adds the revision fields to indexes made before them (PUT _mapping); their documents count as revision 0', async () => {
    // Indexes as the first deployments made them: no revision fields, and a strict mapping refuses one.
    const without = <M extends { properties: object }>(mapping: M, added: { properties: object }) => ({
      ...mapping,
      properties: Object.fromEntries(Object.entries(mapping.properties).filter(([field]) => !(field in added.properties))),
    });
    const old = openSearchOverFake();
    const put = (path: string, definition: object) => old.fake.rawSigned('PUT', path, JSON.stringify(definition));
    expect((await put('/pages', { settings: pageIndexSettings(), mappings: without(pageIndexMapping, pageMappingUpdate) })).status).toBe(200);
    expect((await put('/pages-books', { settings: bookIndexSettings(), mappings: without(bookIndexMapping, bookMappingUpdate) })).status).toBe(200);
    const legacyPage = { ...book('bt-1'), pageNumber: 1, exact: 'old words', stemmed: 'old words' };
    const legacyEntry = { ...book('bt-1'), tags: ['old'], categories: [], byDate: 'd#bt-1', byName: 'n#bt-1', byPages: 'p#bt-1' };
    const bulk = async (index: string, id: string, doc: object) =>
      ((await (await old.fake.rawSigned('POST', `/${index}/_bulk`, `{"index":{"_id":"${id}"}}\n${JSON.stringify(doc)}\n`, 'application/x-ndjson')).json()) as { errors: boolean }).errors;
    expect(await bulk('pages', 'bt-1:1', legacyPage)).toBe(false);
    expect(await bulk('pages-books', 'bt-1', legacyEntry)).toBe(false);
    expect(await bulk('pages', 'bt-1:2', { ...legacyPage, pageNumber: 2, textRev: 1 })).toBe(true); // strict_dynamic_mapping_exception

    const engine = openSearchOverFake({ fetch: old.fake.fetch });
    await engine.ensureIndex();
    const mappings = old.fake.requests.filter((r) => r.path.endsWith('/_mapping'));
    expect(mappings.map((r) => [r.method, r.path, JSON.parse(r.body)])).toEqual([
      ['PUT', '/pages/_mapping', { properties: { textRev: { type: 'long' }, bookRev: { type: 'long' } } }],
      ['PUT', '/pages-books/_mapping', { properties: { rev: { type: 'long' } } }],
    ]);
    expect(mappings.every((r) => r.headers['content-type'] === 'application/json' && Object.keys(r.query).length === 0)).toBe(true);
    expect(old.fake.indexDefinition('pages')!.mappings).toEqual(pageIndexMapping);
    expect(old.fake.indexDefinition('pages-books')!.mappings).toEqual(bookIndexMapping);
    // Again (another container): the same fields, no change.
    await openSearchOverFake({ fetch: old.fake.fetch }).ensureIndex();
    expect(old.fake.indexDefinition('pages')!.mappings).toEqual(pageIndexMapping);

    // Documents written before: revision 0, older than a put with one, replaced by a put without where
    // it differs (the terms here; the book fields are the same, so they and their missing bookRev stay).
    expect(old.fake.documents('pages').get('bt-1:1')).toEqual(legacyPage);
    await engine.putPages([page(book('bt-1'), 1, 'new words')]);
    expect(old.fake.documents('pages').get('bt-1:1')).toEqual({ ...legacyPage, exact: 'new words', stemmed: 'new words', textRev: 0 });
    await old.fake.rawSigned('POST', '/pages/_bulk', `{"index":{"_id":"bt-1:1"}}\n${JSON.stringify(legacyPage)}\n`, 'application/x-ndjson');
    await engine.setBookFields('bt-1', book('bt-1', { visibility: 'private', rev: 2 }));
    expect(old.fake.documents('pages').get('bt-1:1')).toEqual({ ...legacyPage, visibility: 'private', bookRev: 2 });
    await engine.putBook({ ...listedBook({ bookTextId: 'bt-1' }), rev: 0 });
    expect(old.fake.documents('pages-books').get('bt-1')).toMatchObject({ tags: listedBook({ bookTextId: 'bt-1' }).tags, rev: 0 });

    // A field mapped already cannot change type: OpenSearch refuses, and so does the fake.
    expect((await put('/pages/_mapping', { properties: { bookRev: { type: 'keyword' } } })).status).toBe(400);
    expect((await put('/pages/_mapping', { properties: { note: { type: 'keyword' }, extra: 1 } })).status).toBe(400);
  });

  it('sends the exact query body for each mode and view', async () => {
    const engine = openSearchOverFake();
    const expected = (filter: unknown[], must: unknown, from = 0, size = 10) => ({
      query: { bool: { filter, must: [must] } },
      track_total_hits: true,
      from,
      size,
      sort,
      _source: ['bookTextId', 'pageNumber'],
    });

    await engine.search(query({ mode: 'phrase', field: 'exact', terms: ['بسم', 'الله'], view: { kind: 'public' } }));
    expect(lastBody(engine.fake.requests, '_search')).toEqual(
      expected([{ term: { visibility: { value: 'public' } } }], { match_phrase: { exact: { query: 'بسم الله' } } }),
    );

    await engine.search(query({ mode: 'all', terms: ['read', 'book'], view: { kind: 'all' }, bookTextId: 'bt-1', language: 'en', limit: 100, offset: 10_000 }));
    expect(lastBody(engine.fake.requests, '_search')).toEqual(
      expected(
        [{ term: { bookTextId: { value: 'bt-1' } } }, { term: { language: { value: 'en' } } }],
        { match: { stemmed: { query: 'read book', operator: 'and' } } },
        10_000,
        100,
      ),
    );

    await engine.search(query({ mode: 'any', terms: ['read', 'book'], view: { kind: 'publicAndOwn', ownerId: 'user-7' }, limit: 5, offset: 20 }));
    expect(lastBody(engine.fake.requests, '_search')).toEqual(
      expected(
        [{ bool: { should: [{ term: { visibility: { value: 'public' } } }, { term: { userId: { value: 'user-7' } } }], minimum_should_match: 1 } }],
        { match: { stemmed: { query: 'read book', operator: 'or' } } },
        20,
        5,
      ),
    );

    // Phrase hits first: a should of a constant score, the phrase on the exact field, beside the must.
    const phraseFirst = { should: [{ constant_score: { filter: { match_phrase: { exact: { query: 'reading books' } } }, boost: phraseFirstBoost } }] };
    for (const mode of ['all', 'any'] as const) {
      await engine.search(query({ mode, terms: ['read', 'book'], phraseFirst: ['reading', 'books'], view: { kind: 'public' } }));
      expect(lastBody(engine.fake.requests, '_search')).toEqual({
        ...expected([{ term: { visibility: { value: 'public' } } }], { match: { stemmed: { query: 'read book', operator: mode === 'all' ? 'and' : 'or' } } }),
        query: {
          bool: { filter: [{ term: { visibility: { value: 'public' } } }], must: [{ match: { stemmed: { query: 'read book', operator: mode === 'all' ? 'and' : 'or' } } }], ...phraseFirst },
        },
      });
    }
    // A phrase that is on no page (a term that is no index term) is not sent.
    await engine.search(query({ terms: ['read', 'book'], phraseFirst: ['reading', 'books*'] }));
    expect(lastBody(engine.fake.requests, '_search')).toEqual(expected([], { match: { stemmed: { query: 'read book', operator: 'and' } } }));
    for (const r of requestsTo(engine.fake.requests, '_search')) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.query).toEqual({});
    }
  });

  it('writes pages as NDJSON update actions (ids bookTextId:pageNumber), the page the params of a constant script', async () => {
    const engine = openSearchOverFake();
    const b = book('bt-1', { language: 'ar' });
    await engine.putPages([{ ...page({ ...b, rev: 7 }, 1, 'كتب الولد', 'كتب ولد'), pageRev: 3 }, page(b, 2, 'one')]);
    const [bulk] = requestsTo(engine.fake.requests, '_bulk');
    expect(bulk!.headers['content-type']).toBe('application/x-ndjson');
    expect(bulk!.query).toEqual({});
    const script = JSON.stringify(putPageScript);
    expect(bulk!.body).toBe(
      '{"update":{"_id":"bt-1:1","retry_on_conflict":3}}\n' +
        `{"script":{"lang":"painless","source":${script},"params":` +
        '{"bookTextId":"bt-1","pageNumber":1,"userId":"user-1","visibility":"public","status":"completed","language":"ar","exact":"كتب الولد","stemmed":"كتب ولد","textRev":3,"bookRev":7}' +
        '},"scripted_upsert":true,"upsert":{}}\n' +
        '{"update":{"_id":"bt-1:2","retry_on_conflict":3}}\n' +
        `{"script":{"lang":"painless","source":${script},"params":` +
        '{"bookTextId":"bt-1","pageNumber":2,"userId":"user-1","visibility":"public","status":"completed","language":"ar","exact":"one","stemmed":"one","textRev":0,"bookRev":0}' +
        '},"scripted_upsert":true,"upsert":{}}\n',
    );
    // The script, word for word: the parts by their revisions (a missing one is 0), else a noop.
    expect(putPageScript).toBe(
      'def s = ctx._source; ' +
        'def heldText = s.textRev == null ? 0 : s.textRev; ' +
        'def heldBook = s.bookRev == null ? 0 : s.bookRev; ' +
        'boolean newTerms = params.textRev > heldText || (params.textRev >= heldText && !(params.exact.equals(s.exact) && params.stemmed.equals(s.stemmed))); ' +
        'boolean newFields = params.bookRev > heldBook || (params.bookRev >= heldBook && !(params.userId.equals(s.userId) && params.visibility.equals(s.visibility) && params.status.equals(s.status) && params.language.equals(s.language))); ' +
        'if (newTerms) { s.exact = params.exact; s.stemmed = params.stemmed; s.textRev = params.textRev; } ' +
        'if (newFields) { s.userId = params.userId; s.visibility = params.visibility; s.status = params.status; s.language = params.language; s.bookRev = params.bookRev; } ' +
        "if (newTerms || newFields) { s.bookTextId = params.bookTextId; s.pageNumber = params.pageNumber; } else { ctx.op = 'noop'; }",
    );
    expect(engine.fake.documents('pages').get('bt-1:1')).toEqual({
      bookTextId: 'bt-1',
      pageNumber: 1,
      userId: 'user-1',
      visibility: 'public',
      status: 'completed',
      language: 'ar',
      exact: 'كتب الولد',
      stemmed: 'كتب ولد',
      textRev: 3,
      bookRev: 7,
    });
    await engine.putPages([]);
    expect(requestsTo(engine.fake.requests, '_bulk')).toHaveLength(1);
    // Revisions out of contract are refused before anything is sent.
    for (const bad of [{ rev: -1 }, { pageRev: 1.5 }, { rev: 2 ** 53 }, { pageRev: '3' as unknown as number }]) {
      await expect(engine.putPages([{ ...page(b, 3, 'x'), ...bad }])).rejects.toThrow(RangeError);
    }
    expect(requestsTo(engine.fake.requests, '_bulk')).toHaveLength(1);
  });

  it('asks putPages to wait for the refresh when configured', async () => {
    const engine = openSearchOverFake({ refreshOnPut: 'wait_for' });
    await engine.putPages([page(book('bt-1'), 1, 'x')]);
    expect(requestsTo(engine.fake.requests, '_bulk')[0]!.query).toEqual({ refresh: 'wait_for' });
  });

  it('splits bulk bodies under the byte limit', async () => {
    const engine = openSearchOverFake({ maxBulkBytes: 3_000 });
    const b = book('bt-1');
    const pages = Array.from({ length: 12 }, (_, i) => page(b, i + 1, 'word '.repeat(30).trim()));
    pages.push(page(b, 13, 'long '.repeat(400).trim())); // alone over the limit: sent by itself
    await engine.putPages(pages);
    const bulks = requestsTo(engine.fake.requests, '_bulk');
    expect(bulks.length).toBeGreaterThan(2);
    for (const r of bulks.slice(0, -1)) expect(Buffer.byteLength(r.body)).toBeLessThanOrEqual(3_000);
    expect(bulks.at(-1)!.body.split('\n')).toHaveLength(3);
    expect(engine.fake.documents('pages').size).toBe(13);
  });

  it('sets book fields by a by-query update with a constant script and params', async () => {
    const engine = openSearchOverFake();
    await engine.putPages([page(book('bt-1'), 1, 'x')]);
    await engine.setBookFields('bt-1', { userId: 'user-1', visibility: 'private', status: 'completed', language: 'en' });
    const [update] = requestsTo(engine.fake.requests, '_update_by_query');
    expect(update!.query).toEqual({ conflicts: 'proceed', refresh: 'true' });
    const fields = { userId: 'user-1', visibility: 'private', status: 'completed', language: 'en' };
    // Not the pages of a newer revision, nor those at this one with these fields (a missing rev: 0).
    const expected = (rev: number) => ({
      query: {
        bool: {
          filter: [{ term: { bookTextId: { value: 'bt-1' } } }],
          must_not: [
            { range: { bookRev: { gt: rev } } },
            { bool: { filter: [{ term: { bookRev: { value: rev } } }, ...Object.entries(fields).map(([k, value]) => ({ term: { [k]: { value } } }))] } },
          ],
        },
      },
      script: { lang: 'painless', source: setBookFieldsScript, params: { ...fields, bookRev: rev } },
    });
    expect(JSON.parse(update!.body)).toEqual(expected(0));
    await engine.setBookFields('bt-1', { ...fields, visibility: 'private', rev: 12 });
    expect(lastBody(engine.fake.requests, '_update_by_query')).toEqual(expected(12));
    expect(setBookFieldsScript).toBe(
      'ctx._source.userId = params.userId; ctx._source.visibility = params.visibility; ctx._source.status = params.status; ctx._source.language = params.language; ctx._source.bookRev = params.bookRev;',
    );
    await expect(engine.setBookFields('bt-1', { ...fields, visibility: 'private', rev: -1 })).rejects.toThrow(RangeError);
    await engine.removeBook('bt-1');
    const [remove] = requestsTo(engine.fake.requests, '_delete_by_query');
    expect(remove!.query).toEqual({ conflicts: 'proceed', refresh: 'true' });
    expect(JSON.parse(remove!.body)).toEqual({ query: { bool: { filter: [{ term: { bookTextId: { value: 'bt-1' } } }] } } });
  });

  it('sets a newer bookRev on pages whose fields are already those: a stale put at a revision between cannot take them back', async () => {
    const engine = openSearchOverFake();
    const b = book('bt-1', { visibility: 'private' });
    await engine.putPages([page({ ...b, rev: 5 }, 1, 'a'), page({ ...b, rev: 7 }, 2, 'b'), page({ ...b, rev: 9 }, 3, 'c')]);
    await engine.setBookFields('bt-1', { ...b, rev: 7 });
    const revs = () => [...engine.fake.documents('pages').values()].map((d) => [d.visibility, (d as { bookRev?: number }).bookRev]);
    // Page 1 (rev 5, the same fields) takes rev 7; page 2 already is at 7 with them; page 3 is newer.
    expect(revs()).toEqual([
      ['private', 7],
      ['private', 7],
      ['private', 9],
    ]);
    // The stream's indexer putting what it read at rev 6 (public): nothing changes.
    await engine.putPages([page({ ...b, visibility: 'public', rev: 6 }, 1, 'a')]);
    expect(revs()[0]).toEqual(['private', 7]);
    expect((await engine.search(query({ terms: ['a'], view: { kind: 'public' } }))).total).toBe(0);
  });

  it('hides a book by a by-query update on each index: its public documents made private, revisions kept', async () => {
    const engine = openSearchOverFake();
    const b = { ...listedBook({ bookTextId: 'bt-1' }), rev: 4 };
    await engine.putBook(b);
    await engine.putPages([{ ...page(b, 1, 'x'), pageRev: 2 }, page({ ...b, visibility: 'private' }, 2, 'y')]);
    await engine.hideBook('bt-1');
    const updates = engine.fake.requests.filter((r) => r.path.endsWith('/_update_by_query'));
    expect(updates.map((r) => r.path)).toEqual(['/pages/_update_by_query', '/pages-books/_update_by_query']);
    for (const r of updates) {
      expect(r.query).toEqual({ conflicts: 'proceed', refresh: 'true' });
      expect(JSON.parse(r.body)).toEqual({
        query: { bool: { filter: [{ term: { bookTextId: { value: 'bt-1' } } }, { term: { visibility: { value: 'public' } } }] } },
        script: { lang: 'painless', source: hideBookScript },
      });
    }
    expect(hideBookScript).toBe("ctx._source.visibility = 'private';");
    expect(engine.fake.documents('pages').get('bt-1:1')).toMatchObject({ visibility: 'private', textRev: 2, bookRev: 4 });
    expect(engine.fake.documents('pages-books').get('bt-1')).toMatchObject({ visibility: 'private', rev: 4 });
    await expect(engine.hideBook('')).rejects.toThrow(RangeError);
  });

  it('runs hideBook again over pages a concurrent putPages made public meanwhile', async () => {
    const engine = openSearchOverFake();
    const b = { ...book('bt-1'), rev: 3 };
    await engine.putPages([page(b, 1, 'a'), page(b, 2, 'b')]);
    // A put at the held rev (public) lands between the update's search and its writes.
    engine.fake.duringNextByQuery(() => engine.fake.put('pages', 'bt-1:2', { ...book('bt-1'), pageNumber: 2, exact: 'b2', stemmed: 'b2', textRev: 0, bookRev: 3 }));
    await engine.hideBook('bt-1');
    expect([...engine.fake.documents('pages').values()].map((d) => d.visibility)).toEqual(['private', 'private']);
    expect(requestsTo(engine.fake.requests, '_update_by_query')).toHaveLength(2);
  });

  it('carries hostile terms and ids as JSON values only', async () => {
    const engine = openSearchOverFake();
    // Index terms only (lib/search/rules.ts), among them words of Lucene's and FTS5's query syntax.
    const hostile = ['or', 'and', 'not', 'near', 'ﷺ', 'مُحَمَّد', 'x', 'ﬀ'];
    const evil = 'bt"}},{"delete":{"_id":"x';
    const owner = '"} OR userId:*';
    const b = book(evil, { userId: owner, visibility: 'private', language: 'x"y' });
    await engine.putPages([page(b, 1, hostile.join(' '))]);
    await engine.setBookFields(evil, { userId: owner, visibility: 'private', status: '"; ctx._source.visibility = \'public\'; "', language: 'x"y' });
    const result = await engine.search(
      query({ mode: 'phrase', field: 'exact', terms: hostile, view: { kind: 'publicAndOwn', ownerId: owner }, bookTextId: evil, language: 'x"y' }),
    );
    expect(result).toEqual({ total: 1, hits: [{ bookTextId: evil, pageNumber: 1 }] });
    const search = requestsTo(engine.fake.requests, '_search')[0]!;
    const body = JSON.parse(search.body);
    expect(body.query.bool.must[0].match_phrase.exact.query).toBe(hostile.join(' '));
    expect(body.query.bool.filter[0].bool.should[1]).toEqual({ term: { userId: { value: owner } } });
    const update = JSON.parse(requestsTo(engine.fake.requests, '_update_by_query')[0]!.body);
    expect(update.script.source).toBe(setBookFieldsScript);
    expect(update.script.params.status).toBe('"; ctx._source.visibility = \'public\'; "');
    const [action, scripted] = requestsTo(engine.fake.requests, '_bulk')[0]!.body.split('\n');
    expect(JSON.parse(action!)).toEqual({ update: { _id: `${evil}:1`, retry_on_conflict: 3 } });
    expect(JSON.parse(scripted!).script).toMatchObject({ source: putPageScript, params: { bookTextId: evil, userId: owner, language: 'x"y' } });
    expect(engine.fake.documents('pages').get(`${evil}:1`)?.visibility).toBe('private');
    // Terms that are no index terms are in no page: never sent, found nowhere.
    const sent = engine.fake.requests.length;
    for (const t of ['"', '\\', '*', 'OR', 'a"b\\c', '}{', '${x}', "';--", '</script>', '\u0000', '👍🏽', '\u202Etxt']) {
      expect(await engine.search(query({ mode: 'phrase', field: 'exact', terms: ['or', t] }))).toEqual({ total: 0, hits: [] });
    }
    expect(engine.fake.requests.length).toBe(sent);
    expect((await engine.search(query({ mode: 'any', field: 'exact', terms: ['"', 'near', '*'] }))).total).toBe(1);
    expect(JSON.parse(requestsTo(engine.fake.requests, '_search').at(-1)!.body).query.bool.must[0].match.exact.query).toBe('near');
    for (const r of engine.fake.requests) {
      expect(r.path).toMatch(/^\/pages(-books|-terms)?(\/_[a-z_]+)?$/);
      expect(Object.values(r.query).every((value) => ['proceed', 'true', 'wait_for'].includes(value))).toBe(true);
    }
  });

  it('finds no page for terms that are no index terms (whitespace, empty, too long), sending nothing; refuses out-of-contract queries before sending', async () => {
    const engine = openSearchOverFake();
    const none: Partial<PageQuery>[] = [
      { terms: ['two words'] },
      { terms: ['tab\there'] },
      { terms: ['nbsp\u00A0x'] },
      { terms: [''] },
      { terms: [] },
      { terms: ['x'.repeat(65)] },
      { terms: ['x', 'Capital'] },
    ];
    for (const q of none) expect(await engine.search(query({ terms: ['x'], ...q }))).toEqual({ total: 0, hits: [] });
    const bad: Partial<PageQuery>[] = [
      { terms: Array.from({ length: 33 }, () => 'x') },
      { terms: ['x'], limit: 0 },
      { terms: ['x'], limit: 101 },
      { terms: ['x'], offset: 10_001 },
      { terms: ['x'], offset: 1.5 },
      { terms: ['x'], field: 'userId' as 'exact' },
      { terms: ['x'], mode: 'fuzzy' as 'any' },
      { terms: ['x'], view: { kind: 'everyone' } as unknown as PageQuery['view'] },
      { terms: [''], view: { kind: 'everyone' } as unknown as PageQuery['view'] },
    ];
    for (const q of bad) await expect(engine.search(query({ terms: ['x'], ...q }))).rejects.toThrow(RangeError);
    await expect(engine.putPages([page(book('bt-1'), 1, 'fine'), { ...page(book('bt-1'), 2, 'x'), exact: ['a b'] }])).rejects.toThrow(RangeError);
    await expect(engine.putPages([page(book('bt-1'), 1, 'fine'), page(book('bt-1'), 2, 'Capital')])).rejects.toThrow(RangeError);
    await expect(engine.putPages([{ ...page(book('bt-1'), 1.5, 'x') }])).rejects.toThrow(RangeError);
    expect(engine.fake.requests).toEqual([]);
  });

  it('signs each request with SigV4 for service es', async () => {
    const engine = openSearchOverFake({ credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token' } });
    await engine.putPages([page(book('bt-1'), 1, 'x')]);
    await engine.search(query({ terms: ['x'] }));
    await engine.setBookFields('bt-1', book('bt-1', { visibility: 'private' }));
    for (const r of engine.fake.requests) {
      // The fake verified each signature itself (fakeCredentials): here, its form.
      expect(r.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/es\/aws4_request, SignedHeaders=(content-type;)?host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
      );
      expect(r.headers['x-amz-security-token']).toBe('session-token');
      expect(r.headers.host).toBeUndefined(); // fetch sets it from the URL, as signed
    }
    // The fake does check: the same request with another body, or signed with another secret, is refused.
    const search = requestsTo(engine.fake.requests, '_search')[0]!;
    const tampered = await engine.fake.fetch(`${fakeDomain.endpoint}/pages/_search`, {
      method: 'POST',
      headers: { ...search.headers, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      body: search.body,
    });
    expect(tampered.status).toBe(403);
    const unsigned = await engine.fake.fetch(`${fakeDomain.endpoint}/pages/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: search.body });
    expect(unsigned.status).toBe(403);
    const wrong = openSearchOverFake({ credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-the-secret' } });
    await expect(wrong.search(query({ terms: ['x'] }))).rejects.toMatchObject({ name: 'OpenSearchError', status: 403 });
  });
});

describe('OpenSearch search engine: the catalogue listing', () => {
  /** As the contract's `list`, the first 20. */
  const list = (rest: Parameters<typeof everyBook>[0] = {}): BookListQuery => everyBook({ limit: 20, ...rest });
  const booksRequests = (requests: RecordedRequest[], action: string) => requests.filter((r) => r.path === `/pages-books/${action}`);
  const expected = (filter: unknown[], sort: unknown, from = 0, size = 20) => ({
    query: { bool: { filter } },
    track_total_hits: true,
    from,
    size,
    sort: [sort],
    _source: ['bookTextId'],
  });

  it('puts a book as one _bulk update action into <index>-books, its id in the body, the entry the param of a constant script', async () => {
    const engine = openSearchOverFake();
    const book = listedBook({ bookTextId: 'bt-1', tags: ['fiqh', 'fiqh', '', 'hadith'], categories: ['law'], fileName: 'Zad', pageCount: 30 });
    await engine.putBook({ ...book, rev: 6 });
    const [bulk] = booksRequests(engine.fake.requests, '_bulk');
    expect(bulk!.headers['content-type']).toBe('application/x-ndjson');
    expect(bulk!.query).toEqual({});
    const entry =
      '{"bookTextId":"bt-1","userId":"user-alice","visibility":"public","status":"completed","language":"ar","tags":["fiqh","hadith"],"categories":["law"],' +
      '"byDate":"2024-01-01T00:00:00.000Z#bt-1","byName":"zad#bt-1","byPages":"0000000030#bt-1","rev":6}';
    expect(bulk!.body).toBe(
      '{"update":{"_id":"bt-1","retry_on_conflict":3}}\n' +
        `{"script":{"lang":"painless","source":${JSON.stringify(putBookScript)},"params":{"entry":${entry}}},"scripted_upsert":true,"upsert":{}}\n`,
    );
    expect(putBookScript).toBe("if (params.entry.rev >= (ctx._source.rev == null ? 0 : ctx._source.rev)) { ctx._source = params.entry; } else { ctx.op = 'noop'; }");
    expect(engine.fake.documents('pages-books').get('bt-1')).toEqual(JSON.parse(entry));
    // An entry without a rev is put at rev 0: older than the one held, a noop.
    await engine.putBook({ ...book, tags: ['other'] });
    expect(JSON.parse(booksRequests(engine.fake.requests, '_bulk')[1]!.body.split('\n')[1]!).script.params.entry.rev).toBe(0);
    expect(engine.fake.documents('pages-books').get('bt-1')).toEqual(JSON.parse(entry));
    await expect(engine.putBook({ ...book, rev: 0.5 })).rejects.toThrow(RangeError);
    const waiting = openSearchOverFake({ refreshOnPut: 'wait_for' });
    await waiting.putBook(book);
    expect(booksRequests(waiting.fake.requests, '_bulk')[0]!.query).toEqual({ refresh: 'wait_for' });
  });

  it('sends the exact _search body for each view, filter and order', async () => {
    const engine = openSearchOverFake();
    const last = () => JSON.parse(booksRequests(engine.fake.requests, '_search').at(-1)!.body);
    await engine.listBooks(list());
    expect(last()).toEqual(expected([], { byDate: { order: 'asc' } }));
    await engine.listBooks(list({ view: { kind: 'public' }, order: 'name', descending: true, limit: 100, offset: 10_000 }));
    expect(last()).toEqual(expected([{ term: { visibility: { value: 'public' } } }], { byName: { order: 'desc' } }, 10_000, 100));
    await engine.listBooks(
      list({ view: { kind: 'publicAndOwn', ownerId: 'user-7' }, order: 'pages', filter: { status: 'completed', language: 'ar', tags: ['a', 'b', 'a'], categories: ['c'] } }),
    );
    expect(last()).toEqual(
      expected(
        [
          { bool: { should: [{ term: { visibility: { value: 'public' } } }, { term: { userId: { value: 'user-7' } } }], minimum_should_match: 1 } },
          { term: { status: { value: 'completed' } } },
          { term: { language: { value: 'ar' } } },
          { terms: { tags: ['a', 'b'] } },
          { terms: { categories: ['c'] } },
        ],
        { byPages: { order: 'asc' } },
      ),
    );
    // An empty owner owns nothing: the public view.
    await engine.listBooks(list({ view: { kind: 'publicAndOwn', ownerId: '' } }));
    expect(last().query.bool.filter).toEqual([{ term: { visibility: { value: 'public' } } }]);
    for (const r of booksRequests(engine.fake.requests, '_search')) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.query).toEqual({});
    }
  });

  it('lists nothing before the first write without creating an index, and sends nothing for a filter no book can match', async () => {
    const engine = openSearchOverFake();
    expect(await engine.listBooks(list({ view: { kind: 'public' } }))).toEqual({ total: 0, bookTextIds: [] });
    expect(engine.fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /pages-books/_search']);
    expect(engine.fake.indexDefinition('pages-books')).toBeUndefined();
    expect(await engine.listBooks(list({ filter: { tags: [''] } }))).toEqual({ total: 0, bookTextIds: [] });
    expect(await engine.listBooks(list({ filter: { status: 'x'.repeat(1_001) } }))).toEqual({ total: 0, bookTextIds: [] });
    expect(engine.fake.requests).toHaveLength(1);
  });

  it('removes a book from both indexes by a by-query delete each', async () => {
    const engine = openSearchOverFake();
    const book = listedBook({ bookTextId: 'bt-1' });
    await engine.putBook(book);
    await engine.putPages([page(book, 1, 'x')]);
    await engine.removeBook('bt-1');
    const deletes = engine.fake.requests.filter((r) => r.path.endsWith('/_delete_by_query'));
    expect(deletes.map((r) => r.path)).toEqual(['/pages/_delete_by_query', '/pages-books/_delete_by_query']);
    for (const r of deletes) {
      expect(r.query).toEqual({ conflicts: 'proceed', refresh: 'true' });
      expect(JSON.parse(r.body)).toEqual({ query: { bool: { filter: [{ term: { bookTextId: { value: 'bt-1' } } }] } } });
    }
    expect(engine.fake.documents('pages').size + engine.fake.documents('pages-books').size).toBe(0);
  });

  it('carries hostile values as JSON values only, well-formed, and refuses bad entries before sending', async () => {
    const engine = openSearchOverFake();
    const evil = 'bt"}},{"delete":{"_id":"x';
    const tags = ['"}]', '\\', '*', "' OR 1=1 --", '\u0000', 'lone\uD800'];
    await engine.putBook(listedBook({ bookTextId: evil, userId: '"} OR userId:*', tags, categories: ['{"$ne":1}'] }));
    const [action, update] = booksRequests(engine.fake.requests, '_bulk')[0]!.body.split('\n');
    expect(JSON.parse(action!)).toEqual({ update: { _id: evil, retry_on_conflict: 3 } });
    expect(JSON.parse(update!).script.source).toBe(putBookScript);
    expect(JSON.parse(update!).script.params.entry.tags).toEqual(['"}]', '\\', '*', "' OR 1=1 --", '\u0000', 'lone\uFFFD']);
    expect(await engine.listBooks(list({ view: { kind: 'publicAndOwn', ownerId: '"} OR userId:*' }, filter: { tags: ['lone\uD800'], categories: ['{"$ne":1}'] } }))).toEqual({
      total: 1,
      bookTextIds: [evil],
    });
    expect(JSON.parse(booksRequests(engine.fake.requests, '_search')[0]!.body).query.bool.filter[1]).toEqual({ terms: { tags: ['lone\uFFFD'] } });
    for (const r of engine.fake.requests) expect(r.path).toMatch(/^\/pages(-books|-terms)?(\/_[a-z_]+)?$/);

    const before = engine.fake.requests.length;
    await expect(engine.putBook({ ...listedBook({ bookTextId: 'bt-2' }), byDate: 'no id' })).rejects.toThrow(RangeError);
    await expect(engine.listBooks(list({ limit: 101 }))).rejects.toThrow(RangeError);
    expect(engine.fake.requests.length).toBe(before);
  });

  it('throws when the listing entry is not stored, naming it', async () => {
    const engine = openSearchOverFake();
    engine.fake.rejectBulkItems(() => ({ status: 400, type: 'mapper_parsing_exception' }));
    const error = await engine.putBook(listedBook({ bookTextId: 'bt-1', tags: ['secret'] })).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OpenSearchBulkError', failed: 1, sent: 1, types: ['mapper_parsing_exception'] });
    expect((error as Error).message).toBe('OpenSearch did not store 1 of 1 listing entries (mapper_parsing_exception)');
    expect(JSON.stringify(error)).not.toContain('secret');
  });
});

describe('OpenSearch search engine: filed terms and forgiving queries', () => {
  const termsRequests = (requests: RecordedRequest[], action: string) => requests.filter((r) => r.path === `/pages-terms/${action}`);
  const created = (...terms: string[]) => terms.map((t) => `{"create":{"_id":"${t}"}}\n${JSON.stringify({ term: t, keys: variantKeys(t) })}\n`).join('');
  const b = book('bt-1');

  it('files the distinct filed terms of the pages put by _bulk create actions into <index>-terms (ids in the body), each once per engine', async () => {
    const engine = openSearchOverFake();
    // `of` and `x` are too short to be filed, `1234` has no letter.
    await engine.putPages([page(b, 1, 'moon sun moon of the mood', 'moon sun moon of the mood'), page(b, 2, 'sun 1234 x moons')]);
    const [bulk] = termsRequests(engine.fake.requests, '_bulk');
    expect(bulk!.headers['content-type']).toBe('application/x-ndjson');
    expect(bulk!.query).toEqual({});
    expect(bulk!.body.split('\n').slice(0, 2)).toEqual(['{"create":{"_id":"moon"}}', '{"term":"moon","keys":["moon","oon","mon","moo"]}']);
    expect(bulk!.body).toBe(created('moon', 'sun', 'the', 'mood', 'moons'));
    expect(engine.fake.documents('pages-terms').get('moon')).toEqual({ term: 'moon', keys: ['moon', 'oon', 'mon', 'moo'] });
    expect([...engine.fake.documents('pages-terms').keys()]).toEqual(['moon', 'sun', 'the', 'mood', 'moons']);

    // Put again, with one new term: only that one is sent; with none new, no terms bulk at all.
    await engine.putPages([page(b, 1, 'moon sun star'), page(b, 3, 'the moons')]);
    await engine.putPages([page(b, 4, 'sun the star')]);
    expect(termsRequests(engine.fake.requests, '_bulk').map((r) => r.body)).toEqual([created('moon', 'sun', 'the', 'mood', 'moons'), created('star')]);
    expect(requestsTo(engine.fake.requests, '_bulk')).toHaveLength(3);

    // Another engine (another container) sends them again: each filed already answers 409, a success.
    const other = openSearchOverFake({ fetch: engine.fake.fetch });
    await other.putPages([page(b, 5, 'moon and star')]);
    expect(termsRequests(engine.fake.requests, '_bulk').at(-1)!.body).toBe(created('moon', 'and', 'star'));
    expect(engine.fake.documents('pages-terms').size).toBe(7);
    await other.putPages([page(b, 6, 'moon and star')]);
    expect(termsRequests(engine.fake.requests, '_bulk')).toHaveLength(3);
  });

  it('takes a 409 (the term filed already) as success, sends again what was turned away for load (429), throws on anything else and forgets that batch', async () => {
    const engine = openSearchOverFake({ maxBulkBytes: 1 }); // one item per bulk body
    await engine.ensureIndex();
    engine.fake.put('pages-terms', 'moon', { term: 'moon', keys: ['other'] });
    let refusals = 1;
    engine.fake.rejectBulkItems((id) => (id === 'sun' && refusals-- > 0 ? { status: 429, type: 'es_rejected_execution_exception' } : undefined));
    await engine.putPages([page(b, 1, 'moon sun')]);
    expect(termsRequests(engine.fake.requests, '_bulk').map((r) => r.body)).toEqual([created('moon'), created('sun'), created('sun')]);
    expect(engine.fake.documents('pages-terms').get('moon')).toEqual({ term: 'moon', keys: ['other'] }); // left as it was

    // A batch that fails is not remembered: the next put sends its terms again, not those filed before it.
    engine.fake.rejectBulkItems((id) => (id === 'star' ? { status: 400, type: 'mapper_parsing_exception' } : undefined));
    const error = await engine.putPages([page(b, 2, 'rain star snow')]).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OpenSearchBulkError', failed: 1, sent: 1, types: ['mapper_parsing_exception'] });
    expect((error as Error).message).toBe('OpenSearch did not store 1 of 1 terms (mapper_parsing_exception)');
    expect(engine.fake.documents('pages').has('bt-1:2')).toBe(true); // the page went in beside
    engine.fake.rejectBulkItems(undefined);
    const before = termsRequests(engine.fake.requests, '_bulk').length;
    await engine.putPages([page(b, 2, 'rain star snow')]);
    expect(termsRequests(engine.fake.requests, '_bulk').slice(before).map((r) => r.body)).toEqual([created('star'), created('snow')]);
    expect([...engine.fake.documents('pages-terms').keys()].sort()).toEqual(['moon', 'rain', 'snow', 'star', 'sun']);

    // A whole request refused (the pages' and the terms'): nothing of it remembered either.
    const fresh = openSearchOverFake({ fetch: engine.fake.fetch });
    await fresh.ensureIndex();
    engine.fake.failNext({ status: 400, type: 'illegal_argument_exception' }, { status: 400, type: 'illegal_argument_exception' });
    await expect(fresh.putPages([page(b, 3, 'cloud')])).rejects.toMatchObject({ name: 'OpenSearchError', status: 400 });
    await fresh.putPages([page(b, 3, 'cloud')]);
    expect(termsRequests(engine.fake.requests, '_bulk').filter((r) => r.body === created('cloud'))).toHaveLength(2);
    expect(engine.fake.documents('pages-terms').has('cloud')).toBe(true);
  });

  it('keeps each terms bulk body under the byte limit', async () => {
    const engine = openSearchOverFake({ maxBulkBytes: 600 });
    const terms = Array.from({ length: 30 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${'x'.repeat(Math.floor(i / 26))}`);
    await engine.putPages([page(b, 1, terms.join(' '))]);
    const bulks = termsRequests(engine.fake.requests, '_bulk');
    expect(bulks.length).toBeGreaterThan(3);
    for (const r of bulks) expect(Buffer.byteLength(r.body)).toBeLessThanOrEqual(600);
    expect(bulks.map((r) => r.body).join('')).toBe(created(...terms));
    expect(engine.fake.documents('pages-terms').size).toBe(30);
  });

  it('waits for the refresh of the terms bulk as of the pages one when configured (read after write)', async () => {
    const engine = openSearchOverFake({ refreshOnPut: 'wait_for' });
    await engine.putPages([page(b, 1, 'moon')]);
    expect(requestsTo(engine.fake.requests, '_bulk')[0]!.query).toEqual({ refresh: 'wait_for' });
    expect(termsRequests(engine.fake.requests, '_bulk')[0]!.query).toEqual({ refresh: 'wait_for' });
    // The next call sees it.
    expect(await engine.similarTerms(['moo'])).toEqual(['moon']);
    const plain = openSearchOverFake();
    await plain.putPages([page(b, 1, 'moon')]);
    expect(termsRequests(plain.fake.requests, '_bulk')[0]!.query).toEqual({});
  });

  it('looks similar terms up by one _search of <index>-terms: the keys as a terms filter, the keyword order, at most maxSimilarTerms', async () => {
    const engine = openSearchOverFake();
    await engine.putPages([page(b, 1, 'moon mood moan sun')]);
    expect(await engine.similarTerms(['moo', 'zzz', 'a*', 'moo', '"'])).toEqual(['mood', 'moon']);
    const [search] = termsRequests(engine.fake.requests, '_search');
    expect(search!.headers['content-type']).toBe('application/json');
    expect(search!.query).toEqual({});
    expect(JSON.parse(search!.body)).toEqual({
      query: { bool: { filter: [{ terms: { keys: ['moo', 'zzz'] } }] } },
      size: 2_000,
      sort: [{ term: { order: 'asc' } }],
      _source: ['term'],
    });
    expect(maxSimilarTerms).toBe(2_000);
    // No key a term can be filed under: nothing sent. Out of contract: refused before sending.
    const sent = engine.fake.requests.length;
    expect(await engine.similarTerms([])).toEqual([]);
    expect(await engine.similarTerms(['"', 'a*', 'A'])).toEqual([]);
    await expect(engine.similarTerms(['m'.repeat(25)])).rejects.toThrow(RangeError);
    expect(engine.fake.requests.length).toBe(sent);

    // UTF-8 byte order (a keyword's), not UTF-16's: U+20000 after U+FF5A. At most 2,000 terms, the first in that order.
    const many = Array.from({ length: 2_100 }, (_, i) => `qza${String.fromCodePoint(0x4e00 + i)}`);
    await engine.putPages([page(b, 2, [...many, 'qza𠀀', 'qzaｚ'].join(' '))]);
    const found = await engine.similarTerms(['qza']);
    expect(found).toEqual(many.slice(0, 2_000));
    expect(await engine.similarTerms(['qza𠀀', 'qzaｚ'])).toEqual(['qzaｚ', 'qza𠀀']);
  });

  it('answers no similar term before any index exists, without creating one (search-api may not)', async () => {
    const engine = openSearchOverFake();
    expect(await engine.similarTerms(['moo'])).toEqual([]);
    expect(engine.fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /pages-terms/_search']);
    expect(engine.fake.indexDefinition('pages-terms')).toBeUndefined();
    engine.fake.failNext({ status: 500, type: 'unknown' });
    await expect(engine.similarTerms(['moo'])).rejects.toMatchObject({ name: 'OpenSearchError', status: 500 });
  });

  it('sends a forgiving query as a filter of the words (minimum_should_match) and a dis_max of its groups, each boosted above the next with its own BM25', async () => {
    const engine = openSearchOverFake();
    const words = (...alternatives: string[]) => ({ match: { stemmed: { query: alternatives.join(' '), operator: 'or' } } });
    const boosted = (filter: unknown, boost: number) => ({ constant_score: { filter, boost } });
    const matchAll = { match_all: {} };
    const typedOr = (...terms: string[]) => [{ match: { stemmed: { query: terms.join(' '), operator: 'or' } } }];
    const typedAnd = (...terms: string[]) => ({ match: { stemmed: { query: terms.join(' '), operator: 'and' } } });
    const body = (filter: unknown, groups: unknown[], view: unknown[] = []) => ({
      query: { bool: { filter: [...view, filter], must: [{ dis_max: { queries: groups, tie_breaker: 0 } }] } },
      track_total_hits: true,
      from: 0,
      size: 10,
      sort,
      _source: ['bookTextId', 'pageNumber'],
    });
    await engine.search(
      query({
        mode: 'any',
        terms: ['sun', 'moon', 'star'],
        phraseFirst: ['sun', 'moon', 'star'],
        view: { kind: 'public' },
        forgiving: { words: [['sun'], ['moon', 'mood', '"'], ['star', 'a*']], minimumWords: 2, nearPhrases: [['sun', 'mood', 'star'], ['sun', '"'], ['sunmoon', 'star']] },
      }),
    );
    const all = [words('sun'), words('moon', 'mood'), words('star')];
    expect(lastBody(engine.fake.requests, '_search')).toEqual(
      body(
        { bool: { should: all, minimum_should_match: 2 } },
        [
          // The phrase, near-phrase and typed-words groups score the typed terms; every word and the rest, every alternative.
          { bool: { must: [boosted({ match_phrase: { exact: { query: 'sun moon star' } } }, 20_000)], should: typedOr('sun', 'moon', 'star') } },
          {
            bool: {
              must: [boosted({ bool: { should: [{ match_phrase: { exact: { query: 'sun mood star' } } }, { match_phrase: { exact: { query: 'sunmoon star' } } }], minimum_should_match: 1 } }, 15_000)],
              should: typedOr('sun', 'moon', 'star'),
            },
          },
          { bool: { must: [boosted(matchAll, 10_000), typedAnd('sun', 'moon', 'star')] } },
          { bool: { must: [boosted(matchAll, 5_000), ...all] } },
          { bool: { should: all, minimum_should_match: 1 } },
        ],
        [{ term: { visibility: { value: 'public' } } }],
      ),
    );
    expect(forgivingBoosts).toEqual({ phrase: 20_000, nearPhrase: 15_000, typed: 10_000, everyWord: 5_000 });

    // A typed word that is no index term: no typed group; with no alternative left, out of the words and no every-word group.
    await engine.search(query({ terms: ['sun', '"', 'star'], forgiving: { words: [['sun'], ['"'], ['star', 'stars']], minimumWords: 2, nearPhrases: [] } }));
    const left = [words('sun'), words('star', 'stars')];
    expect(lastBody(engine.fake.requests, '_search')).toEqual(body({ bool: { should: left, minimum_should_match: 2 } }, [{ bool: { should: left, minimum_should_match: 1 } }]));
    // One word, nothing to rank but the typed term and the word.
    await engine.search(query({ terms: ['sun'], forgiving: { words: [['sun', 'sin']], minimumWords: 1, nearPhrases: [] } }));
    expect(lastBody(engine.fake.requests, '_search')).toEqual(
      body({ bool: { should: [words('sun', 'sin')], minimum_should_match: 1 } }, [
        { bool: { must: [boosted(matchAll, 10_000), typedAnd('sun')] } },
        { bool: { must: [boosted(matchAll, 5_000), words('sun', 'sin')] } },
        { bool: { should: [words('sun', 'sin')], minimum_should_match: 1 } },
      ]),
    );
    // Fewer words left than a page must hold: no page can match, nothing sent.
    const sent = engine.fake.requests.length;
    expect(await engine.search(query({ terms: ['sun', '"', 'star'], forgiving: { words: [['sun'], ['"'], ['star']], minimumWords: 3, nearPhrases: [] } }))).toEqual({ total: 0, hits: [] });
    expect(engine.fake.requests.length).toBe(sent);
  });

  it('keeps each group above the next whatever the BM25 of the group, and the largest query under 1,024 clauses', () => {
    // A term scores less than its idf, at most ln(1 + (N − 0.5) / 1.5) for a shard of N ≤ 2^31 pages.
    const mustBound = maxQueryTerms * maxAlternatives * Math.log(1 + (2 ** 31 - 0.5) / 1.5);
    expect(mustBound).toBeLessThan(4_727);
    const { everyWord, typed, nearPhrase, phrase } = forgivingBoosts;
    expect(everyWord).toBeGreaterThan(mustBound);
    expect(typed).toBeGreaterThan(everyWord + mustBound);
    expect(nearPhrase).toBeGreaterThan(typed + mustBound);
    expect(phrase).toBeGreaterThan(nearPhrase + mustBound);
    // Exact in float32, and the largest score's float32 step far under the least margin (273).
    for (const boost of Object.values(forgivingBoosts)) expect(Math.fround(boost)).toBe(boost);
    const highest = phrase + mustBound; // dis_max: one group's boost, the highest
    expect(highest).toBeLessThan(2 ** 15); // float32's step there: 2^-9

    // The largest forgiving query rules.ts allows, counted as Lucene 9 counts a rewritten query's
    // clauses (IndexSearcher's visitor): one per term query, one per phrase query whatever its terms.
    const distinct = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    const typedTerms = distinct('w', maxQueryTerms);
    const largest = searchBody(
      query({
        terms: typedTerms,
        phraseFirst: typedTerms,
        view: { kind: 'publicAndOwn', ownerId: 'user-1' },
        bookTextId: 'bt-1',
        language: 'ar',
        forgiving: {
          words: typedTerms.map((t) => [t, ...distinct(`${t}v`, maxAlternatives - 1)]),
          minimumWords: 1,
          nearPhrases: Array.from({ length: maxNearPhrases }, (_, i) => distinct(`p${i}t`, maxQueryTerms)),
        },
      }),
    )!;
    const clauses = (q: unknown): number => {
      const [[kind, spec]] = Object.entries(q as Record<string, unknown>) as [[string, Record<string, unknown>]];
      if (kind === 'term' || kind === 'terms' || kind === 'match_phrase' || kind === 'match_all') return 1;
      if (kind === 'match') return (Object.values(spec)[0] as { query: string }).query.split(' ').length;
      if (kind === 'constant_score') return clauses(spec.filter);
      if (kind === 'dis_max') return (spec.queries as unknown[]).reduce<number>((n, c) => n + clauses(c), 0);
      expect(kind).toBe('bool');
      return ['filter', 'must', 'should', 'must_not'].reduce((n, occur) => n + ((spec[occur] as unknown[] | undefined) ?? []).reduce<number>((m, c) => m + clauses(c), 0), 0);
    };
    // The filters and the words; the phrase, near-phrase and typed groups with the typed terms' BM25; every word; the rest.
    expect(clauses(largest.query)).toBe(4 + 224 + (1 + 32) + (48 + 32) + (1 + 32) + (1 + 224) + 224);
    expect(clauses(largest.query)).toBeLessThan(1_024); // indices.query.bool.max_clause_count
  });

  it('ranks through the fake as OpenSearch scores it: the boost of the first group a page is in and that group’s BM25', async () => {
    const engine = openSearchOverFake();
    await engine.putPages([page(b, 1, 'sun moon star'), page(b, 2, 'sun mood'), page(b, 3, 'star'), page(b, 4, 'rain'), page(b, 5, 'star mood sun'), page(b, 6, 'mood star')]);
    const scoreOf = async (terms: string[]) => {
      await engine.search(query({ mode: 'any', terms }));
      return new Map(engine.fake.lastSearchHits().map((h) => [h.id, h.score]));
    };
    const [sun, moon, star] = [await scoreOf(['sun']), await scoreOf(['moon', 'mood']), await scoreOf(['star'])];
    await engine.search(query({ mode: 'any', terms: ['sun', 'moon', 'star'], forgiving: { words: [['sun'], ['moon', 'mood'], ['star']], minimumWords: 2, nearPhrases: [['sun', 'mood']] } }));
    const scored = engine.fake.lastSearchHits();
    expect(scored.map((h) => h.id)).toEqual(['bt-1:2', 'bt-1:1', 'bt-1:5', 'bt-1:6']);
    // A near-phrase hit scores its typed terms only (sun; mood is a variant), a typed-words hit all three.
    expect(scored[0]!.score).toBeCloseTo(sun.get('bt-1:2')! + forgivingBoosts.nearPhrase, 9);
    expect(scored[1]!.score).toBeCloseTo(sun.get('bt-1:1')! + moon.get('bt-1:1')! + star.get('bt-1:1')! + forgivingBoosts.typed, 9);
    // Every word (mood for moon) and the rest score every alternative.
    expect(scored[2]!.score).toBeCloseTo(sun.get('bt-1:5')! + moon.get('bt-1:5')! + star.get('bt-1:5')! + forgivingBoosts.everyWord, 9);
    expect(scored[3]!.score).toBeCloseTo(moon.get('bt-1:6')! + star.get('bt-1:6')!, 9);
  });
});

describe('OpenSearch search engine: failures', () => {
  it('throws on a non-2xx answer with status and type, never the body it echoed', async () => {
    const engine = openSearchOverFake();
    await engine.ensureIndex();
    engine.fake.failNext({ status: 400, type: 'x_content_parse_exception' }); // its reason quotes the request
    const error = await engine.search(query({ terms: ['secretword'] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenSearchError);
    expect(error).toMatchObject({ status: 400, type: 'x_content_parse_exception' });
    expect((error as Error).message).toBe('OpenSearch answered 400 (x_content_parse_exception) to POST /pages/_search');
    expect(JSON.stringify(error)).not.toContain('secretword');

    engine.fake.failNext({ status: 500, type: 'mapper_parsing_exception', reason: 'failed to parse field [exact] value [private page text]' });
    const bulkError = await engine.putPages([page(book('bt-1'), 1, 'private page text')]).catch((e: unknown) => e);
    expect(String(bulkError)).not.toContain('private');
    expect(bulkError).toMatchObject({ status: 500, type: 'mapper_parsing_exception' });
  });

  it('tries again when throttled (429, 503), then gives up with the last answer', async () => {
    const engine = openSearchOverFake();
    await engine.ensureIndex();
    engine.fake.failNext({ status: 429, type: 'es_rejected_execution_exception' }, { status: 503, type: 'unknown' });
    await expect(engine.search(query({ terms: ['x'] }))).resolves.toEqual({ total: 0, hits: [] });
    engine.fake.failNext(...Array.from({ length: 5 }, () => ({ status: 429, type: 'es_rejected_execution_exception' })));
    await expect(engine.search(query({ terms: ['x'] }))).rejects.toMatchObject({ status: 429 });
    engine.fake.failNext({ status: 400, type: 'illegal_argument_exception' });
    const before = engine.fake.requests.length;
    await expect(engine.search(query({ terms: ['x'] }))).rejects.toMatchObject({ status: 400 });
    expect(engine.fake.requests.length - before).toBe(1); // a 400 is not tried again

    let drops = 1; // a connection lost once
    const flaky = openSearchOverFake({
      fetch: async (url, init) => {
        if (drops-- > 0) throw new TypeError('fetch failed');
        return engine.fake.fetch(url, init);
      },
    });
    await expect(flaky.search(query({ terms: ['x'] }))).resolves.toEqual({ total: 0, hits: [] });
  });

  it('throws when a bulk answer reports failed items, naming how many', async () => {
    const engine = openSearchOverFake();
    const b = book('bt-1');
    engine.fake.rejectBulkItems((id) => (id === 'bt-1:2' || id === 'bt-1:3' ? { status: 400, type: 'mapper_parsing_exception' } : undefined));
    const error = await engine.putPages([page(b, 1, 'a'), page(b, 2, 'secret text'), page(b, 3, 'c')]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenSearchBulkError);
    expect(error).toMatchObject({ failed: 2, sent: 3, types: ['mapper_parsing_exception'] });
    expect((error as Error).message).toBe('OpenSearch did not store 2 of 3 pages (mapper_parsing_exception)');
    expect(JSON.stringify(error)).not.toContain('secret');
  });

  it('sends again the bulk items turned away for load (429), and only those', async () => {
    const engine = openSearchOverFake();
    const b = book('bt-1');
    let refusals = 2;
    engine.fake.rejectBulkItems((id) => (id === 'bt-1:2' && refusals-- > 0 ? { status: 429, type: 'es_rejected_execution_exception' } : undefined));
    await engine.putPages([page(b, 1, 'a'), page(b, 2, 'b'), page(b, 3, 'c')]);
    const bulks = requestsTo(engine.fake.requests, '_bulk');
    expect(bulks.map((r) => r.body.split('\n').length - 1)).toEqual([6, 2, 2]);
    expect(engine.fake.documents('pages').size).toBe(3);

    engine.fake.rejectBulkItems(() => ({ status: 429, type: 'es_rejected_execution_exception' }));
    await expect(engine.putPages([page(b, 4, 'd')])).rejects.toMatchObject({ name: 'OpenSearchBulkError', failed: 1, types: ['es_rejected_execution_exception'] });
  });

  it('sends again the bulk items that kept conflicting with another writer (409), each script running on the page as it is then', async () => {
    const engine = openSearchOverFake();
    const b = { ...book('bt-1'), rev: 2 };
    await engine.putPages([page(b, 1, 'a'), page(b, 2, 'b')]);
    // Another writer put page 2 at a newer revision between OpenSearch's read and its write, past its retries.
    let conflicts = 1;
    engine.fake.rejectBulkItems((id) => {
      if (id !== 'bt-1:2' || conflicts-- <= 0) return undefined;
      engine.fake.put('pages', 'bt-1:2', { ...book('bt-1', { visibility: 'private' }), pageNumber: 2, exact: 'newer', stemmed: 'newer', textRev: 5, bookRev: 5 });
      return { status: 409, type: 'version_conflict_engine_exception' };
    });
    await engine.putPages([page({ ...b, rev: 3 }, 1, 'a2'), page({ ...b, rev: 3 }, 2, 'b2')]);
    const bulks = requestsTo(engine.fake.requests, '_bulk');
    expect(bulks.map((r) => r.body.split('\n').length - 1)).toEqual([4, 4, 2]);
    expect(JSON.parse(bulks[2]!.body.split('\n')[0]!)).toEqual({ update: { _id: 'bt-1:2', retry_on_conflict: 3 } });
    // Sent again, the older put kept the newer page: a noop.
    expect(engine.fake.documents('pages').get('bt-1:2')).toMatchObject({ exact: 'newer', visibility: 'private', textRev: 5, bookRev: 5 });
    expect(engine.fake.documents('pages').get('bt-1:1')).toMatchObject({ exact: 'a2', bookRev: 3 });

    engine.fake.rejectBulkItems(() => ({ status: 409, type: 'version_conflict_engine_exception' }));
    const error = await engine.putPages([page(b, 3, 'c')]).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OpenSearchBulkError', failed: 1, sent: 1, types: ['version_conflict_engine_exception'] });
  });

  it('runs setBookFields again over pages a concurrent putPages replaced meanwhile', async () => {
    const engine = openSearchOverFake();
    const b = book('bt-1');
    await engine.putPages([page(b, 1, 'a'), page(b, 2, 'b')]);
    // A putPages built from the book as it was (public) lands between the update's search and writes.
    engine.fake.duringNextByQuery(() => engine.fake.put('pages', 'bt-1:2', { ...b, pageNumber: 2, exact: 'b2', stemmed: 'b2' }));
    await engine.setBookFields('bt-1', { ...b, visibility: 'private' });
    expect([...engine.fake.documents('pages').values()].map((d) => d.visibility)).toEqual(['private', 'private']);
    const updates = requestsTo(engine.fake.requests, '_update_by_query');
    expect(updates).toHaveLength(2);

    // removeBook too.
    engine.fake.duringNextByQuery(() => engine.fake.put('pages', 'bt-1:3', { ...b, pageNumber: 3, exact: 'c', stemmed: 'c' }));
    engine.fake.duringNextByQuery(() => engine.fake.put('pages', 'bt-1:1', { ...b, pageNumber: 1, exact: 'a2', stemmed: 'a2' }));
    await engine.removeBook('bt-1');
    expect(engine.fake.documents('pages').size).toBe(0);
  });

  it('gives up when the book keeps changing under setBookFields', async () => {
    const engine = openSearchOverFake();
    const b = book('bt-1');
    await engine.putPages([page(b, 1, 'a')]);
    const rewrite = () => {
      engine.fake.put('pages', 'bt-1:1', { ...b, pageNumber: 1, exact: 'a', stemmed: 'a' });
      engine.fake.duringNextByQuery(rewrite);
    };
    engine.fake.duringNextByQuery(rewrite);
    await expect(engine.setBookFields('bt-1', { ...b, visibility: 'private' })).rejects.toThrow('kept changing');
    expect(requestsTo(engine.fake.requests, '_update_by_query')).toHaveLength(5);
  });
});

describe('the fake OpenSearch', () => {
  it('scores by Lucene BM25 (k1 1.2, b 0.75, stored lengths)', async () => {
    const engine = openSearchOverFake();
    const b = book('b');
    await engine.putPages([page(b, 1, 'a b'), page(b, 2, 'a c c'), page(b, 3, 'd')]);
    await engine.search(query({ mode: 'any', field: 'exact', terms: ['a'] }));
    const scored = engine.fake.lastSearchHits();
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const avgdl = 6 / 3;
    const bm25 = (tf: number, dl: number) => (idf * tf) / (tf + 1.2 * (1 - 0.75 + (0.75 * dl) / avgdl));
    expect(scored).toEqual([
      { id: 'b:1', score: bm25(1, 2) },
      { id: 'b:2', score: bm25(1, 3) },
    ]);
    expect([23, 24, 39, 40, 41, 100, 1000].map(luceneLength)).toEqual([23, 24, 39, 40, 40, 96, 984]);
  });

  it('adds a matching constant_score should’s boost to the must’s score; the should matches no page on its own', async () => {
    const engine = openSearchOverFake();
    const b = book('b');
    await engine.putPages([page(b, 1, 'a b'), page(b, 2, 'b a a'), page(b, 3, 'd'), page(b, 4, 'a x b')]);
    await engine.search(query({ mode: 'any', field: 'exact', terms: ['a'] }));
    const plain = new Map(engine.fake.lastSearchHits().map((h) => [h.id, h.score]));
    await engine.search(query({ mode: 'any', field: 'exact', terms: ['a'], phraseFirst: ['a', 'b'] }));
    expect(engine.fake.lastSearchHits()).toEqual([
      { id: 'b:1', score: plain.get('b:1')! + phraseFirstBoost },
      { id: 'b:2', score: plain.get('b:2')! },
      { id: 'b:4', score: plain.get('b:4')! },
    ]);
    // `d` is on no page with `a b`: the should adds nothing and finds nothing.
    expect(await engine.search(query({ mode: 'any', field: 'exact', terms: ['d'], phraseFirst: ['a', 'b'] }))).toEqual({ total: 1, hits: [{ bookTextId: 'b', pageNumber: 3 }] });
    expect(engine.fake.lastSearchHits()[0]!.score).toBeLessThan(phraseFirstBoost);
    // The boost defaults to 1, as OpenSearch's.
    const body = {
      query: { bool: { filter: [], must: [{ match: { exact: { query: 'a', operator: 'or' } } }], should: [{ constant_score: { filter: { match_phrase: { exact: { query: 'b a' } } } } }] } },
      track_total_hits: true,
      from: 0,
      size: 10,
      sort,
      _source: ['bookTextId', 'pageNumber'],
    };
    expect((await engine.fake.rawSigned('POST', '/pages/_search', JSON.stringify(body))).status).toBe(200);
    expect(engine.fake.lastSearchHits().find((h) => h.id === 'b:2')!.score).toBe(plain.get('b:2')! + 1);
  });

  it('runs the adapter’s scripts as painless does: a missing revision is 0, `ctx.op = noop` writes nothing and answers noop', async () => {
    const engine = openSearchOverFake();
    await engine.ensureIndex();
    const bulk = async (lines: object[]) => {
      const answer = await engine.fake.rawSigned('POST', '/pages/_bulk', lines.map((line) => `${JSON.stringify(line)}\n`).join(''), 'application/x-ndjson');
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { items: Record<string, { result?: string; status: number; _seq_no?: number }>[] }).items.map((item) => Object.values(item)[0]!);
    };
    const fields = { bookTextId: 'b', pageNumber: 1, userId: 'u', visibility: 'public', status: 's', language: 'l' };
    const put = (exact: string, textRev: number, bookRev: number, visibility = 'public') => [
      { update: { _id: 'b:1', retry_on_conflict: 3 } },
      { script: { lang: 'painless', source: putPageScript, params: { ...fields, visibility, exact, stemmed: exact, textRev, bookRev } }, scripted_upsert: true, upsert: {} },
    ];
    const stored = () => engine.fake.documents('pages').get('b:1');
    // A page written before revisions (an `index` action: none).
    await bulk([{ index: { _id: 'b:1' } }, { ...fields, exact: 'legacy', stemmed: 'legacy' }]);
    const [same] = await bulk(put('zero', 0, 0));
    expect(same).toMatchObject({ result: 'updated', status: 200 });
    // Its terms differ (written, with textRev 0); its book fields are those put (kept, bookRev still missing: 0).
    expect(stored()).toEqual({ ...fields, exact: 'zero', stemmed: 'zero', textRev: 0 });
    await bulk(put('five', 5, 5));
    const [older] = await bulk(put('four', 4, 4, 'private'));
    expect(older).toMatchObject({ result: 'noop', status: 200 });
    const seqNo = older!._seq_no;
    expect(stored()).toEqual({ ...fields, exact: 'five', stemmed: 'five', textRev: 5, bookRev: 5 });
    // One part newer: that part only.
    await bulk(put('six', 6, 4, 'private'));
    expect(stored()).toEqual({ ...fields, exact: 'six', stemmed: 'six', textRev: 6, bookRev: 5 });
    // Equal revisions: a part that differs is written again (the later put wins); the same page again is a noop.
    const written = (await bulk(put('six again', 6, 4, 'private')))[0]!;
    expect(written).toMatchObject({ result: 'updated' });
    expect(written._seq_no).toBeGreaterThan(seqNo!);
    expect(stored()).toEqual({ ...fields, exact: 'six again', stemmed: 'six again', textRev: 6, bookRev: 5 });
    const repeated = (await bulk(put('six again', 6, 5, 'public')))[0]!;
    expect(repeated).toMatchObject({ result: 'noop', status: 200, _seq_no: written._seq_no });
    // The book fields at their held revision but changed (hideBook made the page private): written.
    await engine.hideBook('b');
    expect(stored()).toMatchObject({ visibility: 'private', bookRev: 5 });
    expect((await bulk(put('six again', 6, 5, 'public')))[0]).toMatchObject({ result: 'updated' });
    expect(stored()).toMatchObject({ visibility: 'public', bookRev: 5 });
    // A page not stored: built from `{}` by the script (created); without an upsert: document missing.
    const [created] = await bulk([{ update: { _id: 'b:2' } }, { script: put('new', 0, 0)[1]!.script!, scripted_upsert: true, upsert: {} }]);
    expect(created).toMatchObject({ result: 'created', status: 201 });
    expect(engine.fake.documents('pages').get('b:2')).toEqual({ ...fields, exact: 'new', stemmed: 'new', textRev: 0, bookRev: 0 });
    const [missing] = await bulk([{ update: { _id: 'b:3' } }, { script: put('new', 0, 0)[1]!.script! }]);
    expect(missing).toMatchObject({ status: 404 });
    // A script leaving a document the mapping refuses (here: a page into the listing's index) fails its item.
    const intoBooks = await engine.fake.rawSigned('POST', '/pages-books/_bulk', put('x', 0, 0).map((line) => `${JSON.stringify(line)}\n`).join(''), 'application/x-ndjson');
    const { items } = (await intoBooks.json()) as { items: { update: { status: number; error?: { type: string } } }[] };
    expect(items[0]!.update).toMatchObject({ status: 400, error: { type: 'strict_dynamic_mapping_exception' } });
  });

  it('refuses bodies outside the documented shapes with a 400', async () => {
    const engine = openSearchOverFake();
    await engine.ensureIndex();
    const send = (path: string, body: unknown, query = '') =>
      engine.fake.rawSigned('POST', `${path}${query}`, typeof body === 'string' ? body : JSON.stringify(body), path.endsWith('_bulk') ? 'application/x-ndjson' : 'application/json');
    const valid = { query: { bool: { filter: [], must: [{ match: { exact: { query: 'x', operator: 'and' } } }] } }, track_total_hits: true, from: 0, size: 1, sort, _source: ['bookTextId', 'pageNumber'] };
    expect((await send('/pages/_search', valid)).status).toBe(200);
    const invalid: unknown[] = [
      { ...valid, track_total_hits: 10_000 },
      { ...valid, extra: 1 },
      { ...valid, query: { query_string: { query: 'x OR y' } } },
      { ...valid, query: { bool: { filter: [], must: [{ match: { userId: { query: 'x', operator: 'and' } } }] } } },
      { ...valid, query: { bool: { filter: [{ term: { visibility: 'public' } }], must: valid.query.bool.must } } },
      { ...valid, sort: [{ _score: { order: 'desc' } }] },
      { ...valid, from: 10_000, size: 101 },
      ...[
        [{ match_phrase: { exact: { query: 'x y' } } }],
        [{ constant_score: { filter: { match: { exact: { query: 'x y', operator: 'and' } } }, boost: 1000 } }],
        [{ constant_score: { filter: { match_phrase: { userId: { query: 'x y' } } }, boost: 1000 } }],
        [{ constant_score: { filter: { match_phrase: { exact: { query: 'x y' } } }, boost: -1 } }],
        [{ constant_score: { filter: { match_phrase: { exact: { query: 'x y' } } }, boost: 1000, extra: 1 } }],
        [0, 1].map(() => ({ constant_score: { filter: { match_phrase: { exact: { query: 'x y' } } }, boost: 1000 } })),
      ].map((should) => ({ ...valid, query: { bool: { ...valid.query.bool, should } } })),
    ];
    for (const body of invalid) expect((await send('/pages/_search', body)).status, JSON.stringify(body)).toBe(400);
    const should = [{ constant_score: { filter: { match_phrase: { exact: { query: 'x y' } } }, boost: 1000 } }];
    expect((await send('/pages/_search', { ...valid, query: { bool: { ...valid.query.bool, should } } })).status).toBe(200);
    // Scripts: the adapter's only, by their exact source, their params checked.
    const byQuery = '?conflicts=proceed&refresh=true';
    const script = (source: string, params?: object, mustNot?: unknown[]) => ({
      query: { bool: { filter: [{ term: { bookTextId: { value: 'b' } } }], ...(mustNot && { must_not: mustNot }) } },
      script: { lang: 'painless', source, ...(params && { params }) },
    });
    const fields = { userId: 'u', visibility: 'public', status: 's', language: 'l', bookRev: 1 };
    const notNewer = [{ range: { bookRev: { gt: 1 } } }, { bool: { filter: [{ term: { bookRev: { value: 1 } } }, { term: { userId: { value: 'u' } } }] } }];
    expect((await send('/pages/_update_by_query', script(hideBookScript), byQuery)).status).toBe(200);
    expect((await send('/pages/_update_by_query', script(setBookFieldsScript, fields, notNewer), byQuery)).status).toBe(200);
    const invalidUpdates: unknown[] = [
      script('ctx._source.visibility = params.v;', { v: 'public' }),
      script("ctx._source.visibility = 'public';"),
      script(`${hideBookScript} `),
      script(hideBookScript, { v: 'public' }),
      script(setBookFieldsScript, { ...fields, bookRev: undefined }),
      script(setBookFieldsScript, { ...fields, bookRev: '1' }),
      script(setBookFieldsScript, { ...fields, bookRev: -1 }),
      script(setBookFieldsScript, { ...fields, visibility: 'everyone' }),
      script(setBookFieldsScript, fields, [{ range: { bookRev: { gte: 1 } } }]),
      script(setBookFieldsScript, fields, [{ range: { userId: { gt: 1 } } }]),
      script(setBookFieldsScript, fields, [{ bool: { filter: [{ term: { bookRev: { value: '1' } } }] } }]),
      { ...script(hideBookScript), script: { lang: 'expression', source: hideBookScript } },
    ];
    for (const body of invalidUpdates) expect((await send('/pages/_update_by_query', body, byQuery)).status, JSON.stringify(body)).toBe(400);
    expect((await send('/pages/_update_by_query', script(hideBookScript))).status).toBe(400);
    expect((await send('/pages/_delete_by_query', { query: { match_all: {} } }, byQuery)).status).toBe(400);
    expect((await send('/pages/_bulk', '{"index":{"_id":"b:1"}}\n{"bookTextId":"b"}\n')).status).toBe(400);
    expect((await send('/pages/_bulk', '{"index":{"_id":"b:1"}}\n{}')).status).toBe(400);
    expect((await send('/pages/_bulk', '{"delete":{"_id":"b:1"}}\n')).status).toBe(400);
    expect((await send('/pages/_bulk', '{"update":{"_id":"b:1"}}\n{"doc":{"visibility":"public"}}\n')).status).toBe(400);
    expect((await send('/pages/_bulk', '{"update":{"_id":"b:1","if_seq_no":1}}\n{"script":{"lang":"painless","source":"x"}}\n')).status).toBe(400);
    // A bulk update whose script fails fails that item (OpenSearch: illegal_argument_exception,
    // "failed to execute script"), not the request.
    const updateItem = async (source: string, params: object) => {
      const answer = await send('/pages/_bulk', `{"update":{"_id":"b:9"}}\n${JSON.stringify({ script: { lang: 'painless', source, params }, scripted_upsert: true, upsert: {} })}\n`);
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { items: { update: { status: number; error?: { type: string } } }[] }).items[0]!.update;
    };
    expect(await updateItem('ctx._source.visibility = params.v;', { v: 'public' })).toMatchObject({ status: 400, error: { type: 'illegal_argument_exception' } });
    expect(await updateItem(putBookScript, { entry: {} })).toMatchObject({ status: 400, error: { type: 'illegal_argument_exception' } });
    expect((await send('/other/_search', valid)).status).toBe(404);

    // The listing's index: filters only, `terms` on tags and categories, one keyword sort.
    const books = { query: { bool: { filter: [{ terms: { tags: ['a'] } }] } }, track_total_hits: true, from: 0, size: 1, sort: [{ byName: { order: 'desc' } }], _source: ['bookTextId'] };
    expect((await send('/pages-books/_search', books)).status).toBe(200);
    const invalidBooks: unknown[] = [
      { ...books, sort: [{ byName: { order: 'desc' } }, { bookTextId: { order: 'asc' } }] },
      { ...books, sort: [{ tags: { order: 'asc' } }] },
      { ...books, sort: [{ _score: { order: 'desc' } }] },
      { ...books, sort: [{ byName: 'desc' }] },
      { ...books, _source: ['bookTextId', 'tags'] },
      { ...books, track_total_hits: 10_000 },
      { ...books, from: 10_000, size: 101 },
      { ...books, query: { bool: { filter: [{ terms: { tags: [] } }] } } },
      { ...books, query: { bool: { filter: [{ terms: { userId: ['a'] } }] } } },
      { ...books, query: { bool: { filter: [{ terms: { tags: 'a' } }] } } },
      { ...books, query: { bool: { filter: [{ wildcard: { tags: 'a*' } }] } } },
      { ...books, query: { bool: { filter: [], must_not: [] } } },
      { ...valid, query: { bool: { filter: [{ terms: { tags: ['a'] } }], must: valid.query.bool.must } } },
    ];
    for (const body of invalidBooks) expect((await send('/pages-books/_search', body)).status, JSON.stringify(body)).toBe(400);
    // A sort on a field the index does not map as a keyword.
    expect((await send('/pages/_search', books)).status).toBe(400);
    const entry = JSON.stringify({ bookTextId: 'b', userId: 'u', visibility: 'public', status: 's', language: 'l', tags: ['t'], categories: [], byDate: 'd#b', byName: 'n#b', byPages: 'p#b' });
    const bulkOf = (doc: string) => send('/pages-books/_bulk', `{"index":{"_id":"b"}}\n${doc}\n`);
    const errors = async (answer: Promise<Response>) => ((await (await answer).json()) as { errors: boolean }).errors;
    expect(await errors(bulkOf(entry))).toBe(false);
    expect((await bulkOf(entry.replace('"tags":["t"]', '"tags":"t"'))).status).toBe(400);
    expect((await bulkOf(entry.replace('"tags":["t"]', '"tags":[""]'))).status).toBe(400);
    // An immense keyword (over 32,766 bytes) is refused, as Lucene refuses it.
    expect(await errors(bulkOf(entry.replace('"tags":["t"]', `"tags":["${'ب'.repeat(16_384)}"]`)))).toBe(true);
    // A page into the listing's index, or an entry into the pages', breaks the strict mapping.
    expect(await errors(send('/pages/_bulk', `{"index":{"_id":"b"}}\n${entry}\n`))).toBe(true);

    // A forgiving search: a filter of a bool of matches with minimum_should_match, a dis_max of up to five groups.
    const match = (query: string, operator = 'or') => ({ match: { stemmed: { query, operator } } });
    const words = { bool: { should: [match('x y')], minimum_should_match: 1 } };
    const phrase = { match_phrase: { exact: { query: 'x y' } } };
    const boosted = (filter: unknown, boost: number) => ({ constant_score: { filter, boost } });
    const groups = [
      { bool: { must: [boosted(phrase, 20_000)], should: [match('x y')] } },
      { bool: { must: [boosted({ bool: { should: [phrase], minimum_should_match: 1 } }, 15_000)], should: [match('x y')] } },
      { bool: { must: [boosted({ match_all: {} }, 10_000), match('x', 'and')] } },
      { bool: { must: [boosted({ match_all: {} }, 5_000), match('x y')] } },
      words,
    ];
    const disMax = (queries: unknown[], more: object = {}) => ({ dis_max: { queries, tie_breaker: 0, ...more } });
    const forgiving = (filter: unknown, must: unknown = disMax(groups), should?: unknown[]) => ({ ...valid, query: { bool: { filter: [filter], must: [must], ...(should && { should }) } } });
    expect((await send('/pages/_search', forgiving(words))).status).toBe(200);
    expect((await send('/pages/_search', forgiving(words, disMax([words])))).status).toBe(200);
    const invalidForgiving: unknown[] = [
      forgiving(words, disMax([...groups, groups[0]])),
      forgiving(words, disMax([])),
      forgiving(words, groups[0]),
      forgiving(words, disMax(groups), [disMax(groups)]),
      forgiving(words, disMax(groups, { tie_breaker: 0.5 })),
      forgiving(words, { dis_max: { queries: groups } }),
      forgiving({ bool: { ...words.bool, minimum_should_match: 0 } }),
      forgiving({ bool: { ...words.bool, minimum_should_match: '50%' } }),
      forgiving({ bool: { should: words.bool.should } }),
      forgiving({ bool: { should: [phrase], minimum_should_match: 1 } }),
      forgiving({ bool: { ...words.bool, must: words.bool.should } }),
      forgiving(words, words),
      forgiving(words, disMax([{ bool: { must: [boosted({ bool: { should: [phrase], minimum_should_match: 2 } }, 1)] } }])),
      forgiving(words, disMax([{ bool: { must: [boosted({ bool: { must: [phrase] } }, 1)] } }])),
      forgiving(words, disMax([{ bool: { must: [boosted(words, 1)] } }])),
      forgiving(words, disMax([{ bool: { must: [boosted({ match: { userId: { query: 'x', operator: 'and' } } }, 1)] } }])),
      forgiving(words, disMax([{ bool: { must: [match('x'), boosted(phrase, 1)] } }])),
      forgiving(words, disMax([{ bool: { must: [boosted(phrase, 1)], should: [phrase] } }])),
      forgiving(words, disMax([{ bool: { must: [boosted({ match_all: { boost: 2 } }, 1)] } }])),
      forgiving(words, disMax([boosted(phrase, 1)])),
      // A plain query takes the phrase group only, and its must no filter of words.
      { ...valid, query: { bool: { filter: [], must: valid.query.bool.must, should: [groups[0]] } } },
      { ...valid, query: { bool: { filter: [], must: valid.query.bool.must, should: [disMax([groups[0]])] } } },
      { ...valid, query: { bool: { filter: [words], must: valid.query.bool.must } } },
    ];
    for (const body of invalidForgiving) expect((await send('/pages/_search', body)).status, JSON.stringify(body)).toBe(400);

    // The filed terms' index: create actions of a term and its keys, a search by keys sorted by term.
    const term = (t: string, keys = [t]) => `{"create":{"_id":"${t}"}}\n${JSON.stringify({ term: t, keys })}\n`;
    const terms = { query: { bool: { filter: [{ terms: { keys: ['abc'] } }] } }, size: 2_000, sort: [{ term: { order: 'asc' } }], _source: ['term'] };
    expect(await errors(send('/pages-terms/_bulk', term('abc')))).toBe(false);
    expect((await send('/pages-terms/_search', terms)).status).toBe(200);
    const invalidTerms: unknown[] = [
      { ...terms, from: 0 },
      { ...terms, size: 10_001 },
      { ...terms, track_total_hits: true },
      { ...terms, sort: [{ term: { order: 'desc' } }] },
      { ...terms, sort: [{ term: 'asc' }] },
      { ...terms, sort: [{ keys: { order: 'asc' } }] },
      { ...terms, _source: ['term', 'keys'] },
      { ...terms, query: { bool: { filter: [{ terms: { keys: [] } }] } } },
      { ...terms, query: { bool: { filter: [{ terms: { term: ['abc'] } }] } } },
      { ...terms, query: { bool: { filter: [{ terms: { keys: ['abc'] } }, { terms: { keys: ['abd'] } }] } } },
      { ...terms, query: { bool: { filter: [{ term: { keys: { value: 'abc' } } }] } } },
    ];
    for (const body of invalidTerms) expect((await send('/pages-terms/_search', body)).status, JSON.stringify(body)).toBe(400);
    expect((await send('/pages-terms/_bulk', '{"create":{"_id":"abd","if_seq_no":1}}\n{"term":"abd","keys":["abd"]}\n')).status).toBe(400);
    expect((await send('/pages-terms/_bulk', term('abd', []))).status).toBe(400);
    expect((await send('/pages-terms/_bulk', '{"create":{"_id":"abd"}}\n{"term":"abd","keys":"abd"}\n')).status).toBe(400);
    // A term into the pages' index breaks its strict mapping; the terms' index takes no page.
    expect(await errors(send('/pages/_bulk', term('abd')))).toBe(true);
    expect(await errors(send('/pages-terms/_bulk', `{"create":{"_id":"b"}}\n${entry}\n`))).toBe(true);
  });

  it('answers a create of an id there 409 (version_conflict_engine_exception), as OpenSearch does, and leaves the document', async () => {
    const engine = openSearchOverFake();
    await engine.ensureIndex();
    const body = (keys: string[]) => `{"create":{"_id":"moon"}}\n${JSON.stringify({ term: 'moon', keys })}\n`;
    const items = async (keys: string[]) => {
      const answer = await engine.fake.rawSigned('POST', '/pages-terms/_bulk', body(keys), 'application/x-ndjson');
      expect(answer.status).toBe(200);
      return (await answer.json()) as { errors: boolean; items: { create: { status: number; result?: string; error?: { type: string } } }[] };
    };
    expect(await items(['moon'])).toMatchObject({ errors: false, items: [{ create: { status: 201, result: 'created' } }] });
    expect(await items(['other'])).toMatchObject({ errors: true, items: [{ create: { status: 409, error: { type: 'version_conflict_engine_exception' } } }] });
    expect(engine.fake.documents('pages-terms').get('moon')).toEqual({ term: 'moon', keys: ['moon'] });
  });
});

/**
 * Behaviour through the SearchEngine port only, so these cases can run against any engine (the shared
 * contract suite will take them over). `make` gives a fresh, empty engine.
 */
function describeBehaviour(name: string, make: () => SearchEngine) {
  describe(`${name}: behaviour`, () => {
    const mine = book('bt-a', { userId: 'owner', visibility: 'private' });
    const theirs = book('bt-b', { userId: 'other', visibility: 'public' });
    const arabic = book('bt-c', { userId: 'other', visibility: 'public', language: 'ar' });

    const seeded = async () => {
      const engine = make();
      await engine.putPages([
        page(mine, 1, 'the cats sat on the mat', 'the cat sat on the mat'),
        page(mine, 2, 'a cat and a dog', 'a cat and a dog'),
        page(theirs, 1, 'the mat sat on the cats', 'the mat sat on the cat'),
        page(theirs, 2, 'dogs run', 'dog run'),
        page(arabic, 1, 'قال الكاتب كتب', 'قال كتب كتب'),
      ]);
      return engine;
    };

    it('matches a phrase as consecutive terms in the field', async () => {
      const engine = await seeded();
      expect(ids(await engine.search(query({ mode: 'phrase', field: 'exact', terms: ['sat', 'on'] })))).toEqual(['bt-a:1', 'bt-b:1']);
      expect(ids(await engine.search(query({ mode: 'phrase', field: 'exact', terms: ['cats', 'sat'] })))).toEqual(['bt-a:1']);
      expect(await engine.search(query({ mode: 'phrase', field: 'exact', terms: ['cat', 'sat'] }))).toEqual({ total: 0, hits: [] });
      expect(ids(await engine.search(query({ mode: 'phrase', field: 'stemmed', terms: ['cat', 'sat'] })))).toEqual(['bt-a:1']);
    });

    it('matches all terms or any term, in the chosen field', async () => {
      const engine = await seeded();
      expect(ids(await engine.search(query({ mode: 'all', terms: ['cat', 'mat'] })))).toEqual(['bt-a:1', 'bt-b:1']);
      expect((await engine.search(query({ mode: 'all', terms: ['cat', 'dog'] }))).total).toBe(1);
      expect((await engine.search(query({ mode: 'all', field: 'exact', terms: ['cat', 'dog'] }))).total).toBe(1);
      expect((await engine.search(query({ mode: 'any', terms: ['dog', 'mat'] }))).total).toBe(4);
      expect((await engine.search(query({ mode: 'any', field: 'exact', terms: ['dog'] }))).total).toBe(1);
    });

    it('ranks by BM25: rarer terms and more occurrences first', async () => {
      const engine = await seeded();
      // "run" is in one page, "cat" in three: the page with the rare term comes first.
      expect(ids(await engine.search(query({ mode: 'any', terms: ['run', 'cat'] })))[0]).toBe('bt-b:2');
      // كتب twice in one page.
      const engine2 = make();
      await engine2.putPages([page(arabic, 1, 'كتب قال قال'), page(arabic, 2, 'كتب كتب قال'), page(arabic, 3, 'قال')]);
      expect(ids(await engine2.search(query({ mode: 'any', terms: ['كتب'] })))).toEqual(['bt-c:2', 'bt-c:1']);
    });

    it('applies the views and counts exactly', async () => {
      const engine = await seeded();
      const cat = (view: PageQuery['view']) => engine.search(query({ mode: 'any', terms: ['cat', 'كتب'], view }));
      expect(ids(await cat({ kind: 'all' }))).toHaveLength(4);
      expect((await cat({ kind: 'public' })).hits.every((h) => h.bookTextId !== 'bt-a')).toBe(true);
      expect((await cat({ kind: 'public' })).total).toBe(2);
      expect((await cat({ kind: 'publicAndOwn', ownerId: 'owner' })).total).toBe(4);
      expect((await cat({ kind: 'publicAndOwn', ownerId: 'nobody' })).total).toBe(2);
      expect((await engine.search(query({ mode: 'any', terms: ['cat', 'كتب'], language: 'ar' }))).total).toBe(1);
      expect(ids(await engine.search(query({ mode: 'any', terms: ['cat'], bookTextId: 'bt-a' })))).toEqual(['bt-a:2', 'bt-a:1']);
    });

    it('counts every match however small the page, and pages through them in order', async () => {
      const engine = make();
      const b = book('bt-p');
      const c = book('bt-o');
      // Identical pages score alike: ties go by bookTextId, then pageNumber.
      await engine.putPages([...Array.from({ length: 120 }, (_, i) => page(b, i + 1, 'same words')), page(c, 7, 'same words'), page(c, 3, 'same words')]);
      const first = await engine.search(query({ terms: ['same'], limit: 3 }));
      expect(first.total).toBe(122);
      expect(ids(first)).toEqual(['bt-o:3', 'bt-o:7', 'bt-p:1']);
      const later = await engine.search(query({ terms: ['same'], limit: 100, offset: 100 }));
      expect(later.total).toBe(122);
      expect(ids(later)).toEqual(Array.from({ length: 22 }, (_, i) => `bt-p:${i + 99}`));
      expect(await engine.search(query({ terms: ['same'], limit: 100, offset: 10_000 }))).toEqual({ total: 122, hits: [] });
    });

    it('replaces a page put again', async () => {
      const engine = await seeded();
      await engine.putPages([page(theirs, 2, 'cats run', 'cat run')]);
      expect((await engine.search(query({ terms: ['dog'] }))).total).toBe(1);
      expect(ids(await engine.search(query({ terms: ['cat', 'run'] })))).toEqual(['bt-b:2']);
    });

    it('copies changed book fields to every page of the book', async () => {
      const engine = await seeded();
      await engine.setBookFields('bt-a', { userId: 'owner', visibility: 'public', status: 'completed', language: 'en' });
      expect((await engine.search(query({ terms: ['cat'], view: { kind: 'public' } }))).total).toBe(3);
      await engine.setBookFields('bt-b', { userId: 'other', visibility: 'private', status: 'completed', language: 'fr' });
      expect(ids(await engine.search(query({ terms: ['cat'], view: { kind: 'public' } })))).toEqual(['bt-a:2', 'bt-a:1']);
      expect((await engine.search(query({ terms: ['cat'], language: 'fr' }))).total).toBe(1);
      await engine.setBookFields('missing', { userId: 'x', visibility: 'public', status: 'completed', language: 'en' });
    });

    it('removes a book’s pages only', async () => {
      const engine = await seeded();
      await engine.removeBook('bt-a');
      expect(ids(await engine.search(query({ mode: 'any', terms: ['cat', 'dog'] })))).toEqual(expect.not.arrayContaining(['bt-a:1', 'bt-a:2']));
      expect((await engine.search(query({ mode: 'any', terms: ['cat', 'dog'] }))).total).toBe(2);
      await engine.removeBook('bt-a');
    });
  });
}

describeBehaviour('OpenSearch over the fake', () => openSearchOverFake());
describeSearchEngine('OpenSearch over the fake', async () => openSearchOverFake());

it('keeps max_result_window at the deepest page the port allows', () => {
  expect(maxResultWindow).toBe(10_000 + 100);
});
