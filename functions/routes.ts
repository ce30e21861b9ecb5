/**
 * The route table: the one list of HTTP routes. The CDK stack creates API Gateway routes from it,
 * the local server dispatches from it, and each function's handler dispatches on its route keys.
 * Paths use API Gateway's `{param}` syntax. It imports nothing so that infra code can read it.
 */
export type FunctionName = 'notifications-api' | 'ocr-api' | 'ocr-callbacks' | 'ocr-export' | 'billing-webhook' | 'audio-api' | 'api-docs' | 'search-api' | 'health';

/**
 * How the caller is resolved before the route runs (docs/SPEC.md section 5):
 * - `none`: no token is read.
 * - `required`: 401 without a token, 403 for an invalid one, plain-text 404 when the user is gone.
 * - `optional`: anonymous without a token; an invalid token is 403.
 * - `optional-lenient`: anonymous without a token or with an invalid one.
 * - `editor`: `required`, then 403 unless the stored role is editor or admin.
 * - `admin`: `required`, then 403 unless the stored role is admin (an editor too is refused).
 */
export type AuthMode = 'none' | 'required' | 'optional' | 'optional-lenient' | 'editor' | 'admin';

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  function: FunctionName;
  auth: AuthMode;
  /**
   * Also takes a job credential (lib/auth/job-credentials.ts) in place of a token: the OCR worker's
   * calls for the one job it names. Not in docs/SPEC.md: an addition (docs/ocr-worker.md, "Connecting an OCR worker").
   */
  jobCredential?: true;
}

export const routes: readonly Route[] = [
  { method: 'POST', path: '/ocr', function: 'ocr-api', auth: 'required' },
  // Not in docs/SPEC.md: the presigned path for files too large for a Lambda request (docs/interface.md, "Large files: the presigned upload").
  { method: 'POST', path: '/ocr/uploads', function: 'ocr-api', auth: 'required' },
  { method: 'POST', path: '/ocr/uploads/{uploadId}/job', function: 'ocr-api', auth: 'required' },
  { method: 'GET', path: '/ocr/status/{jobId}', function: 'ocr-api', auth: 'required', jobCredential: true },
  { method: 'GET', path: '/ocr/text/{jobId}', function: 'ocr-api', auth: 'required' },
  { method: 'GET', path: '/ocr/jobs', function: 'ocr-api', auth: 'required' },
  { method: 'GET', path: '/ocr/books', function: 'ocr-api', auth: 'optional' },
  { method: 'GET', path: '/ocr/books/{bookTextId}', function: 'ocr-api', auth: 'optional' },
  // Not in docs/SPEC.md: full-text search (docs/interface.md, "Search").
  { method: 'GET', path: '/ocr/search', function: 'search-api', auth: 'optional' },
  { method: 'GET', path: '/ocr/books/{bookTextId}/search', function: 'search-api', auth: 'optional' },
  { method: 'PATCH', path: '/ocr/books/{bookTextId}', function: 'ocr-api', auth: 'required' },
  { method: 'POST', path: '/ocr/books/{bookTextId}/import', function: 'ocr-api', auth: 'required' },
  // Not in docs/SPEC.md: one page read again by the OCR worker (issue 33; docs/interface.md, "Reading a page again").
  { method: 'POST', path: '/ocr/books/{bookTextId}/pages/{pageNumber}/reread', function: 'ocr-api', auth: 'required' },
  { method: 'GET', path: '/ocr/books/{bookTextId}/export/docx', function: 'ocr-export', auth: 'required' },
  { method: 'POST', path: '/ocr/result/page', function: 'ocr-callbacks', auth: 'editor', jobCredential: true },
  { method: 'POST', path: '/ocr/result', function: 'ocr-callbacks', auth: 'editor', jobCredential: true },
  { method: 'GET', path: '/audio/voices', function: 'audio-api', auth: 'none' },
  { method: 'GET', path: '/audio/fields', function: 'audio-api', auth: 'none' },
  { method: 'POST', path: '/audio/{bookId}/generate', function: 'audio-api', auth: 'editor' },
  { method: 'GET', path: '/audio/jobs/{jobId}', function: 'audio-api', auth: 'editor' },
  { method: 'GET', path: '/audio/jobs', function: 'audio-api', auth: 'editor' },
  { method: 'GET', path: '/audio/{bookId}/lines-with-audio', function: 'audio-api', auth: 'optional-lenient' },
  { method: 'POST', path: '/audio/{bookId}/lines/{lineId}/batch', function: 'audio-api', auth: 'editor' },
  { method: 'POST', path: '/audio/{bookId}/lines/{lineId}/{field}', function: 'audio-api', auth: 'editor' },
  { method: 'GET', path: '/audio/{bookId}/lines/{lineId}/{field}/stream', function: 'audio-api', auth: 'optional-lenient' },
  { method: 'GET', path: '/audio/{bookId}/lines/{lineId}/{field}/url', function: 'audio-api', auth: 'optional-lenient' },
  { method: 'GET', path: '/audio/{bookId}/lines/{lineId}', function: 'audio-api', auth: 'optional-lenient' },
  { method: 'DELETE', path: '/audio/{bookId}/lines/{lineId}/{field}', function: 'audio-api', auth: 'editor' },
  { method: 'DELETE', path: '/audio/{bookId}/lines/{lineId}', function: 'audio-api', auth: 'editor' },
  { method: 'DELETE', path: '/audio/{bookId}', function: 'audio-api', auth: 'editor' },
  { method: 'GET', path: '/audio/{bookId}/all', function: 'audio-api', auth: 'optional-lenient' },
  { method: 'POST', path: '/notifications/device-token', function: 'notifications-api', auth: 'required' },
  { method: 'DELETE', path: '/notifications/device-token', function: 'notifications-api', auth: 'required' },
  { method: 'GET', path: '/notifications', function: 'notifications-api', auth: 'required' },
  { method: 'GET', path: '/notifications/unread-count', function: 'notifications-api', auth: 'required' },
  { method: 'PUT', path: '/notifications/read-all', function: 'notifications-api', auth: 'required' },
  { method: 'PUT', path: '/notifications/{id}/read', function: 'notifications-api', auth: 'required' },
  // Not in docs/SPEC.md: how admin messages and announcements are made (docs/interface.md, "Admin messages and announcements").
  { method: 'POST', path: '/notifications/announcements', function: 'notifications-api', auth: 'admin' },
  { method: 'POST', path: '/billing/webhook', function: 'billing-webhook', auth: 'none' },
  // Not in docs/SPEC.md: the API describes itself (issue 15; docs/interface.md, "The API document").
  { method: 'GET', path: '/openapi.json', function: 'api-docs', auth: 'none' },
  { method: 'GET', path: '/docs', function: 'api-docs', auth: 'none' },
  { method: 'GET', path: '/docs/{asset}', function: 'api-docs', auth: 'none' },
  // Not in docs/SPEC.md: whether each store answers, for monitors (issue 29; docs/interface.md, "Health").
  { method: 'GET', path: '/health', function: 'health', auth: 'none' },
];

export const routeKey = (route: Pick<Route, 'method' | 'path'>): string => `${route.method} ${route.path}`;

/** Every function that serves HTTP routes, in route-table order. */
export const httpFunctions = (): FunctionName[] => [...new Set(routes.map((r) => r.function))];
