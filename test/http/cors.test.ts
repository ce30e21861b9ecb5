import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corsPolicy } from '../../infra/cors.ts';
import { loadHttpHandlers } from '../../infra/local/functions.ts';
import { startLocalServer } from '../../infra/local/server.ts';
import { contractChecks } from '../support/api.ts';

/** A web client on another origin, against the local server (the same policy API Gateway applies on AWS). */
describe('CORS', () => {
  let open: Awaited<ReturnType<typeof startLocalServer>>;
  let listed: Awaited<ReturnType<typeof startLocalServer>>;

  const { onAnswer, reportBreaches } = contractChecks();
  beforeAll(async () => {
    const handlers = await loadHttpHandlers();
    open = await startLocalServer({ host: '127.0.0.1', port: 0, handlers, onAnswer });
    listed = await startLocalServer({ host: '127.0.0.1', port: 0, handlers, corsOrigins: ['https://app.example.com'], onAnswer });
  });
  afterAll(async () => {
    await open?.close();
    await listed?.close();
    reportBreaches();
  });

  const preflight = (url: string, origin: string) =>
    fetch(`${url}/notifications`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });

  it('answers a browser’s preflight with the methods and headers the API takes', async () => {
    const res = await preflight(open.url, 'https://anywhere.example');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe(corsPolicy.allowMethods.join(','));
    expect(res.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('lets the page read an answer, including an error, and the export’s file name header', async () => {
    const res = await fetch(`${open.url}/audio/voices`, { headers: { origin: 'https://anywhere.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('content-disposition');
    const denied = await fetch(`${open.url}/notifications`, { headers: { origin: 'https://anywhere.example' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('allows only the listed origins when origins are configured', async () => {
    const allowed = await preflight(listed.url, 'https://app.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const other = await preflight(listed.url, 'https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const res = await fetch(`${listed.url}/audio/voices`, { headers: { origin: 'https://evil.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
