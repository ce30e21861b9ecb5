import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.ts';
import { MalformedPath, matchRoute } from '../../infra/local/router.ts';

describe('local router', () => {
  it('prefers a literal segment over a parameter, as API Gateway does', () => {
    expect(matchRoute('PUT', '/notifications/read-all')?.routeKey).toBe('PUT /notifications/read-all');
    expect(matchRoute('PUT', '/notifications/65a1b2c3d4e5f60718293a4b/read')).toMatchObject({
      routeKey: 'PUT /notifications/{id}/read',
      pathParameters: { id: '65a1b2c3d4e5f60718293a4b' },
    });
  });
  it('matches every route of the table to itself', () => {
    for (const route of routes) {
      const path = route.path.replace(/\{[^}]+\}/g, 'x');
      expect(matchRoute(route.method, path)?.route).toBe(route);
    }
  });
  it('finds nothing for an unknown path or method', () => {
    expect(matchRoute('GET', '/nope')).toBeUndefined();
    expect(matchRoute('PATCH', '/notifications')).toBeUndefined();
  });
  it('refuses a path parameter whose escapes do not decode', () => {
    expect(() => matchRoute('GET', '/ocr/books/%E0%A4%A')).toThrow(MalformedPath);
    expect(matchRoute('GET', '/ocr/books/%D9%83')?.pathParameters).toEqual({ bookTextId: 'ك' });
  });
});
