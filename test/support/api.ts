import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { SignJWT } from 'jose';
import { expect } from 'vitest';
import { signToken } from '../../lib/auth/tokens.ts';
import { parseTierCatalogue } from '../../lib/billing/tiers.ts';
import { seed, type SeedStores } from '../../infra/local/seed.ts';
import { loadHttpHandlers } from '../../infra/local/functions.ts';
import { startLocalServer } from '../../infra/local/server.ts';
import { matchRoute } from '../../infra/local/router.ts';
import { contractBreach } from './api-contract.ts';

/** For the local server's `onAnswer`: each answer held to the document; `reportBreaches` throws what broke it. */
export function contractChecks() {
  const breaches: string[] = [];
  return {
    onAnswer: (routeKey: string, result: APIGatewayProxyStructuredResultV2) => {
      const breach = contractBreach(routeKey, result);
      if (breach) breaches.push(breach);
    },
    reportBreaches: () => {
      if (breaches.length) throw new Error(`answers break the API document:\n${breaches.splice(0).join('\n')}`);
    },
  };
}

/**
 * The local HTTP server over the real function handlers, as `npm start` serves them. Every answer a
 * function gives is held to its route's contract in the OpenAPI document: a breach fails the call
 * that received it (or any later call), and at the latest `close()`.
 */
export async function startApi() {
  const { onAnswer, reportBreaches } = contractChecks();
  const server = await startLocalServer({ host: '127.0.0.1', port: 0, handlers: await loadHttpHandlers(), onAnswer });
  const call = async (
    method: string,
    path: string,
    options: { token?: string; body?: unknown; form?: FormData; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    const body = options.form ?? (options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
    const res = await fetch(`${server.url}${path}`, { method, headers, body });
    const text = await res.text();
    reportBreaches();
    const isJson = res.headers.get('content-type')?.includes('application/json');
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, body: isJson ? JSON.parse(text) : text };
  };
  const close = async () => {
    await server.close();
    reportBreaches();
  };
  return { url: server.url, call, close };
}

/**
 * `fetch` for a test that calls a running service it did not start in-process (`npm start`): the
 * answer is held to the document on the client's side, as the server-side hook does for startApi.
 */
export async function checkedFetch(url: string, init?: RequestInit): Promise<Response> {
  const res = await fetch(url, init);
  const { pathname } = new URL(url);
  const match = matchRoute(init?.method ?? 'GET', pathname);
  if (!match) return res;
  const bytes = Buffer.from(await res.clone().arrayBuffer());
  // fetch has already undone any Content-Encoding.
  const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'content-encoding'));
  const breach = contractBreach(match.routeKey, { statusCode: res.status, headers, body: bytes.toString('base64'), isBase64Encoded: true });
  if (breach) throw new Error(`answer breaks the API document: ${breach}`);
  return res;
}

/** The smallest file `POST /ocr` takes: a PDF's header and trailer. */
export const tinyPdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** A `POST /ocr` form: the fields, then the tiny PDF as `name`. */
export function pdfForm(fields: Record<string, string> = {}, name = 'book.pdf'): FormData {
  const form = new FormData();
  for (const [field, value] of Object.entries(fields)) form.append(field, value);
  form.append('file', new Blob([tinyPdf], { type: 'application/pdf' }), name);
  return form;
}

/** `POST /ocr` of the tiny PDF as `token`, which must answer 201: the new job's answer. */
export async function uploadPdf(
  api: Pick<Awaited<ReturnType<typeof startApi>>, 'call'>,
  token: string,
  options: { fields?: Record<string, string>; name?: string } = {},
): Promise<{ jobId: string; bookTextId: string; fileId: string; [field: string]: unknown }> {
  const res = await api.call('POST', '/ocr', { token, form: pdfForm(options.fields, options.name) });
  expect(res.status).toBe(201);
  return res.body;
}

export const tokenFor = (userId: string, expiresIn = 3600) => signToken(process.env.AUTH_JWT_SECRET!, userId, expiresIn);

/** A seeded user as a test calls the API as it: its id and a token. */
export type Account = { userId: string; token: string };

/** These users seeded as the seed file makes them (`seedAccounts`): each one's account, by its key. */
export async function seedUsers<K extends string>(stores: SeedStores, users: readonly ({ key: K; username: string } & Record<string, unknown>)[]): Promise<Record<K, Account>> {
  return (await seedAccounts(stores, { users })).users as Record<K, Account>;
}

/** What the seed file holds (infra/local/seed.ts), seeded now in the test stack's stores, each user with a token its functions accept. */
export const seedAccounts = (stores: SeedStores, file: unknown) =>
  seed(stores, file, { now: new Date(), tierCatalogue: parseTierCatalogue(undefined), issueToken: (id) => tokenFor(id) });

/**
 * A token signed with the right key but that signToken would never issue: `exp` in the past, or none
 * at all (`exp: undefined`), for the checks that such tokens are refused.
 */
export function rawTokenFor(userId: string, claims: { exp?: number }): Promise<string> {
  let jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(userId).setIssuedAt();
  if (claims.exp !== undefined) jwt = jwt.setExpirationTime(claims.exp);
  return jwt.sign(new TextEncoder().encode(process.env.AUTH_JWT_SECRET!));
}
