import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { deployedFunctions } from '../../infra/functions.ts';
import { bundleFunctions, type BundleResult } from '../../infra/bundle.ts';
import { newJobId, newObjectId } from '../../lib/ids.ts';
import { newBookText } from '../../lib/ocr/book-text.ts';
import { tokenFor } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The deployable bundles themselves (what CDK ships), invoked as Lambda invokes them. */
describe('deployable bundles', () => {
  let bundles: BundleResult[];
  beforeAll(async () => {
    bundles = await bundleFunctions({ outDir: mkdtempSync(join(tmpdir(), 'maktaba-bundles-')) });
  }, 120_000);

  it('builds one bundle per deployed function', () => {
    expect(bundles.map((b) => b.name).sort()).toEqual([...deployedFunctions()].sort());
  });

  it('leaves the GPL-licensed local speech engine out of every bundle', () => {
    for (const bundle of bundles) {
      for (const file of readdirSync(dirname(bundle.file))) {
        const code = readFileSync(join(dirname(bundle.file), file), 'utf8');
        // The engine's own sources are full of these names; our adapter only imports the package by name.
        expect(code, `${bundle.name}/${file}`).not.toMatch(/espeak_VOICE|espeak_EVENT|enc_get_out_buf/);
      }
    }
  });

  it('keeps each bundle within its budget (DESIGN.md section 8): 3 MB for ocr-export, 1 MB for the others', () => {
    const MB = 1_000_000;
    for (const bundle of bundles) {
      expect(bundle.bytes, bundle.name).toBeLessThan(bundle.name === 'ocr-export' ? 3 * MB : MB);
    }
  });

  it('puts the docx library in the ocr-export bundle only', () => {
    // A namespace URI that only the docx library writes (into every document.xml).
    const docxMarker = 'schemas.microsoft.com/office/word/2010/wordprocessingCanvas';
    for (const bundle of bundles) {
      const code = readdirSync(dirname(bundle.file))
        .map((file) => readFileSync(join(dirname(bundle.file), file), 'utf8'))
        .join('\n');
      expect(code.includes(docxMarker), bundle.name).toBe(bundle.name === 'ocr-export');
    }
  });

  it('serves a request from the notifications bundle against the real stores', async () => {
    const bundle = bundles.find((b) => b.name === 'notifications-api')!;
    const { handler } = (await import(pathToFileURL(bundle.file).href)) as { handler: Handler };
    const userId = newObjectId();
    const at = new Date().toISOString();
    await testStores().users.put({
      userId,
      username: 'reader',
      email: 'reader@example.com',
      role: 'member',
      profilePicture: null,
      profilePictureKey: null,
      createdAt: at,
      updatedAt: at,
    });
    const event = (authorization?: string) =>
      ({
        version: '2.0',
        routeKey: 'GET /notifications/unread-count',
        rawPath: '/notifications/unread-count',
        rawQueryString: '',
        headers: authorization ? { Authorization: authorization } : {},
        requestContext: { http: { method: 'GET', path: '/notifications/unread-count' }, requestId: 'r1' },
        isBase64Encoded: false,
      }) as unknown as APIGatewayProxyEventV2;
    const context = { awsRequestId: 'r1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

    expect(await handler(event(), context)).toMatchObject({ statusCode: 401, body: 'Unauthorized: No token provided' });
    const ok = await handler(event(`Bearer ${await tokenFor(userId)}`), context);
    expect(ok.statusCode).toBe(200);
    expect(JSON.parse(String(ok.body))).toEqual({ unreadCount: 0 });
  });

  it('builds a Word document in the ocr-export bundle', async () => {
    const bundle = bundles.find((b) => b.name === 'ocr-export')!;
    const { handler } = (await import(pathToFileURL(bundle.file).href)) as { handler: Handler };
    const stores = testStores();
    const at = new Date().toISOString();
    const userId = newObjectId();
    await stores.users.put({ userId, username: 'ed', email: 'ed@example.com', role: 'editor', profilePicture: null, profilePictureKey: null, createdAt: at, updatedAt: at });
    const book = newBookText({ bookTextId: newObjectId(), jobId: newJobId(), fileId: newObjectId(), userId, fileName: 'كتاب.pdf', status: 'completed', extractedText: 'نص' }, at);
    await stores.ocr.create(book);
    const routeKey = 'GET /ocr/books/{bookTextId}/export/docx';
    const rawPath = `/ocr/books/${book.bookTextId}/export/docx`;
    const event = {
      version: '2.0',
      routeKey,
      rawPath,
      rawQueryString: '',
      headers: { authorization: `Bearer ${await tokenFor(userId)}` },
      pathParameters: { bookTextId: book.bookTextId },
      requestContext: { http: { method: 'GET', path: rawPath }, requestId: 'r2' },
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEventV2;
    const res = await handler(event, { awsRequestId: 'r2', getRemainingTimeInMillis: () => 29_000 } as unknown as Context);
    expect(res).toMatchObject({ statusCode: 200, isBase64Encoded: true, headers: { 'content-disposition': `attachment; filename="${encodeURIComponent('كتاب')}.docx"` } });
    expect(Buffer.from(String(res.body), 'base64').subarray(0, 2).toString()).toBe('PK');
  });
});
