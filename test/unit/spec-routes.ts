/**
 * docs/SPEC.md's endpoints (section 4), copied from the interface specification so that the route-table
 * check runs from the repository alone. Method and path as docs/SPEC.md writes them (`:param`), `auth` as
 * its headings and the section 4.3 title say: `Bearer` = token required, `Optional` = token optional,
 * `Editor/admin` = token and role editor or admin, `none` = no token. Update it with docs/SPEC.md.
 */
export interface SpecRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  auth: string;
}

export const specRoutes: readonly SpecRoute[] = [
  // 4.1 OCR
  { method: 'POST', path: '/ocr/result/page', auth: 'Editor/admin; worker callback' },
  { method: 'POST', path: '/ocr/result', auth: 'Editor/admin; worker callback' },
  { method: 'POST', path: '/ocr', auth: 'Bearer, Sub' },
  { method: 'GET', path: '/ocr/status/:jobId', auth: 'Bearer' },
  { method: 'GET', path: '/ocr/text/:jobId', auth: 'Bearer' },
  { method: 'GET', path: '/ocr/jobs', auth: 'Bearer' },
  { method: 'GET', path: '/ocr/books/:bookTextId', auth: 'Optional' },
  { method: 'PATCH', path: '/ocr/books/:bookTextId', auth: 'Bearer' },
  { method: 'GET', path: '/ocr/books', auth: 'Optional' },
  { method: 'POST', path: '/ocr/books/:bookTextId/import', auth: 'Bearer' },
  { method: 'GET', path: '/ocr/books/:bookTextId/export/docx', auth: 'Bearer' },
  // 4.2 Audio
  { method: 'GET', path: '/audio/voices', auth: 'none' },
  { method: 'GET', path: '/audio/fields', auth: 'none' },
  { method: 'POST', path: '/audio/:bookId/generate', auth: 'Editor/admin' },
  { method: 'GET', path: '/audio/jobs/:jobId', auth: 'Editor/admin' },
  { method: 'GET', path: '/audio/jobs', auth: 'Editor/admin' },
  { method: 'GET', path: '/audio/:bookId/lines-with-audio', auth: 'Optional; book read access' },
  { method: 'POST', path: '/audio/:bookId/lines/:lineId/batch', auth: 'Editor/admin' },
  { method: 'POST', path: '/audio/:bookId/lines/:lineId/:field', auth: 'Editor/admin' },
  { method: 'GET', path: '/audio/:bookId/lines/:lineId/:field/stream', auth: 'Optional; no book read-access check' },
  { method: 'GET', path: '/audio/:bookId/lines/:lineId/:field/url', auth: 'Optional; book read access' },
  { method: 'GET', path: '/audio/:bookId/lines/:lineId', auth: 'Optional; book read access' },
  { method: 'DELETE', path: '/audio/:bookId/lines/:lineId/:field', auth: 'Editor/admin' },
  { method: 'DELETE', path: '/audio/:bookId/lines/:lineId', auth: 'Editor/admin' },
  { method: 'DELETE', path: '/audio/:bookId', auth: 'Editor/admin' },
  { method: 'GET', path: '/audio/:bookId/all', auth: 'Optional; book read access' },
  // 4.3 Notifications ("all require Bearer")
  { method: 'POST', path: '/notifications/device-token', auth: 'Bearer' },
  { method: 'DELETE', path: '/notifications/device-token', auth: 'Bearer' },
  { method: 'GET', path: '/notifications', auth: 'Bearer' },
  { method: 'GET', path: '/notifications/unread-count', auth: 'Bearer' },
  { method: 'PUT', path: '/notifications/:id/read', auth: 'Bearer' },
  { method: 'PUT', path: '/notifications/read-all', auth: 'Bearer' },
];
