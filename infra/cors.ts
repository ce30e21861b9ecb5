/**
 * The CORS policy of the HTTP API, for the web client: API Gateway applies it on AWS (infra/api.ts)
 * and the local server the same way (infra/local/server.ts). Clients send a bearer token, not
 * cookies, so credentials are never allowed.
 */
export const corsPolicy = {
  allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowHeaders: ['authorization', 'content-type'],
  exposeHeaders: ['content-disposition', 'content-length', 'location'],
  maxAgeSeconds: 24 * 60 * 60,
} as const;

/**
 * A comma-separated origin list (`corsOrigins` context, `CORS_ORIGINS` locally); `*` when empty.
 * Throws on anything that is not `*` or `scheme://host[:port]`, which API Gateway would refuse.
 */
export function parseOrigins(list: string | undefined): string[] {
  const origins = (list ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  for (const origin of origins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new Error(`corsOrigins: ${origin} is not an origin (scheme://host[:port], no path)`);
    }
  }
  return origins.length ? origins : ['*'];
}

/** The allow-origin value for a request's Origin, as API Gateway answers it; undefined when not allowed. */
function allowedOrigin(origin: string | undefined, origins: readonly string[]): string | undefined {
  if (!origin) return undefined;
  if (origins.includes('*')) return '*';
  return origins.includes(origin) ? origin : undefined;
}

/** Headers added to an ordinary response to a cross-origin request. */
export function corsResponseHeaders(origin: string | undefined, origins: readonly string[]): Record<string, string> {
  const allow = allowedOrigin(origin, origins);
  if (!allow) return {};
  return { 'access-control-allow-origin': allow, 'access-control-expose-headers': corsPolicy.exposeHeaders.join(','), ...(allow === '*' ? {} : { vary: 'origin' }) };
}

/** The answer to a preflight (OPTIONS with Origin and Access-Control-Request-Method): 204 with the policy. */
export function corsPreflightHeaders(origin: string | undefined, origins: readonly string[]): Record<string, string> {
  const allow = allowedOrigin(origin, origins);
  if (!allow) return {};
  return {
    'access-control-allow-origin': allow,
    'access-control-allow-methods': corsPolicy.allowMethods.join(','),
    'access-control-allow-headers': corsPolicy.allowHeaders.join(','),
    'access-control-max-age': String(corsPolicy.maxAgeSeconds),
    ...(allow === '*' ? {} : { vary: 'origin' }),
  };
}
