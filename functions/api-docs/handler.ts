import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { once, onceAsync } from '../../lib/lazy.ts';
import { apiDocsContracts, docsAssets, type DocsAsset } from './contract.ts';
import { openApiDocument } from '../_shared/contract/document.ts';
import { httpFunction } from '../_shared/http/handler.ts';
import { json, type HttpResult } from '../_shared/http/responses.ts';

/**
 * `api-docs` (issue 15): the OpenAPI document and its reference page, Swagger UI, served by the API
 * itself so that nothing is fetched from a CDN. The page's files ship beside the bundle in `docs/`
 * (infra/bundle.ts copies them); run from source, they are read from the `swagger-ui-dist` package.
 */

const document = once(() => JSON.stringify(openApiDocument()));

/** The page: Swagger UI's files from this API, the document from `openapi.json` beside it. */
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Maktaba API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

/** No inline script, so the page can forbid every script but its own. */
const init = `window.ui = SwaggerUIBundle({
  url: new URL('openapi.json', window.location.href).href,
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  validatorUrl: null,
  tryItOutEnabled: false,
});
`;

const here = path.dirname(fileURLToPath(import.meta.url));

/** Where Swagger UI's files are: beside the bundle when deployed, else in node_modules. */
const assetDir = onceAsync(async () => {
  const beside = path.join(here, 'docs');
  try {
    await access(path.join(beside, 'swagger-ui.css'));
    return beside;
  } catch {
    return path.dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
  }
});

/** Each file read once per container; a failed read is tried again by the next request (onceAsync). */
const fileOf = (name: string) => onceAsync(async () => readFile(path.join(await assetDir(), name), 'utf8'));
const assetText: Record<DocsAsset, () => Promise<string>> = {
  'swagger-ui.css': fileOf('swagger-ui.css'),
  'swagger-ui-bundle.js': fileOf('swagger-ui-bundle.js'),
  'init.js': async () => init,
};

const cached = (contentType: string, body: string, maxAge: number): HttpResult => ({
  statusCode: 200,
  headers: { 'content-type': contentType, 'cache-control': `public, max-age=${maxAge}` },
  body,
});

/** The page runs only its own scripts and reads only this API. */
const pageSecurity = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

export const handler = httpFunction({
  name: 'api-docs',
  contracts: apiDocsContracts,
  handlers: {
    'GET /openapi.json': { run: async () => cached('application/json; charset=utf-8', document(), 300) },
    'GET /docs': {
      run: async () => {
        const answer = cached('text/html; charset=utf-8', page, 300);
        return { ...answer, headers: { ...answer.headers, ...pageSecurity } };
      },
    },
    'GET /docs/{asset}': {
      run: async (request) => {
        const name = request.params.asset ?? '';
        if (!Object.hasOwn(docsAssets, name)) return json(404, { message: 'Not Found' });
        return cached(docsAssets[name as DocsAsset], await assetText[name as DocsAsset](), 86_400);
      },
    },
  },
});
