import './process-setup.ts';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { dynamoDocumentClient } from '../../lib/adapters/aws/clients.ts';
import { ledgerBilling } from '../../lib/adapters/billing/ledger.ts';
import { ledgerPush } from '../../lib/adapters/push/ledger.ts';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { dynamoAudioFiles } from '../../lib/adapters/dynamo/audio-files.ts';
import { dynamoBookStore } from '../../lib/adapters/dynamo/books.ts';
import { dynamoNotificationStore } from '../../lib/adapters/dynamo/notifications.ts';
import { dynamoSubscriptionStore } from '../../lib/adapters/dynamo/subscriptions.ts';
import { dynamoUserStore } from '../../lib/adapters/dynamo/users.ts';
import { parseTokenLifetime, signToken } from '../../lib/auth/tokens.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { parseTierCatalogue } from '../../lib/billing/tiers.ts';
import { reconcileOptions, reconcileUsage, runReconcile } from '../../scripts/audio-reconcile.ts';
import { peekQueue } from './embedded/sqs.ts';
import { seed } from './seed.ts';
import { dataDir, functionEnvironment, jwtSecret, names, readStack } from './state.ts';

/**
 * `npm run --silent cli -- COMMAND` (docs/local-runtime.md): JSON (or a bare token) on stdout,
 * diagnostics on stderr; any error exits non-zero with a one-line message on stderr, and a wrong or
 * missing argument also prints the usage there; `--help` or no command prints the usage and exits 0.
 */
const usage = `usage: npm run --silent cli -- COMMAND
  seed FILE
  token USER_ID [--expires-in SECONDS]
  user delete USER_ID
  book show BOOK_ID
  queue peek ocr
  billing invoices USER_ID
  push sent USER_ID
  ${reconcileUsage}`;

const dayInSeconds = 24 * 60 * 60;

/** The running stack's table, reached with the same client and environment the functions use. */
function db() {
  const stack = readStack(dataDir());
  Object.assign(process.env, functionEnvironment(stack, ''));
  return { client: dynamoDocumentClient(), tableName: stack.tableName };
}

const issueToken = (userId: string, expiresIn = dayInSeconds) => signToken(jwtSecret(dataDir(), false), userId, expiresIn);

/** A wrong or missing argument: its one line, then the usage (on stderr). */
class UsageError extends Error {}

async function run(argv: string[]): Promise<unknown> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) return { bare: usage };
  // Its own words and options (reconcileOptions): a wrong one is answered with its usage.
  if (argv[0] === 'audio' && argv[1] === 'reconcile') {
    const options = reconcileOptions(argv.slice(2));
    const table = db();
    const stack = readStack(dataDir());
    return runReconcile({ audio: s3Objects(s3Client(), stack.audioBucket), audioFiles: dynamoAudioFiles(table) }, options);
  }
  const options = { 'expires-in': { type: 'string' } } as const;
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { positionals, values } = parsed;
  const [command, ...rest] = positionals;
  const words = [command, rest[0]].join(' ');

  if (command === 'seed' && rest.length === 1) {
    let file: unknown;
    try {
      file = JSON.parse(readFileSync(rest[0]!, 'utf8'));
    } catch (error) {
      throw new Error(`cannot read seed file ${rest[0]}: ${(error as Error).message}`);
    }
    const table = db();
    return seed(
      {
        users: dynamoUserStore(table),
        subscriptions: dynamoSubscriptionStore(table),
        books: dynamoBookStore(table),
        notifications: dynamoNotificationStore(table),
      },
      file,
      { now: new Date(), tierCatalogue: parseTierCatalogue(process.env.TIER_CATALOGUE), issueToken: (id) => issueToken(id) },
    );
  }
  if (command === 'token' && rest.length === 1) {
    const lifetime = parseTokenLifetime(values['expires-in'], dayInSeconds);
    // A token for nobody would be refused by every route ("User not found"): refused here instead.
    if (!(await dynamoUserStore(db()).get(rest[0]!))) throw new Error(`no user ${rest[0]}`);
    return { bare: await issueToken(rest[0]!, lifetime) };
  }
  if (words === 'user delete' && rest.length === 2) {
    if (!(await dynamoUserStore(db()).delete(rest[1]!))) throw new Error(`no user ${rest[1]}`);
    return { deleted: true };
  }
  if (words === 'book show' && rest.length === 2) {
    const books = dynamoBookStore(db());
    const book = await books.get(rest[1]!);
    if (!book) throw new Error(`no book ${rest[1]}`);
    const lines = await books.lines(book.bookId);
    return {
      bookId: book.bookId,
      title: book.title,
      author: book.author,
      ownerId: book.ownerId,
      accessModel: book.accessModel,
      visibility: book.visibility,
      metadata: book.metadata,
      lines: lines.map(({ lineId, arabic, english, commentary, rootwords }) => ({ lineId, arabic, english, commentary, rootwords })),
    };
  }
  if (words === 'queue peek' && rest.length === 2 && rest[1] === 'ocr') {
    const stack = readStack(dataDir());
    const queueUrl = stack.queueUrls[names.ocrQueue];
    if (!queueUrl) throw new Error(`the local stack has no ${names.ocrQueue} queue`);
    // Job messages are JSON: print them as values, not as strings of JSON (anything else as is).
    return (await peekQueue(stack.endpoints.sqs, queueUrl)).map((body) => {
      try {
        return JSON.parse(body) as unknown;
      } catch {
        return body;
      }
    });
  }
  if (words === 'billing invoices' && rest.length === 2) {
    return ledgerBilling(db()).invoices(rest[1]!);
  }
  if (words === 'push sent' && rest.length === 2) {
    return ledgerPush(db()).sent(rest[1]!);
  }
  const known = ['seed', 'token', 'user delete', 'book show', 'queue peek', 'billing invoices', 'push sent'];
  const named = known.find((k) => k === command || k === words);
  throw new UsageError(named ? `${named}: wrong or missing arguments` : `unknown command: ${argv.join(' ')}`);
}

run(process.argv.slice(2)).then(
  (out) => {
    const bare = (out as { bare?: string }).bare;
    process.stdout.write(bare !== undefined ? `${bare}\n` : `${JSON.stringify(out, null, 2)}\n`);
  },
  (error: Error) => {
    process.stderr.write(`${error.message.split('\n')[0]}\n${error instanceof UsageError ? `${usage}\n` : ''}`);
    process.exit(1);
  },
);
