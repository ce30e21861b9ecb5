import { brotliCompressSync, constants } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allContracts } from '../../functions/_shared/contract/all.ts';
import { bodyLimitsOf, type Contract } from '../../functions/_shared/contract/contract.ts';
import { defaultBodyLimits, notCompressible, overRatio, tooDeep, tooLargeText, tooManyValues } from '../../functions/_shared/http/body.ts';
import { routeKey, routes, type Route } from '../../functions/routes.ts';
import { newObjectId } from '../../lib/ids.ts';
import { startApi, seedAccounts } from '../support/api.ts';
import { rawRequest } from '../support/raw-http.ts';
import { testStores } from '../support/stores.ts';

/**
 * Hostile bodies (issue 27) sent to every route of the table as a signed-in admin (past every auth
 * check), through the local server and the real handlers: each costs no more than an ordinary request
 * of its route. Before the change, the 110-byte bomb was inflated and parsed on every route, auth or
 * not: 2.26 GB and 40 s of CPU each.
 */
const stores = testStores();
let api: Awaited<ReturnType<typeof startApi>>;
let admin: string;

beforeAll(async () => {
  api = await startApi();
  const out = await seedAccounts(stores, { users: [{ key: 'ad', username: 'ad', role: 'admin' }] });
  admin = out.users.ad!.token;
});
afterAll(() => api?.close());

const contractOf = (route: Route) => (allContracts as Record<string, Contract>)[routeKey(route)]!;
/** A path with ids of nothing: routes answer their 404s, never touching anyone's data. */
const pathOf = (route: Route) =>
  route.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    name === 'field' ? 'arabic' : name === 'asset' ? 'redoc.js' : name === 'jobId' && route.path.startsWith('/ocr') ? crypto.randomUUID() : newObjectId(),
  );

/** 60 MB of `[{},{},…]` in about 110 bytes. */
const bomb = brotliCompressSync(Buffer.from(`[${'{},'.repeat(20_000_000)}{}]`), { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });

/** The request as a client sends it, a GET's body too (fetch refuses one). */
async function send(route: Route, body: Buffer | undefined, headers: Record<string, string> = {}) {
  const started = performance.now();
  const res = await rawRequest(api.url, {
    method: route.method,
    path: pathOf(route),
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...headers },
    ...(body && { body }),
  });
  return { status: res.status, text: res.text, ms: performance.now() - started };
}

describe('hostile request bodies, on every route', () => {
  it('refuses a 110-byte Brotli bomb before inflating it (413 where compression is taken, 415 elsewhere); a route without a body never reads it', async () => {
    expect(bomb.length).toBeLessThan(200);
    const rss = process.memoryUsage().rss;
    let slowest = 0;
    for (const route of routes) {
      const body = contractOf(route).body;
      const answer = await send(route, bomb, { 'content-encoding': 'br' });
      slowest = Math.max(slowest, answer.ms);
      if (!body) {
        // As if nothing had been sent.
        expect(answer.status, routeKey(route)).toBe((await send(route, undefined)).status);
      } else if (bodyLimitsOf(body).compressed) {
        // Refused at 50 times its size, or at the route's own size where that is smaller (a page's).
        expect([answer.status, answer.text], routeKey(route)).toEqual([413, expect.stringMatching(`${overRatio}|${tooLargeText(bodyLimitsOf(body))}`)]);
      } else {
        expect([answer.status, answer.text], routeKey(route)).toEqual([415, expect.stringContaining(notCompressible)]);
      }
    }
    const grewMb = (process.memoryUsage().rss - rss) / (1024 * 1024);
    process.stderr.write(`a Brotli bomb on each of ${routes.length} routes: slowest answer ${slowest.toFixed(0)} ms, the process grew ${grewMb.toFixed(0)} MB\n`);
    expect(grewMb).toBeLessThan(500);
  }, 120_000);

  it('refuses plain JSON with too many values (413) or nested too deep (400) before parsing it, on every route with a body', async () => {
    const many = Buffer.from(`[${'{},'.repeat(200_000)}{}]`); // 600 KB: past every route's count
    const deep = Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    for (const route of routes) {
      const body = contractOf(route).body;
      if (!body || body.kind === 'multipart') continue;
      const limits = bodyLimitsOf(body);
      const tooMany = await send(route, many);
      expect([tooMany.status, tooMany.text], routeKey(route)).toEqual([413, expect.stringMatching(new RegExp(`${tooManyValues(limits)}|Body is larger than`))]);
      const tooNested = await send(route, deep);
      expect([tooNested.status, tooNested.text], routeKey(route)).toEqual([400, expect.stringContaining(tooDeep(defaultBodyLimits))]);
    }
  }, 120_000);
});
