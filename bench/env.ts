import { startEmbeddedStores } from '../infra/local/embedded/index.ts';
import { names } from '../infra/local/state.ts';

/** Sets the variables, returning a function that puts back what was there before. */
export function setEnv(vars: Record<string, string>): () => void {
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/**
 * Quiet, as in the tests: no per-request logs, no EMF metrics on stdout, no X-Ray, and no SDK notice
 * about its 2027 releases. Set before the handlers are imported: Powertools reads these at load.
 */
export const quiet = (): (() => void) =>
  setEnv({
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARN',
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
    POWERTOOLS_TRACE_ENABLED: process.env.POWERTOOLS_TRACE_ENABLED ?? 'false',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ?? 'true',
  });

/** The embedded stores a benchmark runs against, as `npm start` creates them, in `dataDir`. */
export const startBenchStores = (dataDir: string) =>
  startEmbeddedStores({
    dataDir,
    tableName: names.tableName,
    buckets: [names.uploadsBucket, names.audioBucket],
    queues: [names.ocrQueue, names.audioQueue],
  });
