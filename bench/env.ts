import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedStores, type EmbeddedStores } from '../infra/local/embedded/index.ts';
import type { SeedOutput } from '../infra/local/seed.ts';
import { functionEnvironment, names } from '../infra/local/state.ts';

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
    queues: [names.ocrQueue, names.audioQueue, names.announcementQueue],
  });

/** A benchmark's stack: its stores, the functions' environment and token secret, and how to end it all. */
export interface BenchStack {
  dataDir: string;
  stores: EmbeddedStores;
  /** The secret the functions verify tokens with (sign the bench's own with it). */
  secret: string;
  /** The local HTTP server over the real handlers, as `npm start` serves them; stopped by `close`. */
  serve(): Promise<{ url: string }>;
  close(): Promise<void>;
}

/**
 * The stack every benchmark runs on, as `npm start` makes it: quiet logs, the embedded stores in a
 * fresh directory, and the functions' environment, set before any handler module loads (a function
 * reads its configuration once per process). `close` stops and removes it all and puts the
 * environment back; `name` labels what a failed stop prints.
 */
export async function openBenchStack(name: string): Promise<BenchStack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'maktaba-bench-'));
  const restoreQuiet = quiet();
  let stores: EmbeddedStores | undefined;
  let server: { close(): Promise<void> } | undefined;
  let restoreEnv = () => {};
  const close = async () => {
    await server?.close().catch(() => undefined);
    await stores?.stop().catch((error: Error) => process.stderr.write(`${name}: ${error.message}\n`));
    restoreEnv();
    restoreQuiet();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    stores = await startBenchStores(dataDir);
    const secret = randomBytes(32).toString('hex');
    restoreEnv = setEnv(
      functionEnvironment(
        { tableName: names.tableName, uploadsBucket: names.uploadsBucket, audioBucket: names.audioBucket, endpoints: stores.endpoints, queueUrls: stores.queueUrls },
        secret,
      ),
    );
    const started = stores;
    return {
      dataDir,
      stores: started,
      secret,
      async serve() {
        const [{ loadHttpHandlers }, { startLocalServer }] = await Promise.all([import('../infra/local/functions.ts'), import('../infra/local/server.ts')]);
        const running = await startLocalServer({ host: '127.0.0.1', port: 0, handlers: await loadHttpHandlers() });
        server = running;
        return { url: running.url };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Users made as the seed file makes them (infra/local/seed.ts), in the bench stack's table, each with
 * a token the stack's functions accept: the accounts a bench calls the API as.
 */
export async function seedBenchUsers(
  stack: Pick<BenchStack, 'secret'>,
  users: { key: string; username: string; role?: 'editor' | 'admin'; subscription?: { tier: string; status: 'active' } }[],
  tokenSeconds = 3600,
): Promise<SeedOutput['users']> {
  const [{ seed }, { signToken }, { parseTierCatalogue }, { dynamoDocumentClient }, userStore, subscriptions, books, notifications] = await Promise.all([
    import('../infra/local/seed.ts'),
    import('../lib/auth/tokens.ts'),
    import('../lib/billing/tiers.ts'),
    import('../lib/adapters/aws/clients.ts'),
    import('../lib/adapters/dynamo/users.ts'),
    import('../lib/adapters/dynamo/subscriptions.ts'),
    import('../lib/adapters/dynamo/books.ts'),
    import('../lib/adapters/dynamo/notifications.ts'),
  ]);
  const db = { client: dynamoDocumentClient(), tableName: names.tableName };
  const seeded = await seed(
    {
      users: userStore.dynamoUserStore(db),
      subscriptions: subscriptions.dynamoSubscriptionStore(db),
      books: books.dynamoBookStore(db),
      notifications: notifications.dynamoNotificationStore(db),
    },
    { users },
    { now: new Date(), tierCatalogue: parseTierCatalogue(undefined), issueToken: (userId) => signToken(stack.secret, userId, tokenSeconds) },
  );
  return seeded.users;
}

/** The two accounts most benches call the API as: the OCR worker (an editor) and a member subscribed on `memberTier`. */
export async function seedWorkerAndMember(stack: Pick<BenchStack, 'secret'>, memberTier = 'pro') {
  const seeded = await seedBenchUsers(stack, [
    { key: 'worker', username: 'ocr-worker', role: 'editor' },
    { key: 'member', username: 'reader', subscription: { tier: memberTier, status: 'active' } },
  ]);
  return { worker: seeded.worker!, member: seeded.member! };
}

/**
 * A bench over the served stack, called as the OCR worker and a member (`seedWorkerAndMember`): `body`
 * runs with the server's URL and the two accounts, and the stack is closed whatever happens.
 */
export async function withServedStack<R>(
  name: string,
  body: (served: { url: string } & Awaited<ReturnType<typeof seedWorkerAndMember>>) => Promise<R>,
): Promise<R> {
  const stack = await openBenchStack(name);
  try {
    const { url } = await stack.serve();
    return await body({ url, ...(await seedWorkerAndMember(stack)) });
  } finally {
    await stack.close();
  }
}
