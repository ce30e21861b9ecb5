import { describe, expect, it } from 'vitest';
import { routeKey, routes, type AuthMode } from '../../functions/routes.ts';
import { specRoutes, type SpecRoute } from './spec-routes.ts';

/** A docs/SPEC.md route in the route table's form: `{param}` paths, and the auth mode its label means. */
const keyOf = (r: SpecRoute) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`;

function expectedAuth(r: SpecRoute): AuthMode {
  if (r.auth === 'none') return 'none';
  if (r.auth.startsWith('Editor/admin')) return 'editor';
  // docs/SPEC.md 4.2: on the audio endpoints an invalid token is treated as anonymous; elsewhere it is a 403.
  if (r.auth.startsWith('Optional')) return r.path.startsWith('/audio') ? 'optional-lenient' : 'optional';
  return 'required';
}

describe('route table', () => {
  it('has every endpoint of docs/SPEC.md section 4 (the copy in test/unit/spec-routes.ts), each with its auth', () => {
    expect(specRoutes).toHaveLength(11 + 15 + 6);
    for (const spec of specRoutes) {
      const route = routes.find((r) => routeKey(r) === keyOf(spec));
      expect(route, keyOf(spec)).toBeDefined();
      expect(route!.auth, keyOf(spec)).toBe(expectedAuth(spec));
    }
  });

  it('adds to docs/SPEC.md only the presigned upload routes, search, reading a page again, the Stripe webhook, the API document with its reference page, the health check, and admin messages and announcements', () => {
    const spec = new Set(specRoutes.map(keyOf));
    expect(routes.map(routeKey).filter((key) => !spec.has(key))).toEqual([
      'POST /ocr/uploads',
      'POST /ocr/uploads/{uploadId}/job',
      'GET /ocr/search',
      'GET /ocr/books/{bookTextId}/search',
      'POST /ocr/books/{bookTextId}/pages/{pageNumber}/reread',
      'POST /notifications/announcements',
      'POST /billing/webhook',
      'GET /openapi.json',
      'GET /docs',
      'GET /docs/{asset}',
      'GET /health',
    ]);
  });

  it('lists each route once', () => {
    const keys = routes.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
