import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpResult = APIGatewayProxyStructuredResultV2 & { statusCode: number };

export const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult => ({
  statusCode,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(body),
});

/** The spec's plain-text bodies (401/403 of the auth layer). */
export const text = (statusCode: number, body: string): HttpResult => ({
  statusCode,
  headers: { 'content-type': 'text/plain; charset=utf-8' },
  body,
});

export const isHttpResult = (value: unknown): value is HttpResult =>
  typeof value === 'object' && value !== null && typeof (value as HttpResult).statusCode === 'number';
