import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { httpFunctions, routeKey, routes, type FunctionName, type Route } from '../functions/routes.ts';
import { corsPolicy } from './cors.ts';
import { pascal } from './names.ts';
import type { Settings, Throttle } from './settings.ts';

/**
 * One access-log line per request: who asked what and how it went, with the request id the
 * functions log as their correlation id. No query strings or headers: they can carry tokens.
 */
const accessLogFields = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
};

export interface ApiProps {
  functions: ReadonlyMap<string, lambda.IFunction>;
  corsOrigins: readonly string[];
  throttle: Settings['throttle'];
}

/** A route anyone may call without an account: a GET whose token is optional or not read at all. */
export const isPublicRead = (route: Route): boolean =>
  route.method === 'GET' && (route.auth === 'none' || route.auth === 'optional' || route.auth === 'optional-lenient');

/** CloudFormation's RouteSettings entry (a raw map: CDK passes its keys through as written). */
const routeThrottle = (t: Throttle) => ({ ThrottlingRateLimit: t.rate, ThrottlingBurstLimit: t.burst });

/**
 * The HTTP API: one route per route-table entry, each to its function (payload 2.0, so binary bodies
 * pass as base64 with `isBase64Encoded` and need no binary media types). Auth is the functions' own
 * (docs/DESIGN.md section 1). CORS (infra/cors.ts) is answered by API Gateway.
 *
 * Throttling is per route (an HTTP API has no per-client limits): every route gets the default, the
 * anonymous read routes a lower share, so that a flood of public reads cannot take the Lambda
 * concurrency the worker callbacks and signed-in callers need (settings.ts gives the numbers).
 */
export function httpApi(scope: Construct, props: ApiProps): HttpApi {
  const api = new HttpApi(scope, 'Api', {
    description: 'Maktaba HTTP API',
    createDefaultStage: false,
    corsPreflight: {
      allowOrigins: [...props.corsOrigins],
      allowMethods: corsPolicy.allowMethods.map((m) => CorsHttpMethod[m]),
      allowHeaders: [...corsPolicy.allowHeaders],
      exposeHeaders: [...corsPolicy.exposeHeaders],
      maxAge: Duration.seconds(corsPolicy.maxAgeSeconds),
    },
  });
  const accessLogs = new logs.LogGroup(scope, 'ApiAccessLogs', {
    retention: logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const stage = new HttpStage(scope, 'ApiStage', {
    httpApi: api,
    stageName: '$default',
    autoDeploy: true,
    accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: AccessLogFormat.custom(JSON.stringify(accessLogFields)) },
    throttle: { rateLimit: props.throttle.route.rate, burstLimit: props.throttle.route.burst },
  });

  const integrations = new Map(
    httpFunctions().map((name: FunctionName) => [
      name,
      new HttpLambdaIntegration(`${pascal(name)}Integration`, props.functions.get(name)!, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      }),
    ]),
  );
  const routeSettings: Record<string, ReturnType<typeof routeThrottle>> = {};
  for (const route of routes) {
    const created = api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration: integrations.get(route.function)! });
    if (!isPublicRead(route)) continue;
    routeSettings[routeKey(route)] = routeThrottle(props.throttle.publicRead);
    // CloudFormation refuses settings for a route that does not exist yet.
    stage.node.addDependency(...created);
  }
  // The L2 stage has no per-route settings: set them on the CloudFormation resource.
  (stage.node.defaultChild as CfnStage).routeSettings = routeSettings;
  return api;
}
