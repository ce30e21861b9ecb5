import { configDefaults, defineConfig } from 'vitest/config';

// The project supports Node 20.19+; the SDK's notice about its 2027 releases is not a test result.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** The domain's rules on in-memory fakes (test/support/fakes): no store, so no global setup. */
const domain = ['test/unit/domain/**/*.test.ts'];

/**
 * Tests that time the stores under load of their own: they run after every other file, alone, on a
 * stack of their own, so that a bound they check is this code's, not the rest of the suite's.
 */
const alone = ['test/http/audio-bucket-events.test.ts', 'test/http/page-caps.test.ts'];
const embeddedStores = ['test/setup/embedded-stack.ts'];
/** Each file takes its own project's stack's environment (test/setup/stack-env.ts). */
const stackEnv = ['test/setup/stack-env.ts'];

export default defineConfig({
  test: {
    // Every run in a clean clone's order (larger files first). With the results cache a second run starts the
    // longest files together (the stack's, the e2e stacks', the OCR worker's), and the race tests beside them ran 7 to
    // 12 times slower on a starved DynamoDB Local (CI's second run, on Node 22, 2026-11-28: 10.7 s → 99 s).
    cache: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Quiet logs; no EMF metrics on stdout and no X-Ray (tests that check them turn them on).
    env: { LOG_LEVEL: 'WARN', POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_TRACE_ENABLED: 'false' },
    projects: [
      { extends: true, test: { name: 'domain', include: domain } },
      {
        extends: true,
        test: {
          name: 'stores',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...domain, ...alone],
          // Starts DynamoDB Local, the S3 stand-in and the SQS stand-in once for the whole run.
          globalSetup: embeddedStores,
          setupFiles: stackEnv,
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: alone, globalSetup: embeddedStores, setupFiles: stackEnv, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
