import { Logger } from '@aws-lambda-powertools/logger';

/** The worker's log: JSON lines naming jobs and pages, never a user's text or the token. */
export const log = new Logger({ serviceName: 'maktaba-ocr-worker' });
