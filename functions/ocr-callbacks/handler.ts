import { dynamoOcrStores } from '../../lib/adapters/dynamo/ocr-stores.ts';
import { dynamoOwedUsageStore } from '../../lib/adapters/dynamo/owed-usage.ts';
import { dynamoUsageStore } from '../../lib/adapters/dynamo/usage.ts';
import { recordFinalResult, recordPageResult } from '../../lib/ocr/jobs/callbacks.ts';
import { once } from '../../lib/lazy.ts';
import { deps as coreDeps } from '../_shared/deps.ts';
import { bucketObjects } from '../_shared/buckets.ts';
import { notifyDeps } from '../_shared/notify-deps.ts';
import { writePathIndex } from '../_shared/adapters/search.ts';
import { ocrCallbackContracts } from './contract.ts';
import { httpFunction } from '../_shared/http/handler.ts';
import { jobCredentialsOf } from '../_shared/job-credentials.ts';
import { json } from '../_shared/http/responses.ts';
import { count, metricNames } from '../_shared/observability.ts';

/** `ocr-callbacks` (docs/DESIGN.md section 1): the OCR worker's page and final results; editors and admins, or the job's own credential. */
const deps = once(() => {
  const core = coreDeps();
  const stores = dynamoOcrStores(core.db);
  return {
    ...core,
    ...stores,
    jobCredentials: jobCredentialsOf(core.config),
    // What a callback wrote is searchable and listed before it answers (read after write).
    index: writePathIndex(stores),
    uploads: bucketObjects(core.config.uploadsBucket),
    // Records usage and its invoicing task only: billing-worker invoices, off the request path.
    usage: dynamoUsageStore(core.db),
    // A completion's usage, owed with its status until recorded (the billing worker records what a callback could not).
    owedUsage: dynamoOwedUsageStore(core.db),
    // A job's outcome is told to its owner (inbox and push).
    inbox: notifyDeps(),
  };
});

export const handler = httpFunction({
  name: 'ocr-callbacks',
  authDeps: deps,
  contracts: ocrCallbackContracts,
  handlers: {
    'POST /ocr/result/page': {
      run: async (request) => {
        const answer = await recordPageResult(deps(), request.body(), request.caller);
        count(metricNames.ocrPagesReported);
        return answer;
      },
    },
    'POST /ocr/result': {
      run: async (request) => json(201, await recordFinalResult(deps(), request.body(), request.caller)),
    },
  },
});
