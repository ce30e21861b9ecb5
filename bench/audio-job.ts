import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { names } from '../infra/local/state.ts';
import type { AudioFiles } from '../lib/audio/audio-files.ts';
import type { AudioJob, AudioJobStore } from '../lib/audio/audio-job.ts';
import type { JobDeps } from '../lib/audio/jobs.ts';
import type { Speech, SpeechRequest } from '../lib/audio/speech.ts';
import type { Book, Line } from '../lib/books/book.ts';
import type { Objects } from '../lib/objects.ts';
import type { Queue } from '../lib/queue.ts';
import { FakeObjects } from '../test/support/fakes/objects.ts';
import { fakeInbox } from '../test/support/fakes/notifications.ts';
import { openBenchStack } from './env.ts';
import { toRecord } from '../infra/local/queue-worker.ts';
import { runIfMain } from './report.ts';

/**
 * Throughput budget (docs/DESIGN.md section 8): an audio job of 6,236 lines x 3 fields against a speech
 * stand-in limited to R requests per second finishes within 10% of the 6,236 x 3 / R floor, and
 * survives a worker crash half way.
 *
 * In its own embedded stores (a fresh temporary DATA_DIR, free ports), one book of 6,236 lines is
 * seeded in DynamoDB Local. The jobs run through the real `audio-worker` handler
 * (`workerHandler` of functions/audio-worker/handler.ts) over the real job code, the DynamoDB stores and the
 * SQS stand-in's audio queue, fed by N in-process poll loops that do what infra/local/queue-worker.ts
 * does (one message at a time, deleted unless the handler reports it failed). Two stand-ins replace
 * the rest, so that what is measured is the job's scheduling against the speech rate:
 * - speech: each call starts when a token bucket of R per second (burst of a few) lets it, answers
 *   after a fixed latency with a small fake MP3, and is counted per (text, voice, language);
 * - objects: the audio bucket in memory, counting PUTs per key.
 *
 * Run A (clean) times a job from `startBookJob` to `completed` against the floor. Run B (a fresh job
 * with another voice, so nothing is cached) crashes every worker when half the speech calls have
 * started: from that instant everything the dead workers do fails (speech calls waiting for their
 * turn never start, calls under way never answer, no store is touched, no message is acknowledged),
 * and N fresh workers start at once. The messages the dead workers held come back after the audio
 * queue's visibility timeout, set short here (SetQueueAttributes on the SQS stand-in). The job must
 * complete with every object stored, each field spoken once except those whose call was under way
 * at the crash (spoken twice), and nothing stored before the crash generated again.
 */

const lineTotal = Number(process.env.BENCH_LINES ?? 6236);
const speechRate = Number(process.env.BENCH_SPEECH_RATE ?? 250);
const speechLatencyMs = Number(process.env.BENCH_SPEECH_LATENCY_MS ?? 40);
/** Tokens the speech bucket holds at most: absorbs timer lateness without letting bursts through. */
const speechBurst = Number(process.env.BENCH_SPEECH_BURST ?? 5);
const workerCount = Number(process.env.BENCH_WORKERS ?? 8);
/**
 * Short, so that the dead workers' messages come back soon, but well above the longest handling (the
 * plan message: the book's lines, then one SendMessage per chunk, took 4.5 s in a first run).
 */
const visibilitySeconds = Number(process.env.BENCH_VISIBILITY_SECONDS ?? 10);
const crashShare = Number(process.env.BENCH_CRASH_AT ?? 0.5);
const budgetShare = 0.1;

const fieldNames = ['arabic', 'english', 'commentary'] as const;
const fakeMp3 = Uint8Array.from([0xff, 0xfb, 0x90, 0x64, ...randomBytes(60)]);

// ---------------------------------------------------------------------------------------------------
// Crashes: a generation of workers dies all at once.

class Crash extends Error {
  constructor() {
    super('worker crashed (bench)');
    this.name = 'Crash';
  }
}

/** One generation of workers: everything it does fails once it is dead. */
class Life {
  dead = false;
  check(): void {
    if (this.dead) throw new Crash();
  }
}

interface CallStats {
  calls: number;
  totalMs: number;
  maxMs: number;
}

/** Calls and errors per port method, across a run. */
class PortStats {
  readonly calls = new Map<string, CallStats>();
  readonly errors = new Map<string, number>();
  time(name: string, ms: number): void {
    const s = this.calls.get(name) ?? { calls: 0, totalMs: 0, maxMs: 0 };
    s.calls++;
    s.totalMs += ms;
    s.maxMs = Math.max(s.maxMs, ms);
    this.calls.set(name, s);
  }
  error(name: string, error: unknown): void {
    const key = `${name}: ${(error as Error).name ?? 'Error'}: ${(error as Error).message ?? String(error)}`.slice(0, 300);
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
  }
}

/**
 * The port as one generation of workers sees it: a dead generation's calls fail before they start,
 * and a call under way when it dies fails as it returns (the worker never sees the answer).
 * Only for ports whose members are all async methods.
 */
function guarded<T extends object>(port: T, label: string, life: Life, stats: PortStats): T {
  return new Proxy(port, {
    get(target, name, receiver) {
      const member: unknown = Reflect.get(target, name, receiver);
      if (typeof member !== 'function') return member;
      const method = `${label}.${String(name)}`;
      return async (...args: unknown[]) => {
        life.check();
        const t = performance.now();
        let out: unknown;
        try {
          out = await (member as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (error) {
          if (!(error instanceof Crash)) stats.error(method, error);
          throw error;
        } finally {
          stats.time(method, performance.now() - t);
        }
        life.check();
        return out;
      };
    },
  });
}

// ---------------------------------------------------------------------------------------------------
// The speech stand-in.

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A token bucket of `perSecond` tokens a second, at most `burst` held; waiters are served in order. */
class RateGate {
  readonly #perMs: number;
  readonly #burst: number;
  #tokens: number;
  #at = performance.now();
  #timer: NodeJS.Timeout | undefined;
  readonly #waiting: { life: Life; resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(perSecond: number, burst: number) {
    this.#perMs = perSecond / 1000;
    this.#burst = Math.max(1, burst);
    this.#tokens = this.#burst;
  }

  take(life: Life): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ life, resolve, reject });
      this.#pump();
    });
  }

  /** A dead generation's waiters never start: they fail, and their turns go to the living. */
  purge(): void {
    for (let i = this.#waiting.length - 1; i >= 0; i--) {
      const waiter = this.#waiting[i]!;
      if (waiter.life.dead) {
        this.#waiting.splice(i, 1);
        waiter.reject(new Crash());
      }
    }
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #pump = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#at) * this.#perMs);
    this.#at = now;
    this.purge();
    while (this.#waiting.length > 0 && this.#tokens >= 1) {
      this.#tokens -= 1;
      this.#waiting.shift()!.resolve();
    }
    if (this.#waiting.length > 0 && !this.#timer) this.#timer = setTimeout(this.#pump, Math.max(1, Math.ceil((1 - this.#tokens) / this.#perMs)));
  };
}

const speechKey = (text: string, voice: string, language: string) => `${voice}|${language}|${text}`;

class SpeechStandIn {
  readonly gate: RateGate;
  /** Calls started, per (text, voice, language). */
  readonly calls = new Map<string, number>();
  /** Start times (performance.now()) of every call. */
  readonly starts: number[] = [];
  /** Calls started per generation of workers. */
  readonly startedBy = new Map<Life, string[]>();
  /** Called as each call starts, with the number started so far. */
  onStart: (started: number) => void = () => {};

  constructor(perSecond: number, burst: number, readonly latencyMs: number) {
    this.gate = new RateGate(perSecond, burst);
  }

  get total(): number {
    return this.starts.length;
  }

  /** The Speech port as one generation of workers sees it. */
  speechFor(life: Life): Speech {
    return {
      synthesize: async (request: SpeechRequest) => {
        life.check();
        await this.gate.take(life);
        life.check(); // let through in the same turn as the call that crashed: it never starts
        const key = speechKey(request.text, request.voice, request.language);
        this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
        this.starts.push(performance.now());
        const mine = this.startedBy.get(life) ?? [];
        mine.push(key);
        this.startedBy.set(life, mine);
        this.onStart(this.starts.length);
        await sleep(this.latencyMs);
        life.check();
        return fakeMp3;
      },
    };
  }
}

// ---------------------------------------------------------------------------------------------------
// The workers: poll loops like infra/local/queue-worker.ts's, over an SQS client of their own.

type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

/**
 * Long-polls the queue and hands each message to the handler, one at a time, deleting it unless the
 * handler reports it failed. When the generation dies the loop stops where it is: whatever it holds
 * is neither handled further nor deleted, and comes back after the visibility timeout.
 */
function startPoller(
  sqs: SQSClient,
  queueUrl: string,
  handler: SqsHandler,
  life: Life,
  stopped: () => boolean,
  abandoned: (messageId: string) => void,
): Promise<void> {
  return (async () => {
    while (!life.dead && !stopped()) {
      try {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1, AttributeNames: ['All'] }),
        );
        for (const message of Messages) {
          if (life.dead) {
            abandoned(message.MessageId!); // received as the worker died
            continue;
          }
          const { batchItemFailures } = await handler({ Records: [toRecord(message, queueUrl)] });
          if (life.dead || batchItemFailures.some((f) => f.itemIdentifier === message.MessageId)) continue;
          await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: '0', ReceiptHandle: message.ReceiptHandle! }] }));
        }
      } catch (error) {
        if (life.dead || stopped()) break;
        process.stderr.write(`audio-job bench worker: ${(error as Error).message}\n`);
        await sleep(1000);
      }
    }
  })();
}

interface MessageStats {
  received: number;
  /** Deliveries whose ApproximateReceiveCount was above 1. */
  redelivered: number;
  /** Deliveries the handler reported failed (left on the queue). */
  failed: number;
  /** Deliveries whose handling outlived the visibility timeout (the message came back meanwhile). */
  slowerThanVisibility: number;
  maxHandlerMs: number;
  /** When (performance.now()) each redelivery was received. */
  redeliveredAt: number[];
}

// ---------------------------------------------------------------------------------------------------
// The report.

export interface AudioRunReport {
  name: 'clean' | 'crash';
  voice: string;
  jobId: string;
  status: string;
  progress: number;
  /** From the job's creation to its `completed` write. */
  wallMs: number;
  floorMs: number;
  /** (wall - floor) / floor. */
  overFloor: number;
  speechCalls: number;
  expectedCalls: number;
  /** Fields whose number of speech calls is not what it must be (1, or 2 for a field under way at the crash). */
  fieldsMiscalled: number;
  objectsStored: number;
  objectsMissing: number;
  /** PUTs of a key that was already stored (generated twice). */
  duplicatePuts: number;
  /** Where the time over the floor went. */
  timeline: {
    /** Job created to first speech call. */
    firstCallMs: number;
    /** First to last speech call start, minus (calls - 1) / R: turns of the speech rate left unused. */
    unusedRateMs: number;
    /** Last speech call start to `completed`. */
    tailMs: number;
    /** Most speech calls started in any one-second window. */
    maxCallsPerSecond: number;
  };
  messages: MessageStats & { leftOnQueue: number; deadLettered: number };
  /** Port calls of the workers: count, mean and max ms. */
  ports: Record<string, { calls: number; meanMs: number; maxMs: number }>;
  /** Errors the ports threw (other than the bench's crash), by method and message. */
  errors: Record<string, number>;
  crash?: {
    atCall: number;
    /** From the job's creation. */
    atMs: number;
    storedAtCrash: number;
    /** Fields whose speech call had started but whose audio was not stored: spoken again. */
    underWayAtCrash: number;
    extraCalls: number;
    /** Messages the dead workers held (being handled, or received as they died); counted at the run's end. */
    messagesHeld: number;
    /** PUTs after the crash of keys stored before it. */
    storedRegenerated: number;
    /** Crash to the first of the held messages coming back. */
    firstRedeliveryMs: number | null;
  };
  problems: string[];
}

export interface AudioJobReport {
  lines: number;
  fields: number;
  speechRate: number;
  speechLatencyMs: number;
  speechBurst: number;
  workers: number;
  visibilitySeconds: number;
  setupMs: number;
  runs: AudioRunReport[];
  problems: string[];
  ok: boolean;
}


const arabicTexts = ['بسم الله الرحمن الرحيم', 'الحمد لله رب العالمين', 'الرحمن الرحيم', 'مالك يوم الدين', 'إياك نعبد وإياك نستعين', 'اهدنا الصراط المستقيم'];
const englishTexts = [
  'In the name of God, the Most Gracious, the Most Merciful',
  'Praise be to God, Lord of the worlds',
  'The Most Gracious, the Most Merciful',
  'Master of the Day of Judgement',
  'You alone we worship, and You alone we ask for help',
  'Guide us on the straight path',
];
/** Short texts, each line's its own (so that speech calls can be told apart by text). */
const lineTexts = (n: number) => ({
  arabic: `${arabicTexts[n % arabicTexts.length]} (${n + 1})`,
  english: `${englishTexts[n % englishTexts.length]} (${n + 1})`,
  commentary: `Commentary on line ${n + 1}: a short note on the wording.`,
  rootwords: n % 2 ? 'ر ح م' : 'ح م د',
});

/** Most events in any window of `ms`. */
function maxInWindow(sorted: number[], ms: number): number {
  let best = 0;
  for (let lo = 0, hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= ms) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

export async function audioJob(): Promise<AudioJobReport> {
  const setupStart = performance.now();
  const stack = await openBenchStack('audio-job');
  const { stores } = stack;
  let sqs: SQSClient | undefined;
  let dynamo: DynamoDBClient | undefined;
  let restoreLog = () => {};
  /** Everything still to stop: poll loops, speech gates. */
  const running: { loops: Promise<void>[]; stopAll: boolean; gates: RateGate[] } = { loops: [], stopAll: false, gates: [] };
  try {
    const tableName = names.tableName;
    const [{ workerHandler }, jobs, { dynamoBookStore }, { dynamoAudioJobStore }, { sqsQueue }, { sequentialObjectIds, newObjectId }, keys, { logger }, { dynamoAudioFiles }] =
      await Promise.all([
        import('../functions/audio-worker/handler.ts'),
        import('../lib/audio/jobs.ts'),
        import('../lib/adapters/dynamo/books.ts'),
        import('../lib/adapters/dynamo/audio-jobs.ts'),
        import('../lib/adapters/sqs/queue.ts'),
        import('../lib/ids.ts'),
        import('../lib/audio/audio-key.ts'),
        import('../lib/log.ts'),
        import('../lib/adapters/dynamo/audio-files.ts'),
      ]);
    // The dead workers' messages each log an error; the report counts failures and errors itself.
    const logLevel = logger.getLevelName();
    logger.setLogLevel('CRITICAL');
    restoreLog = () => logger.setLogLevel(logLevel);

    // Clients of the bench's own, on these stores' endpoints: the process-wide SDK clients may
    // already point at another bench's stores when `npm run bench` runs several in one process.
    const aws = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
    dynamo = new DynamoDBClient({ ...aws, endpoint: stores.endpoints.dynamodb });
    const db = {
      client: DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } }),
      tableName,
    };
    sqs = new SQSClient({ ...aws, endpoint: stores.endpoints.sqs });
    const queueUrl = stores.queueUrls[names.audioQueue]!;
    const dlqUrl = stores.queueUrls[`${names.audioQueue}-dlq`]!;
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { VisibilityTimeout: String(visibilitySeconds) } }));
    const { Attributes: queueAttributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout'] }));
    if (queueAttributes.VisibilityTimeout !== String(visibilitySeconds)) {
      throw new Error(`the SQS stand-in kept VisibilityTimeout ${queueAttributes.VisibilityTimeout} after SetQueueAttributes ${visibilitySeconds}`);
    }

    // The book.
    const books = dynamoBookStore(db);
    const audioFiles = dynamoAudioFiles(db);
    const now = new Date().toISOString();
    const bookId = newObjectId();
    const lineIds = sequentialObjectIds(lineTotal);
    const lines: Line[] = lineIds.map((lineId, n) => ({ bookId, lineId, ...lineTexts(n) }));
    const book: Book = {
      bookId,
      title: 'Audio job bench',
      author: 'bench',
      ownerId: newObjectId(),
      contributors: [],
      visibility: 'public',
      accessModel: 'free',
      requiredSubscriptionTier: null,
      metadata: {},
      lineCount: lines.length,
      createdAt: now,
      updatedAt: now,
    };
    await books.create(book, lines);
    const setupMs = performance.now() - setupStart;

    const fieldCount = lineTotal * fieldNames.length;
    const floorMs = (fieldCount / speechRate) * 1000;
    const jobTimeoutMs = 3 * floorMs + 60_000 + 6 * visibilitySeconds * 1000;

    const queueDepth = async (url: string) => {
      const { Attributes: a = {} } = await sqs!.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
      );
      return Number(a.ApproximateNumberOfMessages ?? 0) + Number(a.ApproximateNumberOfMessagesNotVisible ?? 0);
    };

    const runJob = async (name: 'clean' | 'crash', voice: string): Promise<AudioRunReport> => {
      const problems: string[] = [];
      const speech = new SpeechStandIn(speechRate, speechBurst, speechLatencyMs);
      running.gates.push(speech.gate);
      const audio = new FakeObjects('https://audio.bench.invalid');
      // The starter's inbox, in memory: the bench times the job, not its notice.
      const benchInbox = fakeInbox(() => new Date()).deps;
      const stats = new PortStats();
      const messages: MessageStats = { received: 0, redelivered: 0, failed: 0, slowerThanVisibility: 0, maxHandlerMs: 0, redeliveredAt: [] };
      const jobStore = dynamoAudioJobStore(db);

      // The job's end, seen as the `finish` write that succeeds.
      let ended: ((outcome: { status: string; at: number }) => void) | undefined;
      const end = new Promise<{ status: string; at: number }>((resolve) => (ended = resolve));
      const audioJobs: AudioJobStore = {
        ...jobStore,
        finish: async (jobId, outcome, at) => {
          const done = await jobStore.finish(jobId, outcome, at);
          if (done) ended?.({ status: outcome.status, at: performance.now() });
          return done;
        },
      };
      const baseDeps: JobDeps = { books, audioJobs, audio, audioFiles, speech: async () => speech.speechFor(new Life()), audioQueue: sqsQueue(sqs!, queueUrl), inbox: benchInbox, now: () => new Date() };

      /** N workers over the deps as one generation sees them. */
      const startGeneration = () => {
        const life = new Life();
        const deps: JobDeps = {
          books: guarded(books, 'books', life, stats),
          audioJobs: guarded(audioJobs, 'audioJobs', life, stats),
          audio: guarded<Objects>(audio, 'audio', life, stats),
          audioFiles: guarded<AudioFiles>(audioFiles, 'audioFiles', life, stats),
          speech: async () => speech.speechFor(life),
          audioQueue: guarded<Queue>(baseDeps.audioQueue, 'audioQueue', life, stats),
          inbox: benchInbox,
          now: () => new Date(),
        };
        const inner = workerHandler(() => deps);
        const held = new Set<string>();
        const handler: SqsHandler = async (event) => {
          const record = event.Records[0]!;
          messages.received++;
          held.add(record.messageId);
          if (Number(record.attributes.ApproximateReceiveCount) > 1) {
            messages.redelivered++;
            messages.redeliveredAt.push(performance.now());
          }
          const t = performance.now();
          try {
            const out = await inner(event);
            messages.failed += out.batchItemFailures.length;
            return out;
          } finally {
            const ms = performance.now() - t;
            messages.maxHandlerMs = Math.max(messages.maxHandlerMs, ms);
            if (ms > visibilitySeconds * 1000) messages.slowerThanVisibility++;
            if (!life.dead) held.delete(record.messageId);
          }
        };
        const loops = Array.from({ length: workerCount }, () => startPoller(sqs!, queueUrl, handler, life, () => running.stopAll, (id) => held.add(id)));
        running.loops.push(...loops);
        return { life, held };
      };

      let generation = startGeneration();
      const crashAt = Math.max(1, Math.round(fieldCount * crashShare));
      let crash: AudioRunReport['crash'] | undefined;
      let deadHeld = new Set<string>();
      let crashState: { at: number; stored: Set<string>; puts: Map<string, number>; underWay: Set<string> } | undefined;

      const started = performance.now();
      if (name === 'crash') {
        speech.onStart = (count) => {
          if (count !== crashAt || crashState) return;
          // The crash: synchronous, so that what is stored and what is under way are known exactly.
          const dead = generation;
          deadHeld = dead.held;
          dead.life.dead = true;
          speech.gate.purge();
          const stored = new Set(audio.objects.keys());
          const storedSpeech = new Set<string>();
          for (const line of lines) {
            for (const field of fieldNames) {
              const key = keys.audioKey(bookId, line.lineId, field, voice, keys.contentHash(line, voice));
              if (stored.has(key)) storedSpeech.add(speechKey(line[field], voice, field === 'arabic' ? 'ar' : 'en'));
            }
          }
          const underWay = new Set((speech.startedBy.get(dead.life) ?? []).filter((k) => !storedSpeech.has(k)));
          crashState = { at: performance.now(), stored, puts: new Map(audio.puts), underWay };
          crash = {
            atCall: count,
            atMs: crashState.at - started,
            storedAtCrash: stored.size,
            underWayAtCrash: underWay.size,
            extraCalls: 0,
            messagesHeld: dead.held.size,
            storedRegenerated: 0,
            firstRedeliveryMs: null,
          };
          generation = startGeneration();
        };
      }

      const { jobId } = await jobs.startBookJob(baseDeps, newObjectId(), bookId, voice);
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        end,
        new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), jobTimeoutMs))),
      ]);
      clearTimeout(timer);
      const wallMs = (outcome?.at ?? performance.now()) - started;

      // Stop this run's workers, as a deploy would: each finishes the message in hand.
      running.stopAll = true;
      await Promise.all(running.loops);
      running.loops = [];
      running.stopAll = false;
      speech.gate.stop();

      const job: AudioJob | undefined = await jobStore.get(jobId);
      if (!outcome) problems.push(`the job did not end within ${(jobTimeoutMs / 1000).toFixed(0)} s: ${JSON.stringify(job)}`);
      if (job?.status !== 'completed') problems.push(`job status ${job?.status}${job?.error ? ` (${job.error})` : ''}, not completed`);
      if (job?.progress !== 100) problems.push(`job progress ${job?.progress}, not 100`);

      // What was spoken and stored, field by field.
      let objectsStored = 0;
      let fieldsMiscalled = 0;
      let duplicatePuts = 0;
      let storedRegenerated = 0;
      const miscalled: string[] = [];
      for (const line of lines) {
        for (const field of fieldNames) {
          const key = keys.audioKey(bookId, line.lineId, field, voice, keys.contentHash(line, voice));
          if (audio.objects.has(key)) objectsStored++;
          const puts = audio.puts.get(key) ?? 0;
          duplicatePuts += Math.max(0, puts - 1);
          const sk = speechKey(line[field], voice, field === 'arabic' ? 'ar' : 'en');
          const calls = speech.calls.get(sk) ?? 0;
          const expected = 1 + (crashState?.underWay.has(sk) ? 1 : 0);
          if (calls !== expected) {
            fieldsMiscalled++;
            if (miscalled.length < 5) miscalled.push(`${key} spoken ${calls} times, not ${expected}`);
          }
          if (crashState?.stored.has(key) && puts > (crashState.puts.get(key) ?? 0)) storedRegenerated++;
        }
      }
      const expectedCalls = fieldCount + (crashState?.underWay.size ?? 0);
      const objectsMissing = fieldCount - objectsStored;
      if (speech.total !== expectedCalls) problems.push(`${speech.total} speech calls, not ${expectedCalls}`);
      if (fieldsMiscalled) problems.push(`${fieldsMiscalled} fields spoken the wrong number of times (${miscalled.join('; ')})`);
      if (objectsMissing) problems.push(`${objectsMissing} of ${fieldCount} objects missing`);
      if (duplicatePuts) problems.push(`${duplicatePuts} PUTs of a key already stored`);
      if (audio.objects.size !== objectsStored) problems.push(`${audio.objects.size - objectsStored} objects under keys the job should not write`);
      if (name === 'crash') {
        if (!crash || !crashState) problems.push(`no crash: the job ended before speech call ${crashAt}`);
        else {
          crash.extraCalls = speech.total - fieldCount;
          crash.messagesHeld = deadHeld.size;
          crash.storedRegenerated = storedRegenerated;
          const back = messages.redeliveredAt.filter((t) => t > crashState!.at);
          crash.firstRedeliveryMs = back.length ? Math.min(...back) - crashState.at : null;
          if (storedRegenerated) problems.push(`${storedRegenerated} fields stored before the crash generated again`);
        }
      }
      const overFloor = (wallMs - floorMs) / floorMs;
      if (name === 'clean' && overFloor > budgetShare) problems.push(`took ${(wallMs / 1000).toFixed(1)} s, ${(overFloor * 100).toFixed(1)}% over the ${(floorMs / 1000).toFixed(1)} s floor (budget ${budgetShare * 100}%)`);

      const starts = speech.starts;
      const maxCallsPerSecond = maxInWindow(starts, 1000);
      if (maxCallsPerSecond > speechRate + speechBurst) problems.push(`the speech stand-in let ${maxCallsPerSecond} calls start in one second (limit ${speechRate} + burst ${speechBurst})`);
      const leftOnQueue = await queueDepth(queueUrl);
      const deadLettered = await queueDepth(dlqUrl);
      if (deadLettered) problems.push(`${deadLettered} messages on the dead-letter queue`);
      if (name === 'clean' && messages.failed) problems.push(`${messages.failed} deliveries failed in the clean run`);
      return {
        name,
        voice,
        jobId,
        status: job?.status ?? 'missing',
        progress: job?.progress ?? 0,
        wallMs,
        floorMs,
        overFloor,
        speechCalls: speech.total,
        expectedCalls,
        fieldsMiscalled,
        objectsStored,
        objectsMissing,
        duplicatePuts,
        timeline: {
          firstCallMs: starts.length ? starts[0]! - started : NaN,
          unusedRateMs: starts.length > 1 ? starts.at(-1)! - starts[0]! - ((starts.length - 1) / speechRate) * 1000 : NaN,
          tailMs: starts.length ? started + wallMs - starts.at(-1)! : NaN,
          maxCallsPerSecond,
        },
        messages: { ...messages, leftOnQueue, deadLettered },
        ports: Object.fromEntries(
          [...stats.calls].sort(([a], [b]) => a.localeCompare(b)).map(([method, s]) => [method, { calls: s.calls, meanMs: s.totalMs / s.calls, maxMs: s.maxMs }]),
        ),
        errors: Object.fromEntries(stats.errors),
        ...(crash ? { crash } : {}),
        problems,
      };
    };

    const runs = [await runJob('clean', 'alloy'), await runJob('crash', 'echo')];
    const problems = runs.flatMap((r) => r.problems.map((p) => `run ${r.name}: ${p}`));
    return {
      lines: lineTotal,
      fields: fieldCount,
      speechRate,
      speechLatencyMs,
      speechBurst,
      workers: workerCount,
      visibilitySeconds,
      setupMs,
      runs,
      problems,
      ok: problems.length === 0,
    };
  } finally {
    running.stopAll = true;
    await Promise.all(running.loops).catch(() => undefined);
    for (const gate of running.gates) gate.stop();
    sqs?.destroy();
    dynamo?.destroy();
    restoreLog();
    await stack.close();
  }
}

export function printAudioJob(report: AudioJobReport): void {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `${report.lines} lines x 3 fields = ${report.fields} speech calls at R = ${report.speechRate}/s (latency ${report.speechLatencyMs} ms, burst ${report.speechBurst}), ${report.workers} workers, audio queue visibility timeout ${report.visibilitySeconds} s`,
  );
  console.log(`floor ${report.fields} / ${report.speechRate} = ${s(report.runs[0]?.floorMs ?? NaN)}; stores and seed: ${s(report.setupMs)}`);
  for (const r of report.runs) {
    const t = r.timeline;
    const m = r.messages;
    console.log(`\nrun ${r.name === 'clean' ? 'A (clean)' : 'B (crash half way)'}, voice ${r.voice}: ${r.status}, progress ${r.progress}`);
    console.log(`  job created to completed: ${s(r.wallMs)}, ${(r.overFloor * 100).toFixed(1)}% over the floor${r.name === 'clean' ? ` (budget ${budgetShare * 100}%)` : ''}`);
    console.log(`  speech calls ${r.speechCalls} (expected ${r.expectedCalls}); fields spoken the wrong number of times ${r.fieldsMiscalled}; objects stored ${r.objectsStored}, missing ${r.objectsMissing}; duplicate PUTs ${r.duplicatePuts}`);
    console.log(`  time: first call after ${s(t.firstCallMs)}, speech rate unused for ${s(t.unusedRateMs)}, last call to completed ${s(t.tailMs)}; most calls in one second ${t.maxCallsPerSecond}`);
    console.log(`  messages: ${m.received} received, ${m.redelivered} redelivered, ${m.failed} failed, ${m.slowerThanVisibility} handled for longer than the visibility timeout (longest ${s(m.maxHandlerMs)}); left on the queue ${m.leftOnQueue}, dead-lettered ${m.deadLettered}`);
    const ports = Object.entries(r.ports)
      .filter(([method]) => !method.startsWith('audio.'))
      .map(([method, p]) => `${method} ${p.calls} x ${p.meanMs.toFixed(1)} ms (max ${p.maxMs.toFixed(0)})`);
    console.log(`  DynamoDB / SQS from the workers: ${ports.join(', ')}`);
    if (r.crash) {
      const c = r.crash;
      console.log(
        `  crash at call ${c.atCall}, ${s(c.atMs)} in: ${c.storedAtCrash} objects stored, ${c.underWayAtCrash} calls under way, ${c.messagesHeld} messages held; first held message back after ${c.firstRedeliveryMs === null ? 'never' : s(c.firstRedeliveryMs)}`,
      );
      console.log(`  extra speech calls ${c.extraCalls} (the calls under way); stored before the crash and generated again: ${c.storedRegenerated}`);
    }
    for (const [error, count] of Object.entries(r.errors)) console.log(`  error x${count}: ${error}`);
  }
  console.log(`\nbudget: run A within ${budgetShare * 100}% of the floor; both runs completed, nothing lost, nothing stored generated twice`);
  for (const problem of report.problems) console.log(`PROBLEM: ${problem}`);
  console.log(report.ok ? 'ok' : 'OVER BUDGET');
  console.log(JSON.stringify({ bench: 'audio-job', ...report, runs: report.runs.map((r) => ({ ...r, messages: { ...r.messages, redeliveredAt: undefined } })) }));
}

await runIfMain(import.meta.url, audioJob, printAudioJob);
