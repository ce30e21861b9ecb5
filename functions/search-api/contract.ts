import * as v from 'valibot';
import { maxOffset } from '../../lib/paging.ts';
import { analyze } from '../../lib/search/analysis.ts';
import { defaultSearchMode, maxForgivenWords, maxQueryLength, maxSearchHits, maxQueryWords, queryRequired, queryTooLong, queryTooManyWords, queryWithoutWords, searchModes } from '../../lib/search/query.ts';
import { matcherFor, snippet } from '../../lib/search/snippet.ts';
import { contracts, jsonAnswer } from '../_shared/contract/contract.ts';
import { badRequestAnswer, bothLanguages, sampleIds as ids, type Sample } from '../_shared/contract/ocr-shapes.ts';
import { listOffset, objectId, ocrErrorAnswer, pathId, queryChoice, queryNumber, queryText } from '../_shared/contract/shapes.ts';

/** `search-api` (issue 17; docs/interface.md, "Search"): full-text search of digitized books, beyond docs/SPEC.md. */

const q = v.optional(
  v.pipe(
    v.string(),
    v.description(
      `The words to find, at most ${maxQueryLength} characters and ${maxQueryWords} words. Diacritics, tatweel, alef and yeh forms, presentation forms and Arabic-Indic digits do not matter; Arabic and English words also match their light stems (Light10, Porter). Unless it is a phrase, the search forgives what OCR does to print: a word is also found as an indexed word a letter or two away (letters of one shape, told apart by dots or a hamza's seat, count half) or run together with the next, and up to ${maxForgivenWords} words a page may lack one; pages holding the words as typed, in order, come first. Wholly in double quotes: a phrase, matched exactly.`,
    ),
  ),
);
const mode = queryChoice(
  searchModes,
  defaultSearchMode,
  `\`all\`: pages with every word (stemmed, or as an OCR variant), or all but one of 2 to ${maxForgivenWords} words, those with every word first; \`any\`: pages with at least one; \`phrase\`: the words in this order (unstemmed), exactly. Any other value reads as \`${defaultSearchMode}\`.`,
);
const limit = queryNumber('limit', {
  fallback: maxSearchHits,
  min: 1,
  max: maxSearchHits,
  over: 'clamp',
  description: `Hits per page: a whole number, at most ${maxSearchHits} (larger values read as ${maxSearchHits}: each hit reads its whole page); anything else reads as ${maxSearchHits}.`,
});
const searchQuery = { q, mode, limit, offset: listOffset };

const snippetText = v.pipe(
  v.string(),
  v.description('Up to 200 characters of the page around the matches, HTML-escaped, each matching word in `<mark>…</mark>`; `…` where the page was cut.'),
);
const Forgiven = v.pipe(
  v.strictObject({
    approximate: v.pipe(
      v.array(v.strictObject({ word: v.string(), found: v.string() })),
      v.description('Words found only as an OCR variant or run together with the next: each as typed, and the first such word of the page as written there.'),
    ),
    missing: v.pipe(v.array(v.string()), v.description('Words not on the page, as typed (a page may lack one word of a query of 2 to 8 words).')),
  }),
  v.title('Forgiven'),
  v.description(
    'Only on a hit of an all-words or any-word search whose page does not hold every word as typed (in any inflection): what the search forgave. Absent otherwise, and never on a phrase search.',
  ),
);
const CatalogueHit = v.pipe(
  v.strictObject({
    bookTextId: objectId,
    fileName: v.nullable(v.string()),
    language: v.string(),
    pageNumber: v.number(),
    snippet: snippetText,
    forgiven: v.optional(Forgiven),
  }),
  v.title('CatalogueHit'),
);
const PageHit = v.pipe(v.strictObject({ pageNumber: v.number(), snippet: snippetText, forgiven: v.optional(Forgiven) }), v.title('PageHit'));
export const searchSchemas = { CatalogueHit, PageHit, Forgiven };

/** The examples' query: a word of the sample's first page, found by the same analysis as a request's. */
const sampleQuery = { english: 'intentions', arabic: 'النيات' } as const;
const exampleSnippet = (x: Sample) => {
  const words = sampleQuery[x.language === 'ar' ? 'arabic' : 'english'];
  return snippet(x.pages[0], matcherFor('stemmed', analyze(words).stemmed));
};

const refusedQuery = `\`${queryRequired}\`, \`${queryTooLong}\`, \`${queryWithoutWords}\`, \`${queryTooManyWords}\`, \`offset must be at most ${maxOffset}\``;

/** Each route's 500 text (its contract's `failure`). */
const searchFailed = 'Error searching books';
const bookSearchFailed = 'Error searching book';

export const searchContracts = contracts({
  'GET /ocr/search': {
    tag: 'Search',
    summary: 'Search the catalogue',
    failure: searchFailed,
    description:
      'Pages of the books the caller may list, best first: anonymous callers search public books, members public books and their own, editors and admins all (the rules of `GET /ocr/books`). Each hit’s book is checked against the table as the answer is made, so a book made private is never shown to others, even before the index has caught up; `total` is the index’s count, less this window’s hits not shown.',
    query: v.object({ ...searchQuery, language: queryText('Only books in this language.') }),
    responses: {
      200: jsonAnswer(
        'One page of hits.',
        v.strictObject({ success: v.literal(true), total: v.number(), limit: v.number(), offset: v.number(), hits: v.array(CatalogueHit) }),
        bothLanguages((x) => ({
          success: true,
          total: 1,
          limit: 20,
          offset: 0,
          hits: [{ bookTextId: ids.bookTextId, fileName: x.fileName, language: x.language, pageNumber: 1, snippet: exampleSnippet(x) }],
        })),
      ),
      400: badRequestAnswer(refusedQuery),
      500: ocrErrorAnswer(`\`${searchFailed}\`.`),
    },
  },
  'GET /ocr/books/{bookTextId}/search': {
    tag: 'Search',
    summary: 'Search one digitized book',
    failure: bookSearchFailed,
    description:
      'Pages of one book, best first. Readable as `GET /ocr/books/{bookTextId}` is: public books by anyone, private ones by the owner, editors and admins. A malformed id is a 500 (docs/SPEC.md 7).',
    params: v.object({ bookTextId: pathId('The BookText’s ObjectId.') }),
    query: v.object(searchQuery),
    responses: {
      200: jsonAnswer(
        'One page of hits.',
        v.strictObject({ success: v.literal(true), bookTextId: objectId, total: v.number(), limit: v.number(), offset: v.number(), hits: v.array(PageHit) }),
        bothLanguages((x) => ({ success: true, bookTextId: ids.bookTextId, total: 1, limit: 20, offset: 0, hits: [{ pageNumber: 1, snippet: exampleSnippet(x) }] })),
      ),
      400: badRequestAnswer(refusedQuery),
      403: ocrErrorAnswer('`Unauthorized to view this book`: a private book of another user.'),
      404: ocrErrorAnswer('`Book not found`.'),
      500: ocrErrorAnswer(`\`${bookSearchFailed}\`: a malformed id (\`Invalid bookText id: <id>\`), or the search failed.`),
    },
  },
});
