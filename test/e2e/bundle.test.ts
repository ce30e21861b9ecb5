import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Metafile } from 'esbuild';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { deployedFunctions } from '../../infra/functions.ts';
import { bundleFunctions, type BundleResult } from '../../infra/bundle.ts';
import { newJobId, newObjectId } from '../../lib/ids.ts';
import { newBookText } from '../../lib/ocr/book-text.ts';
import { tokenFor } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

/** Every file of a bundle's asset, by its path inside it (the reference page's files sit in `docs/`). */
const filesOf = (bundle: BundleResult): string[] =>
  readdirSync(dirname(bundle.file), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dirname(bundle.file), join(entry.parentPath, entry.name)));

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
      for (const file of filesOf(bundle)) {
        const code = readFileSync(join(dirname(bundle.file), file), 'utf8');
        // The engine's own sources are full of these names; our adapter only imports the package by name.
        expect(code, `${bundle.name}/${file}`).not.toMatch(/espeak_VOICE|espeak_EVENT|enc_get_out_buf/);
      }
    }
  });

  it('keeps each bundle within its budget (docs/DESIGN.md section 8): 3 MB for ocr-export, 1 MB for the others', () => {
    const MB = 1_000_000;
    for (const bundle of bundles) {
      expect(bundle.bytes, bundle.name).toBeLessThan(bundle.name === 'ocr-export' ? 3 * MB : MB);
    }
  });

  it('stands in for semver only where the X-Ray SDK requires it (infra/bundle.ts)', () => {
    for (const bundle of bundles) {
      const meta = JSON.parse(readFileSync(join(dirname(dirname(bundle.file)), `${bundle.name}.meta.json`), 'utf8')) as Metafile;
      const importers = Object.entries(meta.inputs)
        .filter(([, input]) => input.imports.some((i) => i.original === 'semver'))
        .map(([file]) => file.replace(/^.*node_modules\//, ''));
      expect(importers, bundle.name).toEqual(['aws-xray-sdk-core/dist/lib/patchers/aws_p.js']);
    }
  });

  it('puts the docx library in the ocr-export bundle only', () => {
    // A namespace URI that only the docx library writes (into every document.xml).
    const docxMarker = 'schemas.microsoft.com/office/word/2010/wordprocessingCanvas';
    for (const bundle of bundles) {
      const code = filesOf(bundle)
        .map((file) => readFileSync(join(dirname(bundle.file), file), 'utf8'))
        .join('\n');
      expect(code.includes(docxMarker), bundle.name).toBe(bundle.name === 'ocr-export');
    }
  });

  it('serves the document and the reference page’s files from the api-docs bundle and its asset alone', async () => {
    const bundle = bundles.find((b) => b.name === 'api-docs')!;
    expect(filesOf(bundle).filter((file) => file.startsWith('docs')).sort()).toEqual(['docs/swagger-ui-bundle.js', 'docs/swagger-ui.css']);
    const { handler } = (await import(pathToFileURL(bundle.file).href)) as { handler: Handler };
    const event = (routeKey: string, rawPath: string, pathParameters?: Record<string, string>) =>
      ({ version: '2.0', routeKey, rawPath, rawQueryString: '', headers: {}, pathParameters, requestContext: { http: { method: 'GET', path: rawPath }, requestId: 'r1' }, isBase64Encoded: false }) as unknown as APIGatewayProxyEventV2;
    const context = { awsRequestId: 'r1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
    const css = await handler(event('GET /docs/{asset}', '/docs/swagger-ui.css', { asset: 'swagger-ui.css' }), context);
    expect(css).toMatchObject({ statusCode: 200, headers: { 'content-type': 'text/css; charset=utf-8' } });
    expect(String(css.body)).toBe(readFileSync(join(dirname(bundle.file), 'docs', 'swagger-ui.css'), 'utf8'));
    const document = await handler(event('GET /openapi.json', '/openapi.json'), context);
    expect(JSON.parse(String(document.body))).toMatchObject({ openapi: '3.1.0', info: { title: 'Maktaba API' } });
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

  it('traces a request to X-Ray in Lambda\'s environment, without the response, the token or the email', async () => {
    const bundle = bundles.find((b) => b.name === 'notifications-api')!;
    const userId = newObjectId();
    const email = `traced-${userId}@example.com`;
    const at = new Date().toISOString();
    await testStores().users.put({ userId, username: 'traced', email, role: 'member', profilePicture: null, profilePictureKey: null, createdAt: at, updatedAt: at });
    const token = await tokenFor(userId);

    // A stand-in X-Ray daemon: the SDK sends each (sub)segment as one UDP datagram, a header line then JSON.
    const daemon = createSocket('udp4');
    const datagrams: string[] = [];
    daemon.on('message', (message) => datagrams.push(message.toString()));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    const traceId = '1-5759e988-bd862e3fe1be46a994272793';
    const invoke = `
      const { handler } = await import(${JSON.stringify(pathToFileURL(bundle.file).href)});
      const event = {
        version: '2.0', routeKey: 'GET /notifications/unread-count', rawPath: '/notifications/unread-count', rawQueryString: '',
        headers: { authorization: 'Bearer ' + process.env.TEST_TOKEN },
        requestContext: { http: { method: 'GET', path: '/notifications/unread-count' }, requestId: 'api-traced' }, isBase64Encoded: false,
      };
      const context = { awsRequestId: 'lambda-traced', functionName: 'maktaba-notifications-api', getRemainingTimeInMillis: () => 10000 };
      const result = await handler(event, context);
      process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n');`;
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', invoke], {
        env: {
          ...process.env,
          TEST_TOKEN: token,
          // What Lambda sets, with active tracing on and the daemon's address.
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
          AWS_LAMBDA_FUNCTION_NAME: 'maktaba-notifications-api',
          AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
          LAMBDA_TASK_ROOT: dirname(bundle.file),
          _HANDLER: 'index.handler',
          _X_AMZN_TRACE_ID: `Root=${traceId};Parent=53995c3f42cd8ad8;Sampled=1`,
          AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
          POWERTOOLS_TRACE_ENABLED: 'true',
          POWERTOOLS_METRICS_DISABLED: 'false',
        },
      });
      const result = JSON.parse(/^RESULT (.*)$/m.exec(stdout)![1]!) as { statusCode: number; body: string };
      expect(result).toMatchObject({ statusCode: 200, body: JSON.stringify({ unreadCount: 0 }) });
      // The metrics of the invocation went out as EMF: the cold start and the status class.
      expect(stdout).toMatch(/"ColdStart":1/);
      expect(stdout).toMatch(/"Http4xx":0,"Http5xx":0/);

      await new Promise((resolve) => setTimeout(resolve, 100));
      const segments = datagrams.map((d) => JSON.parse(d.slice(d.indexOf('\n') + 1)) as Record<string, unknown>);
      const handlerSegment = segments.find((s) => s.name === '## index.handler');
      expect(handlerSegment).toMatchObject({
        trace_id: traceId,
        parent_id: '53995c3f42cd8ad8',
        annotations: { ColdStart: true, Service: 'maktaba', route: 'GET /notifications/unread-count' },
      });
      // Each DynamoDB call is its own subsegment under the handler's, naming the table, not the items.
      const dynamo = segments.filter((s) => s.name === 'DynamoDB');
      expect(dynamo.length).toBeGreaterThan(0);
      for (const call of dynamo) {
        expect(call).toMatchObject({ namespace: 'aws', parent_id: handlerSegment!.id, aws: { table_name: process.env.TABLE_NAME } });
      }
      const all = datagrams.join('\n');
      expect(all).not.toContain(token);
      expect(all).not.toContain(email);
      expect(all).not.toContain('unreadCount');
    } finally {
      daemon.close();
    }
  });
});
