import { inject } from 'vitest';

/**
 * Each test file's environment is its own project's stack (embedded-stack.ts): vitest runs every
 * project's global setup before any test, so the environment workers inherit is the last one's. A
 * setup file, run in the worker before the test file is imported.
 */
Object.assign(process.env, JSON.parse(inject('STACK_ENV')) as Record<string, string>);
