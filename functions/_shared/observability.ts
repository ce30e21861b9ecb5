import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';
import { tracer } from '../../lib/adapters/aws/tracing.ts';
import { logger } from '../../lib/log.ts';
import { metricNames, metricsNamespace, serviceName, type MetricName } from './metric-names.ts';

/**
 * Logs, metrics and traces for every function (Powertools), as middy middlewares:
 * - logs carry the invocation (`function_request_id`, `cold_start`, the function's name and ARN) and,
 *   for HTTP, the API Gateway request id as `correlation_id` and the `route`; keys appended during an
 *   invocation are dropped at its end. The event is never logged: it carries tokens and personal data.
 * - metrics are CloudWatch EMF lines on stdout, flushed once per invocation, in namespace `Maktaba`
 *   with dimensions `service` and `function` (the function's name in the route table, e.g. `ocr-api`),
 *   never a user's id or anything from a request. `ColdStart` also carries Lambda's `function_name`.
 * - traces: the tracer of lib/adapters/aws/tracing.ts, without responses (books, tokens) as metadata.
 *
 * Locally and in tests, `POWERTOOLS_METRICS_DISABLED=true` and `POWERTOOLS_TRACE_ENABLED=false` keep
 * EMF off stdout and X-Ray off (infra/local/process-setup.ts, vitest.config.ts, bench/env.ts).
 */
export const metrics = new Metrics({ namespace: metricsNamespace, serviceName });

export { metricNames, type MetricName };

export const count = (name: MetricName, value = 1): void => {
  metrics.addMetric(name, MetricUnit.Count, value);
};

/** A duration in seconds (e.g. the age of the oldest pending invoice), for alarms on its maximum. */
export const seconds = (name: MetricName, value: number): void => {
  metrics.addMetric(name, MetricUnit.Seconds, value);
};

let dimensionsOf: string | undefined;

/**
 * Sets the `function` dimension when the function changes: once per Lambda process (setting it again
 * would log a warning per invocation); locally, where one process serves every function, per switch.
 */
const functionDimension = (functionName: string): MiddlewareObj => ({
  before: () => {
    if (dimensionsOf === functionName) return;
    metrics.clearDefaultDimensions();
    metrics.setDefaultDimensions({ service: serviceName, function: functionName });
    dimensionsOf = functionName;
  },
});

/**
 * The middlewares every function's handler starts with, outermost first: log context, then the
 * handler's trace subsegment, then metrics (flushed after the handler's own middlewares have run).
 */
export function observed(functionName: string): MiddlewareObj[] {
  return [
    injectLambdaContext(logger, { resetKeys: true, logEvent: false }),
    captureLambdaHandler(tracer, { captureResponse: false }),
    functionDimension(functionName),
    logMetrics(metrics, { captureColdStartMetric: true, throwOnEmptyMetrics: false }),
  ];
}
