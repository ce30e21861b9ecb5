import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { Caller } from '../../lib/auth/caller.ts';
import type { User } from '../../lib/auth/users.ts';
import { logger } from '../../lib/log.ts';
import { routeKey, routes, type FunctionName, type Route } from '../routes.ts';
import { AuthRejection, resolveCaller, type AuthDeps } from './auth.ts';
import { parseJsonBody } from './body.ts';
import { errorResponse, type ErrorStyle } from './errors.ts';
import { isHttpResult, json, type HttpResult } from './responses.ts';

export interface Request {
  caller: Caller;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: Record<string, unknown>;
  rawBody: Buffer;
  headers: Record<string, string | undefined>;
}

export interface RouteHandler {
  /** The operation text of the spec's 500 body for this route. */
  failure: string;
  /** Returns the 200 body, or a full HttpResult for other statuses. */
  run(request: Request): Promise<unknown>;
}

export interface HttpFunctionOptions {
  name: FunctionName;
  style: ErrorStyle;
  authDeps: () => Promise<AuthDeps> | AuthDeps;
  /** One handler per route of this function in the route table, by route key. */
  handlers: Record<string, RouteHandler>;
}

/** The signed-in user of a route whose auth mode guarantees one. */
export function signedIn(request: Request): User {
  if (request.caller.kind !== 'user') throw new Error('route requires a signed-in caller');
  return request.caller.user;
}

/**
 * Builds a function's Lambda handler: API Gateway v2 event in, result out. Dispatches on the event's
 * route key, resolves the caller per the route's auth mode, and maps errors in one place.
 */
export function httpFunction(options: HttpFunctionOptions) {
  const own = new Map<string, Route>(routes.filter((r) => r.function === options.name).map((r) => [routeKey(r), r]));
  const missing = [...own.keys()].filter((key) => !options.handlers[key]);
  const extra = Object.keys(options.handlers).filter((key) => !own.has(key));
  if (missing.length || extra.length) {
    throw new Error(`${options.name}: handlers do not match the route table (missing ${missing}; extra ${extra})`);
  }

  const dispatch = async (event: APIGatewayProxyEventV2, context?: Context): Promise<HttpResult> => {
    const route = own.get(event.routeKey);
    const handler = options.handlers[event.routeKey];
    if (!route || !handler) return json(404, { message: 'Not Found' });
    try {
      const caller = await resolveCaller(await options.authDeps(), event, route.auth);
      const { parsedBody, rawBody } = parseJsonBody(event);
      const result = await handler.run({
        caller,
        params: (event.pathParameters ?? {}) as Record<string, string>,
        query: event.queryStringParameters ?? {},
        body: parsedBody,
        rawBody,
        headers: event.headers ?? {},
      });
      return isHttpResult(result) ? result : json(200, result);
    } catch (error) {
      if (error instanceof AuthRejection) return error.response;
      const response = errorResponse(error, options.style, handler.failure);
      if (response.statusCode >= 500) {
        logger.error(handler.failure, { route: event.routeKey, requestId: context?.awsRequestId, error: error as Error });
      }
      return response;
    }
  };

  return middy<APIGatewayProxyEventV2, HttpResult>().use(httpHeaderNormalizer()).handler(dispatch);
}
