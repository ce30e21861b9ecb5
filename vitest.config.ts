import { defineConfig } from 'vitest/config';

// The project supports Node 20.19+; the SDK's notice about its 2027 releases is not a test result.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Starts DynamoDB Local, the S3 stand-in and the SQS stand-in once for the whole run.
    globalSetup: ['test/setup/embedded-stack.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Quiet logs; no EMF metrics on stdout and no X-Ray (tests that check them turn them on).
    env: { LOG_LEVEL: 'WARN', POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_TRACE_ENABLED: 'false' },
  },
});
