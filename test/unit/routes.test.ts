import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routeKey, routes } from '../../functions/routes.ts';

/** The spec's notification paths, read from SPEC.md 4.3 itself so the table cannot drift from it. */
const spec = readFileSync(new URL('../../../shared/SPEC.md', import.meta.url), 'utf8');
const specNotificationRoutes = [...spec.matchAll(/^\| (GET|POST|PUT|DELETE) (\/notifications\S*) \|/gm)].map(
  ([, method, path]) => `${method} ${path!.replace(/:(\w+)/g, '{$1}')}`,
);

describe('route table', () => {
  it('has every notifications endpoint of SPEC.md 4.3, each needing a token', () => {
    expect(specNotificationRoutes).toHaveLength(6);
    const table = routes.filter((r) => r.path.startsWith('/notifications')).map(routeKey);
    expect(table.sort()).toEqual([...specNotificationRoutes].sort());
    expect(routes.filter((r) => r.path.startsWith('/notifications')).every((r) => r.auth === 'required')).toBe(true);
  });
  it('has the OCR job endpoints of SPEC.md 4.1 with their auth (Bearer; Editor/admin for callbacks)', () => {
    const specOcr = [...spec.matchAll(/^#### (GET|POST|PATCH|PUT|DELETE) (\/ocr\S*) \(([^)]*)\)/gm)].map(([, method, path, auth]) => ({
      key: `${method} ${path!.replace(/:(\w+)/g, '{$1}')}`,
      auth: auth!,
    }));
    const jobRoutes = specOcr.filter((r) => !r.key.includes('/ocr/books'));
    expect(jobRoutes).toHaveLength(6);
    for (const { key, auth } of jobRoutes) {
      const route = routes.find((r) => routeKey(r) === key);
      expect(route, key).toBeDefined();
      expect(route!.auth).toBe(auth.startsWith('Editor/admin') ? 'editor' : 'required');
    }
  });

  it('has every audio endpoint of SPEC.md 4.2, an invalid token counting as anonymous on the optional ones', () => {
    const specAudio = [...spec.matchAll(/^#### (GET|POST|PATCH|PUT|DELETE) (\/audio\S*) \(([^)]*)\)/gm)].map(([, method, path, auth]) => ({
      key: `${method} ${path!.replace(/:(\w+)/g, '{$1}')}`,
      auth: auth!,
    }));
    expect(specAudio).toHaveLength(15);
    const expected = (auth: string) => (auth === 'none' ? 'none' : auth.startsWith('Editor/admin') ? 'editor' : 'optional-lenient');
    for (const { key, auth } of specAudio) expect(routes.find((r) => routeKey(r) === key)?.auth, key).toBe(expected(auth));
    expect(routes.filter((r) => r.path.startsWith('/audio')).map(routeKey).sort()).toEqual(specAudio.map((r) => r.key).sort());
  });

  it('lists each route once', () => {
    const keys = routes.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
