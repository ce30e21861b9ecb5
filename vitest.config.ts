import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Starts DynamoDB Local, the S3 stand-in and the SQS stand-in once for the whole run.
    globalSetup: ['test/setup/embedded-stack.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
