import { traced } from '../../../lib/adapters/aws/tracing.ts';
import { logPush } from '../../../lib/adapters/push/log.ts';
import { config } from '../../../lib/config.ts';
import { once, onFirstUse } from '../../../lib/lazy.ts';
import type { Push } from '../../../lib/notifications/push.ts';

/** Mobile push: SNS on AWS (to the configured platform applications), loaded on first push; a log line locally. */
export const pushAdapter = once(
  (): Push =>
    config().adapters === 'local'
      ? logPush()
      : onFirstUse<Push>(async () => {
          const [{ SNSClient }, { snsPush }] = await Promise.all([import('@aws-sdk/client-sns'), import('../../../lib/adapters/push/sns.ts')]);
          return snsPush(traced(new SNSClient({})), config().pushApplicationArns);
        }),
);
