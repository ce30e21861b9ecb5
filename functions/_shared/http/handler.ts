import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as v from 'valibot';
import { tracer } from '../../../lib/adapters/aws/tracing.ts';
import type { Caller } from '../../../lib/auth/caller.ts';
import type { User } from '../../../lib/auth/users.ts';
import { config } from '../../../lib/config.ts';
import { badRequest } from '../../../lib/errors.ts';
import { once } from '../../../lib/lazy.ts';
import { logger } from '../../../lib/log.ts';
import type { Objects } from '../../../lib/objects.ts';
import { bucketObjects } from '../buckets.ts';
import { count, metricNames, observed } from '../observability.ts';
import { bodyLimitsOf, type BodyOf, type Contract, type QueryOf, type Schema } from '../contract/contract.ts';
import { routeKey, routes, type AuthMode, type FunctionName, type Route } from '../../routes.ts';
import { resolveCaller, type AuthDeps } from './auth.ts';
import { fitAnswer } from './big-answers.ts';
import { parseJsonBody } from './body.ts';
import { readBody } from './request-body.ts';
import { errorResponse, isLogged, styleOf } from './errors.ts';
import { isHttpResult, json, type HttpResult } from './responses.ts';

/** A request as its route's handler reads it: query and body as its contract parsed them. */
export interface Request<C extends Contract = Contract> {
  caller: Caller;
  params: Record<string, string>;
  query: QueryOf<C>;
  /**
   * The body as its contract's schema reads it, read when first asked for: a route whose spec checks
   * other things first (who may edit the book, the subscription, the path) asks after them, so a
   * refused body answers in the spec's order of checks.
   */
  body(): BodyOf<C>;
  rawBody: Buffer;
  headers: Record<string, string | undefined>;
}

/** A route's work; the text of its 500 is its contract's `failure`. */
export interface RouteHandler<C extends Contract = Contract> {
  /** Returns the 200 body, or a full HttpResult for other statuses. */
  run(request: Request<C>): Promise<unknown>;
}

export interface HttpFunctionOptions<C extends Record<string, Contract>> {
  name: FunctionName;
  /** How tokens are checked; only a function whose routes all have auth `none` goes without. */
  authDeps?: () => Promise<AuthDeps> | AuthDeps;
  /** The contracts of this function's routes (functions/_shared/contract/), by route key. */
  contracts: C;
  /** One handler per route of this function in the route table, by route key. */
  handlers: { [Key in keyof C]: RouteHandler<C[Key]> };
  /** Where answers too big for Lambda are handed over (big-answers.ts); default the uploads bucket. */
  answers?: () => Objects;
}

/** The default place for big answers: one per container, shared by every handler. */
const answersBucket = once((): Objects => bucketObjects(config().uploadsBucket));

/** The auth modes that turn away a caller without a valid token before the body is read. */
export const signedInAuth: ReadonlySet<AuthMode> = new Set(['required', 'editor', 'admin']);

/** The signed-in user of a route whose auth mode guarantees one. */
export function signedIn(request: Pick<Request, 'caller'>): User {
  if (request.caller.kind !== 'user') throw new Error('route requires a signed-in caller');
  return request.caller.user;
}

/**
 * Builds a function's Lambda handler: API Gateway v2 event in, result out. Dispatches on the event's
 * route key, resolves the caller per the route's auth mode, and maps errors in one place.
 */
export function httpFunction<C extends Record<string, Contract>>(options: HttpFunctionOptions<C>) {
  const own = new Map<string, Route>(routes.filter((r) => r.function === options.name).map((r) => [routeKey(r), r]));
  const handlers = options.handlers as Record<string, RouteHandler>;
  const contractOf = options.contracts as Record<string, Contract>;
  const missing = [...own.keys()].filter((key) => !handlers[key] || !contractOf[key]);
  const extra = [...Object.keys(handlers), ...Object.keys(contractOf)].filter((key) => !own.has(key));
  if (missing.length || extra.length) {
    throw new Error(`${options.name}: handlers and contracts do not match the route table (missing ${missing}; extra ${extra})`);
  }
  const authDeps =
    options.authDeps ??
    (() => {
      throw new Error(`${options.name}: a route needs a caller but the function has no authDeps`);
    });
  if (!options.authDeps && [...own.values()].some((r) => r.auth !== 'none')) throw new Error(`${options.name}: routes need authDeps`);
  const inflatedByAnyone = [...own].filter(([key, route]) => !signedInAuth.has(route.auth) && contractOf[key]?.body && bodyLimitsOf(contractOf[key].body).compressed);
  if (inflatedByAnyone.length) throw new Error(`${options.name}: only a signed-in caller's route may take a compressed body (${inflatedByAnyone.map(([key]) => key)})`);

  const answers = options.answers ?? answersBucket;
  const dispatch = async (event: APIGatewayProxyEventV2): Promise<HttpResult> => {
    const route = own.get(event.routeKey);
    const handler = handlers[event.routeKey];
    const contract = contractOf[event.routeKey];
    if (!route || !handler || !contract) return json(404, { message: 'Not Found' });
    try {
      const caller = await resolveCaller(authDeps, event, route.auth, { jobCredential: route.jobCredential === true });
      // A route without a body reads none: whatever a client sends it costs nothing.
      const { parsedBody, rawBody } = contract.body ? parseJsonBody(event, bodyLimitsOf(contract.body)) : { parsedBody: {}, rawBody: Buffer.alloc(0) };
      const query = event.queryStringParameters ?? {};
      const result = await handler.run({
        caller,
        params: (event.pathParameters ?? {}) as Record<string, string>,
        query: contract.query ? parsed(contract.query, query) : query,
        body: once(() => (contract.body?.kind === 'json' ? readBody(contract.body, parsedBody) : {}) as never),
        rawBody,
        headers: event.headers ?? {},
      });
      return await fitAnswer(isHttpResult(result) ? result : json(200, result), event.headers?.['accept-encoding'], answers);
    } catch (error) {
      const response = errorResponse(error, styleOf[options.name], contract.failure);
      if (response.statusCode >= 500 && isLogged(error)) {
        // The request's ids and route are on every line already (see httpRequestContext).
        logger.error(contract.failure, { error: error as Error });
      }
      return response;
    }
  };

  return middy<APIGatewayProxyEventV2, HttpResult>()
    .use(observed(options.name))
    .use(httpRequestContext())
    .use(httpHeaderNormalizer())
    .handler(dispatch);
}

/** A schema's output, or a 400 with its first issue's message (the contracts write those in the spec's words). */
function parsed(schema: Schema, input: unknown) {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (!result.success) throw badRequest(result.issues[0].message);
  return result.output as never;
}

/** 1 for a response of the status class, else 0: summed a count, averaged a rate. */
function countStatus(statusCode: number): void {
  count(metricNames.http4xx, statusCode >= 400 && statusCode < 500 ? 1 : 0);
  count(metricNames.http5xx, statusCode >= 500 ? 1 : 0);
}

/**
 * Per request: the API Gateway request id as the logs' correlation id (what a client or API Gateway's
 * access log reports) and the route key (a template, so no ids from the path) on logs and the trace;
 * after it, the response's status class as metrics. An invocation that throws is API Gateway's 500.
 */
function httpRequestContext(): MiddlewareObj<APIGatewayProxyEventV2, HttpResult> {
  return {
    before: ({ event }) => {
      const requestId = event.requestContext?.requestId;
      if (requestId) logger.setCorrelationId(requestId);
      logger.appendKeys({ route: event.routeKey });
      tracer.putAnnotation('route', event.routeKey);
    },
    after: ({ response }) => countStatus(response?.statusCode ?? 200),
    onError: () => countStatus(500),
  };
}
