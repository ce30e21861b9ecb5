import { Logger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';

/**
 * Structured JSON logs (Powertools). Log ids and kinds of things, never tokens, emails or the text
 * of a user's content.
 */
export const logger = new Logger({ serviceName: 'maktaba', logLevel: (process.env.LOG_LEVEL ?? 'INFO') as LogLevel });
