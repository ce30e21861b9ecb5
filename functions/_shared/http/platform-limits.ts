/**
 * The limits API Gateway (HTTP API, payload format 2.0, Lambda proxy integration) and Lambda put on
 * a synchronous request, and what the HTTP API answers a client past each one. The one source of
 * these numbers: the local server enforces them (infra/local/server.ts), the HTTP layer fits its answers within them
 * (big-answers.ts), benches and tests read them.
 */
export const platformLimits = {
  /**
   * Request body an HTTP API accepts: "Payload size 10 MB", not increasable (API Gateway quotas,
   * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html).
   */
  httpApiBodyBytes: 10 * 1024 * 1024,
  /**
   * Event JSON a synchronous invocation takes (headers, query, body as UTF-8 or base64,
   * requestContext all count): "Invocation payload (request and response) 6 MB" (Lambda quotas,
   * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html); Lambda's Invoke refuses
   * more with RequestEntityTooLargeException "Request must be smaller than 6291456 bytes".
   */
  lambdaRequestBytes: 6_291_456,
  /**
   * The handler's result as the runtime serializes it (JSON, UTF-8): Lambda fails the invocation past
   * it with Function.ResponseSizeTooLarge "Response payload size exceeded maximum allowed payload size
   * (6291556 bytes)", 100 bytes more than the request limit (same quotas page; the exact count is
   * the one in Lambda's error message).
   */
  lambdaResponseBytes: 6_291_556,
  /**
   * How long an HTTP API waits for its integration: "Maximum integration timeout 30 seconds" (HTTP API
   * quotas, above). The function keeps running past it, to its own timeout.
   */
  integrationTimeoutMs: 30_000,
} as const;

export interface PlatformAnswer {
  statusCode: number;
  message: string;
}

/**
 * What the HTTP API answers the client, as `{"message": ...}` JSON, past each limit. REST APIs answer
 * otherwise (413 "Request Too Long", 502, 504 "Endpoint request timed out"); these are the HTTP API's.
 * Sources: a Lambda integration's failure is `{"message":"Internal Server Error"}` ("Troubleshooting
 * issues with HTTP API Lambda integrations",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-troubleshooting-lambda.html),
 * also for a result over 6 MB (github.com/brefphp/bref/issues/1090); the integration timeout is 503
 * `{"message":"Service Unavailable"}` (github.com/cortexlabs/cortex/issues/1225,
 * github.com/serverless/serverless/issues/11222). For an event over Lambda's limit only the 413 is
 * documented (Lambda's Invoke error); the body is taken to be the HTTP API's 413 of the 10 MB limit.
 */
export const platformAnswers = {
  /** A body over `httpApiBodyBytes`: refused before any function runs. */
  bodyTooLarge: { statusCode: 413, message: 'Request Entity Too Large' },
  /** An event over `lambdaRequestBytes`: Lambda's Invoke answers 413, passed on; the function never runs. */
  eventTooLarge: { statusCode: 413, message: 'Request Entity Too Large' },
  /** A result over `lambdaResponseBytes`: a failed invocation, which an HTTP API answers as any function error. */
  responseTooLarge: { statusCode: 500, message: 'Internal Server Error' },
  /** No answer within `integrationTimeoutMs`. */
  timeout: { statusCode: 503, message: 'Service Unavailable' },
  /**
   * A route past its stage's throttling (infra/settings.ts): "429 Too Many Requests" (HTTP API
   * throttling, https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-throttling.html).
   * The local server does not throttle.
   */
  throttled: { statusCode: 429, message: 'Too Many Requests' },
} as const satisfies Record<string, PlatformAnswer>;

/** Bytes of a value as JSON in UTF-8: how Lambda measures an event and a handler's result. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
