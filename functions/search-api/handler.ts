import { dynamoBookTextStore } from '../../lib/adapters/dynamo/book-texts.ts';
import { dynamoPageStore } from '../../lib/adapters/dynamo/book-text-pages.ts';
import { once, onFirstUse } from '../../lib/lazy.ts';
import type { SearchEngine } from '../../lib/search/engine.ts';
import { searchBookText, searchCatalogue } from '../../lib/search/search.ts';
import { searchEngine } from '../_shared/adapters/search.ts';
import { searchContracts } from './contract.ts';
import { deps as coreDeps } from '../_shared/deps.ts';
import { httpFunction } from '../_shared/http/handler.ts';

/** `search-api` (issue 17): full-text search of digitized books, across the catalogue or in one book. */
const deps = once(() => {
  const core = coreDeps();
  return {
    ...core,
    bookTexts: dynamoBookTextStore(core.db),
    pages: dynamoPageStore(core.db),
    engine: onFirstUse<SearchEngine>(searchEngine),
  };
});

export const handler = httpFunction({
  name: 'search-api',
  authDeps: deps,
  contracts: searchContracts,
  handlers: {
    'GET /ocr/search': {
      run: (request) => searchCatalogue(deps(), request.caller, request.query),
    },
    'GET /ocr/books/{bookTextId}/search': {
      run: (request) => searchBookText(deps(), request.caller, request.params.bookTextId, request.query),
    },
  },
});
