import { Console } from 'node:console';

/**
 * Process set-up for the local entry points (`npm start`, the CLI); import it first.
 * - stdout is kept for their contract (the URL line, the CLI's JSON): logs, Powertools' included
 *   (in dev mode it writes through the global console), go to stderr.
 * - The local runtime supports Node 20.19+; the SDK's notice that its 2027 releases need Node 22
 *   is for whoever upgrades the pinned SDK, not for every run.
 * - No metrics and no traces: EMF lines are for CloudWatch, and there is no X-Ray daemon here. Both
 *   are off outside Lambda already (dev mode disables metrics; the tracer needs AWS_EXECUTION_ENV,
 *   which containers such as CodeBuild's also set), so this says it outright.
 * - Quiet once running: warnings and errors only, unless asked (`LOG_LEVEL=INFO npm start` shows the
 *   service's info logs: sweeps, requeued jobs, the local push stand-in's lines).
 */
process.env.LOG_LEVEL ??= 'WARN';
process.env.POWERTOOLS_DEV = 'true';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_TRACE_ENABLED ??= 'false';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
