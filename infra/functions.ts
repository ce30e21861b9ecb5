import { httpFunctions, type FunctionName } from '../functions/routes.ts';
import type { ObjectAccess, SearchAccess } from './permissions.ts';

/**
 * What gets deployed, as data: which functions exist, how big each one is and what it may touch.
 * A new function is a route-table entry (or a background entry below) plus one line in `access`;
 * the bundler, the stack and the benchmark all read this module, so none of them lists functions.
 */

/**
 * Functions with a non-HTTP trigger (`audio-worker`, `announcement-worker` and `audio-files-sync` on SQS, `billing-worker`
 * and `sweeper` on a schedule, `search-indexer` on the table's stream); each also needs its trigger in
 * the stack.
 */
export const backgroundFunctions = ['audio-worker', 'announcement-worker', 'audio-files-sync', 'billing-worker', 'sweeper', 'search-indexer'] as const satisfies readonly string[];

export type DeployedFunction = FunctionName | (typeof backgroundFunctions)[number];

/** Every function that ships, each bundled from `functions/<name>/handler.ts`. */
export const deployedFunctions = (): DeployedFunction[] => [...httpFunctions(), ...backgroundFunctions];

export interface Sizing {
  memoryMb: number;
  timeoutSeconds: number;
}

/**
 * Most requests are a few DynamoDB calls and little CPU; 512 MB gives a fast cold start (CPU grows
 * with memory) at a small cost, and 10 s is far above any such request's need.
 */
export const defaultSizing: Sizing = { memoryMb: 512, timeoutSeconds: 10 };

/** Per-function departures from the default (e.g. `ocr-export` builds documents in memory). */
export const sizing: Partial<Record<DeployedFunction, Partial<Sizing>>> = {
  // Synchronous generation of a line's fields (batch), each up to a few Polly calls; and the
  // listings of a fully voiced book (`/all` in six voices: 112,248 signed URLs, about 100 MB of JSON
  // built, compressed and handed over), which need memory and the one full vCPU of 1,769 MB.
  'audio-api': { memoryMb: 1769, timeoutSeconds: 29 },
  // Importing a book of thousands of pages writes its lines in batches; 29 s is API Gateway's limit.
  'ocr-api': { timeoutSeconds: 29 },
  // A final result may carry every page of a large book (one BatchWriteItem per 25); it never calls Stripe.
  'ocr-callbacks': { timeoutSeconds: 29 },
  // A run starts no invoice it could not finish (functions/billing-worker/handler.ts: the slowest charge plus a
  // margin, 90 s), so 180 s leaves about half of each run for invoicing.
  'billing-worker': { timeoutSeconds: 180 },
  // One chunk of lines per message; the queue's visibility timeout is set well above this.
  'audio-worker': { memoryMb: 1024, timeoutSeconds: 300 },
  // One step of an announcement per message: 500 users' notifications (10 transactions) and their pushes.
  'announcement-worker': { timeoutSeconds: 120 },
  // A sweep removes at most 10 batches of uploads and of imports, and looks at 10 batches of open jobs of each kind; the next one takes the rest.
  sweeper: { timeoutSeconds: 300 },
  // Builds a whole book's document in memory (text, XML, zip at once) and CPU scales with memory; 29 s is API Gateway's limit.
  'ocr-export': { memoryMb: 1024, timeoutSeconds: 29 },
  // Up to about 3,000 keys a batch (audioFilesSyncTrigger): the record's writes, 8 at a time, and a
  // HEAD per key, 32 at a time, take a few seconds; a stale event's key costs a second round.
  'audio-files-sync': { timeoutSeconds: 60 },
  // A batch of up to 100 pages from the stream (searchIndexerTrigger), each analyzed (CPU: 1024 MB
  // gives more than half a vCPU) and bulk-indexed; 60 s leaves room for a book's re-read and retries.
  'search-indexer': { memoryMb: 1024, timeoutSeconds: 60 },
};

export const sizingOf = (name: DeployedFunction): Sizing => ({ ...defaultSizing, ...sizing[name] });

/**
 * Resource access beyond the defaults (logs; the JWT secret for HTTP functions), by function.
 * A `Record` over every function so that adding a function without deciding its access fails to compile.
 * - `table`: read/write items of the table and its indexes.
 * - `push`: SNS mobile push on the configured platform applications and their endpoints.
 * - `ocr-queue`: send to the OCR job queue.
 * - `stripe`: read the Stripe keys secret.
 * - `billing-outbox`: read and update items of the table and query gsi1 (the pending invoices and the
 *   owed usage: the billing worker's only table work: users, usage logs, the job's BookText); put and
 *   delete only items of a job's partition (`OCRJOB#…`: an owed usage's log and its marker); no batch.
 * - `audio-queue`: send to the audio job queue; `speech`: Polly SynthesizeSpeech.
 * - `announcement-queue`: send to the announcements' fan-out queue (an announcement's steps).
 * - `job-credentials-issue`, `job-credentials-check`: GenerateMac and VerifyMac with the KMS key that
 *   signs job credentials (lib/auth/job-credentials.ts): issued when a job is queued, checked on the
 *   OCR worker's calls (the callbacks and the job's status).
 * - `audio-files-record`: UpdateItem on the table's audio-files items only (partition keys `AUDIO#…`,
 *   by `dynamodb:LeadingKeys`): recording and forgetting files, nothing else of the table.
 * - the object-access kinds of permissions.ts (`objectGrants`), each one bucket prefix and the actions
 *   one use of it needs: `upload-files` (`ocr/`), `incoming-uploads` (`incoming/`), `text-reads` and `text-writes` (`ocr-results/`),
 *   `exports` (put only, `exports/`), `audio` (the audio bucket), `audio-heads` (HEAD only, the audio
 *   bucket), `upload-sweep` (delete only, `incoming/`), `text-sweep` (delete only, `ocr-results/`),
 *   `responses` (put only, `responses/`). No function needs a GET grant only to sign a URL: page
 *   images, exports and big answers are read through the media distribution (media.ts).
 * - `media-urls`: sign media URLs of the CloudFront distribution (media.ts): read its private key's
 *   secret, and the `MEDIA_*` environment variables that come with this kind (stack.ts).
 * - `search-reads`: GetItem and BatchGetItem of BookTexts and their pages (partition keys `BOOKTEXT#…`)
 *   and GetItem of users' items (`USER#…`, the caller's record), by `dynamodb:LeadingKeys`; no Query,
 *   no index, no write. `indexer-reads`: BatchGetItem of `BOOKTEXT#…` items only, the books and pages
 *   the indexer re-reads (lib/search/indexing.ts).
 * - the search kinds of permissions.ts (`searchGrants`), each on the pages index, the catalogue
 *   listing's index (`<index>-books`) and the filed terms' index (`<index>-terms`) of the OpenSearch
 *   domain (search.ts), with the `SEARCH_*` variables that come with them (stack.ts): `search-query`
 *   (search only: no write, and no creating an index), `write-path` (the writes of read after write,
 *   filing terms, and search the listing's index) and `search-writes` (create and write the pages' and
 *   the listing's indexes, and file terms: the stream's indexer).
 * - `health-probes`: GET /health's reads (lib/health.ts), nothing more: GetItem of the one probe key
 *   (partition `HEALTH`, by `dynamodb:LeadingKeys`), GetBucketLocation of both buckets (their region;
 *   no key, no object) and GetQueueAttributes of the OCR and audio job queues (no message).
 */
export type Access =
  | 'table'
  | 'push'
  | 'ocr-queue'
  | 'stripe'
  | 'billing-outbox'
  | 'audio-queue'
  | 'announcement-queue'
  | 'job-credentials-issue'
  | 'job-credentials-check'
  | 'audio-files-record'
  | 'speech'
  | 'media-urls'
  | 'search-reads'
  | 'indexer-reads'
  | 'health-probes'
  | ObjectAccess
  | SearchAccess;

/**
 * What every HTTP function may do to answer: sign media URLs (audio, page images, exports), and put an
 * answer too big for Lambda's 6 MB under `responses/`, redirecting to its signed URL.
 */
export const httpAnswers = ['media-urls', 'responses'] as const satisfies readonly Access[];

/**
 * HTTP functions that need none of `httpAnswers`: `api-docs` answers only its own code and files
 * (the document, the page, Swagger UI's 1.5 MB script), which no client turns into a bigger answer;
 * `health` a few words per store.
 */
export const selfContained: readonly DeployedFunction[] = ['api-docs', 'health'];

export const access: Record<DeployedFunction, readonly Access[]> = {
  // Sends an announcement's first steps to its fan-out queue.
  'notifications-api': ['table', 'push', 'announcement-queue', ...httpAnswers],
  // The search index: GET /ocr/books filtered and past its first pages, and read after write (its writes put into it).
  // Issues each job's credential, and checks it on the job's status (the worker asks it).
  'ocr-api': ['table', 'upload-files', 'incoming-uploads', 'text-reads', 'text-writes', 'ocr-queue', 'write-path', 'job-credentials-issue', 'job-credentials-check', ...httpAnswers],
  // Stores the final text (and removes the one it replaced); it never reads files, texts or images,
  // and never calls Stripe (the billing worker invoices).
  // and tells a job's outcome to its owner (the inbox, and push).
  'ocr-callbacks': ['table', 'text-writes', 'write-path', 'job-credentials-check', 'push', ...httpAnswers],
  'ocr-export': ['table', 'text-reads', 'exports', ...httpAnswers],
  'billing-webhook': ['table', 'stripe', ...httpAnswers],
  'audio-api': ['table', 'audio', 'audio-queue', 'speech', ...httpAnswers],
  // Tells a job's outcome to its starter (the inbox, and push).
  'audio-worker': ['table', 'audio', 'audio-queue', 'speech', 'push'],
  // An announcement's fan-out: each step stores a page of users' notifications, pushes them and sends the next step.
  'announcement-worker': ['table', 'push', 'announcement-queue'],
  // HEADs the keys its events name (a missing one must read as 404) and records or forgets them.
  'audio-files-sync': ['audio-files-record', 'audio-heads'],
  'billing-worker': ['billing-outbox', 'stripe'],
  // Sends stalled jobs again (functions/_shared/stalled-jobs.ts): an OCR job's message with a fresh credential;
  // removes text objects no record names (text-sweep).
  // A job it gives up is told to its owner or starter (push).
  // and sends a stalled announcement's step again.
  sweeper: ['table', 'upload-sweep', 'text-sweep', 'ocr-queue', 'audio-queue', 'announcement-queue', 'job-credentials-issue', 'push'],
  // The document and the reference page (selfContained, below): it touches nothing.
  'api-docs': [],
  // Searches the index and reads the books and pages of the hits; it can neither write nor create the index.
  'search-api': ['search-reads', 'search-query', ...httpAnswers],
  // Reads the changed books and pages the stream names (search.ts filters it) and writes the index.
  'search-indexer': ['indexer-reads', 'search-writes'],
  // One small read of each store, for GET /health; it reads no user's data.
  health: ['health-probes'],
};

/**
 * Files a function reads at run time, copied into its asset beside the bundle (asset path → path from
 * the project root): the reference page's Swagger UI (functions/api-docs/handler.ts), 1.5 MB that no cold
 * start parses.
 */
export const assetFiles: Partial<Record<DeployedFunction, Record<string, string>>> = {
  'api-docs': {
    'docs/swagger-ui.css': 'node_modules/swagger-ui-dist/swagger-ui.css',
    'docs/swagger-ui-bundle.js': 'node_modules/swagger-ui-dist/swagger-ui-bundle.js',
  },
};

/** How often the billing worker runs on AWS; the retry schedule's shortest wait is a minute too (lib/billing/invoicing.ts). */
export const billingWorkerEveryMinutes = 1;

/** How often the sweeper runs: an unclaimed upload or abandoned import is removed within an hour of its day. */
export const sweepEveryMinutes = 60;

/**
 * Audio worker invocations at once (the SQS trigger's maximum concurrency). Each speaks up to 12
 * fields at a time, so 5 stay near Polly's neural rate (8 requests a second) with throttles retried.
 */
export const audioWorkerConcurrency = 5;

/** Steps of announcements at once: one per user partition of an announcement (keys.ts userListShards). */
export const announcementWorkerConcurrency = 16;

/**
 * The search indexer's trigger on the table's stream (search.ts), which passes it BookText and
 * BookTextPage items only. Up to 100 records or 1 s, whichever comes first, so a page is searchable a
 * few seconds after its write. One batch per shard at a time (parallelization 1): a page's records
 * stay in order. The record that fails is found by the indexer (functions/search-indexer/handler.ts) and
 * reported, or the batch halved until it is alone; it is tried 5 times, and given up on after a day at
 * most (the stream keeps records 24 hours): its description then goes to the dead-letter queue.
 */
export const searchIndexerTrigger = {
  batchSize: 100,
  maxBatchingWindowSeconds: 1,
  parallelizationFactor: 1,
  retryAttempts: 5,
  maxRecordAgeSeconds: 24 * 60 * 60,
} as const;

/**
 * `audio-files-sync`'s trigger on the audio bucket's event queue: as many messages an invocation as
 * Lambda gives (10,000, or fewer when their event would pass the 6 MB invocation payload: about
 * 3,000 S3 notifications, one key each), gathered for up to 5 s, with partial batch failures, two
 * invocations at once (the least Lambda allows: a bucket copied in at a migration queues one message
 * per object, and the rest of the account's concurrency stays free). Big batches are what keep the
 * record cheap: a batch's writes are grouped by record item, and a book's files in one voice share
 * 256 items, so 3,000 keys of one book and voice are at most 256 UpdateItems, where batches of 1,000
 * made about 250 each (on AWS an UpdateItem costs the item's size; DynamoDB Local manages about 120
 * a second). An invocation makes one HEAD per key (up to three when events were stale or the object
 * changed meanwhile) and one UpdateItem per item touched. `npm start` takes the local queue the
 * same way.
 */
export const audioFilesSyncTrigger = { batchSize: 10_000, maxBatchingWindowSeconds: 5, maxConcurrency: 2 } as const;

/** A queue that triggers a function hides a received message six times the function's timeout, as AWS advises. */
export const triggerVisibilitySeconds = (name: DeployedFunction): number => sizingOf(name).timeoutSeconds * 6;
