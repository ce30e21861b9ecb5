import { routeKey, routes, type Route } from '../../functions/routes.ts';

export interface Match {
  route: Route;
  routeKey: string;
  pathParameters: Record<string, string>;
}

interface Compiled {
  route: Route;
  segments: string[];
  params: number;
}

/** Matches like API Gateway: a literal segment wins over a `{param}` segment in the same place. */
const compiled: Compiled[] = routes
  .map((route) => {
    const segments = route.path.split('/').filter(Boolean);
    return { route, segments, params: segments.filter((s) => s.startsWith('{')).length };
  })
  .sort((a, b) => a.params - b.params);

/** A path whose escapes do not decode: API Gateway refuses it with a 400 before any function runs. */
export class MalformedPath extends Error {}

const decode = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new MalformedPath(`Malformed path segment: ${segment}`);
  }
};

export function matchRoute(method: string, path: string): Match | undefined {
  const parts = path.split('/').filter(Boolean);
  for (const { route, segments } of compiled) {
    if (route.method !== method || segments.length !== parts.length) continue;
    const pathParameters: Record<string, string> = {};
    const ok = segments.every((segment, i) => {
      const part = parts[i]!;
      if (segment.startsWith('{')) {
        pathParameters[segment.slice(1, -1)] = decode(part);
        return true;
      }
      return segment === part;
    });
    if (ok) return { route, routeKey: routeKey(route), pathParameters };
  }
  return undefined;
}
