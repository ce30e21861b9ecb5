import { traced } from '../../../lib/adapters/aws/tracing.ts';
import { ledgerPush } from '../../../lib/adapters/push/ledger.ts';
import { config } from '../../../lib/config.ts';
import { once, onFirstUse } from '../../../lib/lazy.ts';
import type { Push } from '../../../lib/notifications/push.ts';
import { deps } from '../deps.ts';

/** Mobile push: SNS on AWS (to the configured platform applications), loaded on first push; the table's ledger locally (the CLI's `push sent`). */
export const pushAdapter = once(
  (): Push =>
    config().adapters === 'local'
      ? ledgerPush(deps().db)
      : onFirstUse<Push>(async () => {
          const [{ SNSClient }, { snsPush }] = await Promise.all([import('@aws-sdk/client-sns'), import('../../../lib/adapters/push/sns.ts')]);
          return snsPush(traced(new SNSClient({})), config().pushApplicationArns);
        }),
);
