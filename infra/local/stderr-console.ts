import { Console } from 'node:console';

/**
 * The local runtime keeps stdout for its contract (the URL line of `npm start`, the JSON of the
 * CLI): logs, including Powertools' (in dev mode it writes through the global console), go to
 * stderr. Import this first.
 */
process.env.POWERTOOLS_DEV = 'true';
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
