import '../infra/local/process-setup.ts';
import { parseArgs } from 'node:util';
import { dynamoDocumentClient } from '../lib/adapters/aws/clients.ts';
import { s3Client } from '../lib/adapters/aws/s3-client.ts';
import { dynamoAudioFiles } from '../lib/adapters/dynamo/audio-files.ts';
import { s3Objects } from '../lib/adapters/s3/objects.ts';
import { ReconcileStopped, reconcileAudioFiles, type ReconcileCounts, type ReconcileDeps, type ReconcileOptions } from '../lib/audio/reconcile.ts';
import { variables } from '../lib/config.ts';
import { isObjectId } from '../lib/ids.ts';

/**
 * `audio reconcile` (issue 26): brings the record of stored audio in line with the audio bucket (one
 * book, or all) and prints `{"added", "removed"}` (lib/audio/reconcile.ts). Progress goes to stderr,
 * a line per page of 1,000 keys, each with the `--from` that resumes the run from there.
 *
 * - Locally: `npm run --silent cli -- audio reconcile [BOOK_ID] [--from KEY]` (infra/local/cli.ts).
 * - Against AWS, with the operator's credentials (ListBucket and GetObject on the audio bucket,
 *   Query and UpdateItem on the table) and the stack's outputs:
 *
 *       TABLE_NAME=<TableName> AUDIO_BUCKET=<AudioBucketName> AWS_REGION=<region> npx tsx scripts/audio-reconcile.ts [BOOK_ID] [--from KEY]
 */
export const reconcileUsage = 'audio reconcile [BOOK_ID] [--from KEY]';

/** The run's options from its words after `audio reconcile`; a wrong one throws a one-line message with the usage. */
export function reconcileOptions(argv: readonly string[]): ReconcileOptions & { help: boolean } {
  const wrong = (why: string) => new Error(`${why} (usage: ${reconcileUsage})`);
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: { from: { type: 'string' }, help: { type: 'boolean' } } });
  } catch (error) {
    throw wrong((error as Error).message);
  }
  const { positionals, values } = parsed;
  if (values.help) return { help: true };
  if (positionals.length > 1) throw wrong(`one book at most, not ${positionals.length}`);
  const [bookId] = positionals;
  if (bookId !== undefined && !isObjectId(bookId)) throw wrong(`not a book id: ${bookId}`);
  if (values.from === '') throw wrong('--from needs a key');
  return { help: false, bookId, from: values.from };
}

/** Runs it with progress on stderr; a run that stops says where to resume in its one-line error. */
export async function runReconcile(deps: ReconcileDeps, options: ReconcileOptions): Promise<ReconcileCounts> {
  const started = Date.now();
  try {
    return await reconcileAudioFiles(deps, {
      ...options,
      onProgress: (p) =>
        process.stderr.write(
          `audio reconcile: ${p.listed} files listed, ${p.added} added, ${p.removed} removed, ${Math.round((Date.now() - started) / 1000)} s; ` +
            `to resume: --from ${p.at}\n`,
        ),
    });
  } catch (error) {
    if (!(error instanceof ReconcileStopped)) throw error;
    throw new Error(`${error.message}; ${error.resumeFrom === undefined ? 'nothing was settled' : `resume with --from ${error.resumeFrom}`}`);
  }
}

async function main(): Promise<ReconcileCounts | undefined> {
  const options = reconcileOptions(process.argv.slice(2));
  if (options.help) return undefined;
  const missing = [variables.tableName, variables.audioBucket].filter((name) => !process.env[name]);
  if (missing.length) throw new Error(`set ${missing.join(' and ')} (the stack's TableName and AudioBucketName outputs)`);
  const [tableName, audioBucket] = [process.env[variables.tableName]!, process.env[variables.audioBucket]!];
  return runReconcile({ audio: s3Objects(s3Client(), audioBucket), audioFiles: dynamoAudioFiles({ client: dynamoDocumentClient(), tableName }) }, options);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    (counts) => {
      process.stdout.write(counts ? `${JSON.stringify(counts)}\n` : `usage: npx tsx scripts/audio-reconcile.ts ${reconcileUsage.slice('audio reconcile '.length)}\n`);
      process.exit(0);
    },
    (error: Error) => {
      process.stderr.write(`audio reconcile: ${error.message.split('\n')[0]}\n`);
      process.exit(1);
    },
  );
}
