import * as v from 'valibot';
import { contracts, jsonAnswer } from '../_shared/contract/contract.ts';
import { healthStores, probeTimeoutMs } from '../../lib/health.ts';

/** `GET /health` (issue 29): not in docs/SPEC.md; whether each store the service needs answers, and nothing else. */

const storeState = v.pipe(v.picklist(['ok', 'failed']), v.description('`ok`: it answered a small read within the time allowed; `failed`: it did not.'));
const stores = v.strictObject(Object.fromEntries(healthStores.map((store) => [store.name, v.pipe(storeState, v.description(store.description))])) as v.ObjectEntries);

/** How long a round of probes is reused: at most one round this often per instance. */
export const healthReuseMs = 2_000;

/** Each route's 500 text (its contract's `failure`). */
const healthFailed = 'Error checking the stores';

export const healthContracts = contracts({
  'GET /health': {
    tag: 'Operations',
    summary: 'Whether each store answers',
    failure: healthFailed,
    description:
      `One small read of each store (a fixed key of the table, each bucket’s location, each job queue’s attributes), each given ${probeTimeoutMs / 1000} s, at most one round every ${healthReuseMs / 1000} s per instance. ` +
      'Anyone may ask: the answer says ok or failed per store and nothing of why (the service’s logs do).',
    responses: {
      200: jsonAnswer('Every store answered.', v.strictObject({ status: v.literal('ok'), stores })),
      503: jsonAnswer('At least one store did not answer.', v.strictObject({ status: v.literal('failed'), stores })),
    },
  },
});
