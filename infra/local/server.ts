import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { FunctionName } from '../../functions/routes.ts';
import { corsPreflightHeaders, corsResponseHeaders } from '../cors.ts';
import { jsonBytes, platformAnswers, platformLimits, type PlatformAnswer } from '../../functions/_shared/http/platform-limits.ts';
import { MalformedPath, matchRoute } from './router.ts';

export type LambdaHttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const textTypes = /^(application\/(json|.*\+json|x-www-form-urlencoded|xml)|text\/)/i;

/** The request's body, or 'too-large' past the HTTP API's payload limit (no function sees such a request on AWS either). */
function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const maxBodyBytes = platformLimits.httpApiBodyBytes;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > maxBodyBytes ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The API Gateway HTTP API (payload format 2.0) event for a request, as AWS would build it. */
export function toEvent(req: IncomingMessage, body: Buffer, routeKey: string, pathParameters: Record<string, string>) {
  const url = new URL(req.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  // A compressed body is bytes whatever its type: passed base64-encoded, as HTTP APIs pass binary.
  const encoded = (headers['content-encoding'] ?? 'identity').trim().toLowerCase() !== 'identity';
  const isText = body.length === 0 || (!encoded && textTypes.test(headers['content-type'] ?? ''));
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: headers.cookie?.split(';').map((c) => c.trim()),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: body.length ? body.toString(isText ? 'utf8' : 'base64') : undefined,
    isBase64Encoded: !isText,
  };
  return event;
}

/**
 * The Lambda context an invocation of the function gets (the logs' request id, function name and ARN);
 * `deadline` (epoch ms), when given, is what its remaining time counts down to.
 */
export function lambdaContext(functionName: string, requestId: string, deadline?: number): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => (deadline === undefined ? platformLimits.integrationTimeoutMs : Math.max(0, deadline - Date.now())),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2) {
  const body = result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  const headers: Record<string, string | number | string[]> = { ...(result.headers ?? {}) } as Record<string, string>;
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  headers['content-length'] = body.length;
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}

const jsonMessage = (statusCode: number, message: string) => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message }),
});

const platformAnswer = ({ statusCode, message }: PlatformAnswer) => jsonMessage(statusCode, message);

/** One line for the developer: why the client got an AWS error rather than the function's answer. */
const report = (routeKey: string, why: string) => process.stderr.write(`local server: ${routeKey}: ${why}\n`);

type Invocation =
  | { outcome: 'answered'; result: APIGatewayProxyStructuredResultV2 }
  | { outcome: 'failed'; error: unknown }
  | { outcome: 'timed-out' };

/**
 * Runs the handler as the HTTP API waits for it: at most `timeoutMs`. Past that the handler keeps
 * running, as a function does to its own timeout, but what it answers or throws then is dropped
 * (a late failure is logged, as Lambda would log it); nothing it does can reject unhandled.
 */
function invoke(handler: LambdaHttpHandler, event: APIGatewayProxyEventV2, functionName: string, timeoutMs: number): Promise<Invocation> {
  return new Promise((settle) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      settle({ outcome: 'timed-out' });
    }, timeoutMs);
    timer.unref();
    const context = lambdaContext(functionName, event.requestContext.requestId, Date.now() + timeoutMs);
    // Through a promise so that a handler that throws before returning one fails like one that rejects.
    new Promise<APIGatewayProxyStructuredResultV2>((resolve) => resolve(handler(event, context))).then(
      (result) => {
        clearTimeout(timer);
        settle({ outcome: 'answered', result });
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (timedOut) report(event.routeKey, `failed after the integration timeout: ${(error as Error)?.stack ?? error}`);
        settle({ outcome: 'failed', error });
      },
    );
  });
}

/** The HTTP API's answer for an invocation, or the function's own result when it is within the limits. */
function answerFor(routeKey: string, invocation: Exclude<Invocation, { outcome: 'failed' }>, timeoutMs: number): APIGatewayProxyStructuredResultV2 {
  if (invocation.outcome === 'timed-out') {
    report(routeKey, `no answer within the integration timeout (${timeoutMs} ms): ${platformAnswers.timeout.statusCode} to the client`);
    return platformAnswer(platformAnswers.timeout);
  }
  // Lambda measures the result as its runtime serializes it, base64 bodies at their encoded size.
  const size = jsonBytes(invocation.result);
  if (size > platformLimits.lambdaResponseBytes) {
    report(
      routeKey,
      `response of ${size} bytes exceeds Lambda's ${platformLimits.lambdaResponseBytes}: ${platformAnswers.responseTooLarge.statusCode} to the client, body dropped`,
    );
    return platformAnswer(platformAnswers.responseTooLarge);
  }
  return invocation.result;
}

/** Serves the route table over HTTP, invoking each route's function handler like API Gateway does. */
export async function startLocalServer(options: {
  host: string;
  port: number;
  handlers: Record<FunctionName, LambdaHttpHandler>;
  /** Origins allowed to call from a browser, as the stack's `corsOrigins`; default any. */
  corsOrigins?: readonly string[];
  /** How long a request waits for its function: the HTTP API's integration timeout unless a test wants less. */
  timeoutMs?: number;
  /** Sees every answer a function gives, as it leaves the function (the tests hold each to its route's contract). */
  onAnswer?: (routeKey: string, result: APIGatewayProxyStructuredResultV2) => void;
}): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const origins = options.corsOrigins ?? ['*'];
  const timeoutMs = options.timeoutMs ?? platformLimits.integrationTimeoutMs;
  const server = createServer(async (req, res) => {
    const origin = req.headers.origin;
    if (req.method === 'OPTIONS' && origin && req.headers['access-control-request-method']) {
      res.writeHead(204, corsPreflightHeaders(origin, origins));
      return res.end();
    }
    for (const [name, value] of Object.entries(corsResponseHeaders(origin, origins))) res.setHeader(name, value);
    try {
      const path = new URL(req.url ?? '/', 'http://local').pathname;
      const match = matchRoute(req.method ?? 'GET', path);
      const body = await readBody(req);
      if (!match) return send(res, jsonMessage(404, 'Not Found'));
      if (body === 'too-large') return send(res, platformAnswer(platformAnswers.bodyTooLarge));
      const event = toEvent(req, body, match.routeKey, match.pathParameters);
      const eventSize = jsonBytes(event);
      if (eventSize > platformLimits.lambdaRequestBytes) {
        report(
          match.routeKey,
          `event of ${eventSize} bytes exceeds Lambda's ${platformLimits.lambdaRequestBytes}: ${platformAnswers.eventTooLarge.statusCode} to the client, function not invoked`,
        );
        return send(res, platformAnswer(platformAnswers.eventTooLarge));
      }
      const invocation = await invoke(options.handlers[match.route.function], event, match.route.function, timeoutMs);
      if (invocation.outcome === 'failed') throw invocation.error;
      if (invocation.outcome === 'answered') options.onAnswer?.(match.routeKey, invocation.result);
      send(res, answerFor(match.routeKey, invocation, timeoutMs));
    } catch (error) {
      if (error instanceof MalformedPath) return send(res, jsonMessage(400, 'Bad Request'));
      // What API Gateway answers when a function fails without a response.
      process.stderr.write(`local server: ${(error as Error).stack ?? error}\n`);
      if (!res.headersSent) send(res, jsonMessage(500, 'Internal Server Error'));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
