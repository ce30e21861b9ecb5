import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { newObjectId } from '../../lib/ids.ts';
import { tokenFor } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

/**
 * What an operator reads from a function: its log lines (request ids, route, nothing secret) and its
 * CloudWatch EMF metrics. Handlers are called as Lambda calls them, with an API Gateway event and a
 * Lambda context. Each test loads the function afresh (Powertools reads its settings and counts the
 * cold start when it loads) and captures what it writes to stdout and stderr.
 */
type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
type Json = Record<string, unknown>;

/** Sets the variables, then imports a fresh copy of the module and everything it imports. */
async function fresh<T>(load: () => Promise<T>, env: Record<string, string>): Promise<T> {
  vi.resetModules();
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  return load();
}

/** Everything written to stdout and stderr while it runs, as text and as the JSON lines among it. */
async function captured<T>(run: () => Promise<T>): Promise<{ result: T; text: string; lines: Json[] }> {
  const chunks: string[] = [];
  const capture = ((chunk: unknown) => (chunks.push(String(chunk)), true)) as typeof process.stdout.write;
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    const result = await run();
    const text = chunks.join('');
    const lines = text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Json);
    return { result, text, lines };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

const context = (requestId: string, functionName = 'maktaba-notifications-api'): Context =>
  ({
    awsRequestId: requestId,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    getRemainingTimeInMillis: () => 10_000,
  }) as unknown as Context;

function httpEvent(routeKey: string, requestId: string, options: { authorization?: string; body?: Json } = {}): APIGatewayProxyEventV2 {
  const [method, path] = routeKey.split(' ') as [string, string];
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    // As API Gateway passes them: the header's case is the client's.
    headers: {
      ...(options.authorization ? { Authorization: options.authorization } : {}),
      ...(options.body ? { 'Content-Type': 'application/json' } : {}),
    },
    requestContext: { http: { method, path }, requestId, routeKey },
    body: options.body ? JSON.stringify(options.body) : undefined,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

const emf = (lines: Json[]) => lines.filter((line) => '_aws' in line);
const metricNamesOf = (line: Json) =>
  (line._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] }).CloudWatchMetrics.flatMap((m) => m.Metrics.map((x) => x.Name));
const dimensionsOf = (line: Json) => (line._aws as { CloudWatchMetrics: { Dimensions: string[][] }[] }).CloudWatchMetrics[0]!.Dimensions;

const stores = testStores();
let userId: string;
let email: string;
let bearer: string;

beforeAll(async () => {
  userId = newObjectId();
  email = `reader-${userId}@example.com`;
  const at = new Date().toISOString();
  await stores.users.put({ userId, username: 'reader', email, role: 'member', profilePicture: null, profilePictureKey: null, createdAt: at, updatedAt: at });
  bearer = `Bearer ${await tokenFor(userId)}`;
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('log lines of an HTTP function', () => {
  const loadNotifications = (env: Record<string, string> = {}) =>
    fresh(async () => {
      const [{ handler }, { logger }] = await Promise.all([import('../../functions/notifications-api/handler.ts'), import('../../lib/log.ts')]);
      return { handler: handler as unknown as HttpHandler, logger };
    }, { LOG_LEVEL: 'INFO', AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand', ...env });

  it('carry the Lambda request id, the API Gateway request id and the route, and no token, device token or email', async () => {
    const { handler, logger } = await loadNotifications();
    const deviceToken = `device-${newObjectId()}`;
    // An email in the body too: were the event ever logged, this test would see it.
    const body = { token: deviceToken, platform: 'ios', email };
    const route = 'POST /notifications/device-token';

    const first = await captured(() => handler(httpEvent(route, 'api-request-1', { authorization: bearer, body }), context('lambda-request-1')));
    const between = await captured(async () => logger.info('between invocations'));
    const second = await captured(() => handler(httpEvent(route, 'api-request-2', { authorization: bearer, body }), context('lambda-request-2')));

    expect(first.result.statusCode).toBe(200);
    const registered = (lines: Json[]) => lines.find((line) => line.message === 'push endpoint registered');
    expect(registered(first.lines)).toMatchObject({
      level: 'INFO',
      service: 'maktaba',
      function_request_id: 'lambda-request-1',
      correlation_id: 'api-request-1',
      route,
      cold_start: true,
      function_name: 'maktaba-notifications-api',
    });
    expect(registered(second.lines)).toMatchObject({ function_request_id: 'lambda-request-2', correlation_id: 'api-request-2', cold_start: false });

    // One request's keys do not stay on the logger for whatever is logged next.
    expect(between.lines).toHaveLength(1);
    expect(between.lines[0]).not.toHaveProperty('correlation_id');
    expect(between.lines[0]).not.toHaveProperty('route');

    for (const { text } of [first, second]) {
      expect(text).not.toContain(bearer.slice('Bearer '.length));
      expect(text).not.toMatch(/bearer|authorization/i);
      expect(text).not.toContain(deviceToken);
      expect(text).not.toContain(email);
    }
  });

  it('log a 500 once, with the request ids, the route and the error, and no token', async () => {
    // A table that does not exist: the user lookup fails, which is the route's 500.
    const { handler } = await loadNotifications({ TABLE_NAME: `missing-${newObjectId()}` });
    const route = 'GET /notifications/unread-count';
    const { result, lines, text } = await captured(() => handler(httpEvent(route, 'api-request-500', { authorization: bearer }), context('lambda-request-500')));

    expect(result.statusCode).toBe(500);
    const errors = lines.filter((line) => line.level === 'ERROR');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      message: 'Error fetching unread count',
      function_request_id: 'lambda-request-500',
      correlation_id: 'api-request-500',
      route,
      error: { name: 'ResourceNotFoundException' },
    });
    expect(errors[0]).not.toHaveProperty('requestId');
    expect(text).not.toContain(bearer.slice('Bearer '.length));
  });
});

describe('metrics (CloudWatch EMF)', () => {
  const loadNotifications = (env: Record<string, string>) =>
    fresh(async () => (await import('../../functions/notifications-api/handler.ts')).handler as unknown as HttpHandler, env);
  const enabled = { POWERTOOLS_METRICS_DISABLED: 'false', AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand' };

  it('count the cold start once, and each response by status class, per function', async () => {
    const handler = await loadNotifications(enabled);
    const route = 'GET /notifications/unread-count';
    const denied = await captured(() => handler(httpEvent(route, 'api-1'), context('lambda-1')));
    const served = await captured(() => handler(httpEvent(route, 'api-2', { authorization: bearer }), context('lambda-2')));
    const failed = await captured(async () => {
      // The same process, a table gone: a 500.
      vi.stubEnv('TABLE_NAME', `missing-${newObjectId()}`);
      const broken = await loadNotifications(enabled);
      return broken(httpEvent(route, 'api-3', { authorization: bearer }), context('lambda-3'));
    });
    expect([denied.result.statusCode, served.result.statusCode, failed.result.statusCode]).toEqual([401, 200, 500]);

    const coldStarts = emf(denied.lines).filter((line) => metricNamesOf(line).includes('ColdStart'));
    expect(coldStarts).toHaveLength(1);
    expect(coldStarts[0]).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Namespace: 'Maktaba' }] },
      ColdStart: 1,
      service: 'maktaba',
      function: 'notifications-api',
      function_name: 'maktaba-notifications-api',
    });
    expect(emf(served.lines).filter((line) => metricNamesOf(line).includes('ColdStart'))).toEqual([]);

    const statusLine = (lines: Json[]) => {
      const found = emf(lines).filter((line) => metricNamesOf(line).includes('Http5xx'));
      expect(found).toHaveLength(1);
      expect(dimensionsOf(found[0]!)).toEqual([['service', 'function']]);
      expect(found[0]).toMatchObject({ _aws: { CloudWatchMetrics: [{ Namespace: 'Maktaba' }] }, service: 'maktaba', function: 'notifications-api' });
      return { Http4xx: found[0]!.Http4xx, Http5xx: found[0]!.Http5xx };
    };
    expect(statusLine(denied.lines)).toEqual({ Http4xx: 1, Http5xx: 0 });
    expect(statusLine(served.lines)).toEqual({ Http4xx: 0, Http5xx: 0 });
    expect(statusLine(failed.lines)).toEqual({ Http4xx: 0, Http5xx: 1 });

    // And nothing else: no per-invocation warnings from Powertools beside the metrics.
    for (const { text } of [denied, served]) {
      expect(text.split('\n').filter((line) => line && !line.startsWith('{"_aws"'))).toEqual([]);
    }

    // Nothing about the caller in any dimension or property of a metric line.
    for (const line of emf([...denied.lines, ...served.lines, ...failed.lines])) {
      expect(JSON.stringify(line)).not.toContain(userId);
      expect(JSON.stringify(line)).not.toContain(email);
    }
  });

  it('count the failed messages of each audio-worker invocation', async () => {
    const handler = await fresh(async () => (await import('../../functions/audio-worker/handler.ts')).handler as unknown as SqsHandler, enabled);
    const record = (messageId: string, body: string) => ({ messageId, body, attributes: { ApproximateReceiveCount: '1' } });
    const event = { Records: [record('m-1', 'not json')] } as unknown as SQSEvent;
    const { result, lines } = await captured(() => handler(event, context('lambda-worker-1', 'maktaba-audio-worker')));

    expect(result).toEqual({ batchItemFailures: [] });
    const failures = emf(lines).filter((line) => metricNamesOf(line).includes('AudioMessagesFailed'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ AudioMessagesFailed: 1, service: 'maktaba', function: 'audio-worker' });
    expect(lines.find((line) => line.level === 'ERROR')).toMatchObject({
      message: 'Audio worker: dropped a message that is not JSON',
      messageId: 'm-1',
      function_request_id: 'lambda-worker-1',
    });
  });

  it('stay off stdout where they are disabled, as in the tests and the local runtime', async () => {
    const handler = await loadNotifications({ POWERTOOLS_METRICS_DISABLED: 'true', AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand' });
    const { result, text } = await captured(() => handler(httpEvent('GET /notifications', 'api-q'), context('lambda-q')));
    expect(result.statusCode).toBe(401);
    expect(text).toBe('');
  });
});
