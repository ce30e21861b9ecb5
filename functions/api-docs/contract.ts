import * as v from 'valibot';
import { binaryAnswer, contracts, jsonAnswer } from '../_shared/contract/contract.ts';
import { messageErrorAnswer } from '../_shared/contract/shapes.ts';

/** The API's own description (issue 15): the document and the reference page that renders it. */

/** The reference page's files, by the name in its path, with their types: nothing else is served. */
export const docsAssets = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'init.js': 'text/javascript; charset=utf-8',
} as const;
export type DocsAsset = keyof typeof docsAssets;

/** Each route's 500 text (its contract's `failure`). */
const documentFailed = 'Error building the API document';
const pageFailed = 'Error serving the reference page';

export const apiDocsContracts = contracts({
  'GET /openapi.json': {
    tag: 'Reference',
    summary: 'This OpenAPI document',
    failure: documentFailed,
    description: 'OpenAPI 3.1, generated from the route table and each route’s contract.',
    responses: { 200: jsonAnswer('The document.', v.looseObject({ openapi: v.literal('3.1.0'), info: v.looseObject({ title: v.string(), version: v.string() }), paths: v.record(v.string(), v.unknown()) })) },
  },
  'GET /docs': {
    tag: 'Reference',
    summary: 'The reference page',
    failure: pageFailed,
    description: 'An HTML page (Swagger UI, served by this API: no CDN) that renders this document.',
    responses: { 200: binaryAnswer('The page.', 'text/html') },
  },
  'GET /docs/{asset}': {
    tag: 'Reference',
    summary: 'A file of the reference page',
    failure: pageFailed,
    params: v.object({ asset: v.pipe(v.picklist(Object.keys(docsAssets) as [DocsAsset, ...DocsAsset[]]), v.description('The file’s name.')) }),
    responses: {
      200: [binaryAnswer('A style sheet.', 'text/css'), binaryAnswer('A script.', 'text/javascript')],
      404: messageErrorAnswer('`Not Found`: no such file.'),
    },
  },
});

