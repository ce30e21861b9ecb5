import { dynamoBookTextStore } from '../../lib/adapters/dynamo/book-texts.ts';
import { dynamoPageStore } from '../../lib/adapters/dynamo/book-text-pages.ts';
import { docxContentType } from '../../lib/ocr/export/rules.ts';
import { exportDocx, type ExportResult } from '../../lib/ocr/export/export.ts';
import { once } from '../../lib/lazy.ts';
import { deps as coreDeps } from '../_shared/deps.ts';
import { bucketObjects } from '../_shared/buckets.ts';
import { ocrExportContracts } from './contract.ts';
import { httpFunction, signedIn } from '../_shared/http/handler.ts';
import type { HttpResult } from '../_shared/http/responses.ts';

/** `ocr-export` (docs/DESIGN.md section 1): the Word export, the one function that carries the docx library. */
const deps = once(() => {
  const core = coreDeps();
  return { ...core, bookTexts: dynamoBookTextStore(core.db), pages: dynamoPageStore(core.db), uploads: bucketObjects(core.config.uploadsBucket) };
});

/**
 * The document as API Gateway returns binary (base64 with the flag set), or, when it is too large for
 * a Lambda response, 303 See Other to a short-lived download URL: 303 says "fetch this other
 * resource with GET", which is exactly what the client must do, and clients follow it as they do 302.
 */
function respond(result: ExportResult): HttpResult {
  // A private book's text, and a URL that grants it: no shared cache keeps either.
  const noStore = { 'cache-control': 'private, no-store' };
  if (result.kind === 'stored') {
    return {
      statusCode: 303,
      headers: { ...noStore, location: result.url, 'content-type': 'application/json; charset=utf-8' },
      // For clients that do not follow redirects; the URL's response names the file itself.
      body: JSON.stringify({ success: true, url: result.url }),
    };
  }
  return {
    statusCode: 200,
    headers: { ...noStore, 'content-type': docxContentType, 'content-disposition': result.contentDisposition },
    body: Buffer.from(result.bytes).toString('base64'),
    isBase64Encoded: true,
  };
}

export const handler = httpFunction({
  name: 'ocr-export',
  authDeps: deps,
  contracts: ocrExportContracts,
  handlers: {
    'GET /ocr/books/{bookTextId}/export/docx': {
      run: async (request) => respond(await exportDocx(deps(), signedIn(request), request.params.bookTextId ?? '', request.query)),
    },
  },
});
