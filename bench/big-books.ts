import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompressSync, constants as zlibConstants, gunzipSync, gzip, gzipSync } from 'node:zlib';
import { names } from '../infra/local/state.ts';
import { platformLimits } from '../functions/_shared/http/platform-limits.ts';
import type { Line } from '../lib/books/book.ts';
import type { StoredObject } from '../lib/objects.ts';
import { arabicPage } from '../test/support/arabic-pages.ts';
import { openBenchStack, seedBenchUsers } from './env.ts';
import { runIfMain } from './report.ts';

/**
 * Issue 14's benchmark: the biggest books a client reads, as a client reads them. In its own
 * embedded stores (a fresh temporary DATA_DIR) and the local server over the real handlers, which
 * enforce AWS's limits (a 6,291,456-byte event is a 413, a 6,291,556-byte answer a 500, 30 s a 503):
 *
 * 1. A 1,000-page Arabic book (`arabicPage`, about 4,000 letters a page; `BENCH_TEXT=random` for
 *    letters that share nothing, see arabicText), made as a client and the OCR worker make it: `POST /ocr` (multipart, a pro
 *    member), the worker's 1,000 `POST /ocr/result/page` callbacks (32 in flight), then the final
 *    `POST /ocr/result` with the whole text, gzip-compressed (measured). No OCR worker runs.
 * 2. A 6,236-line book (the Quran's line count; Arabic ~150, English ~200, commentary ~400
 *    characters) through the book store, and its audio in 3 fields x 6 voices: 112,248 small fake
 *    MP3s put straight into the audio bucket and recorded in the table (nothing spoken).
 *
 * Then each read endpoint, through `node:http` (no transparent decompression, so the bytes counted
 * are the bytes on the wire), `BENCH_RUNS` times after one untimed warm-up, with `Accept-Encoding: br`
 * and, for the big ones, `gzip` and `identity`: status, body bytes on the wire, decoded size, whether
 * the answer was handed over through the bucket (303, followed, its time included), median and max.
 * A read refused on its first call (413, 500, 503) is not repeated: the process settles, and after
 * the reads it is measured once through a second server without the 30 s limit, to say by how much
 * it misses. Then the listings' work in this process (the queries, the domain function, stringify,
 * Brotli and gzip, heap growth). The big edits (`PATCH` of every page's text, of the whole text) and
 * the import are timed too. Last, the CPU of URL signing: the S3 adapter's `presignGetAll`, the SDK's
 * `getSignedUrl` and the CloudFront adapter, per URL and per listing.
 *
 * Knobs: BENCH_PAGES (1000), BENCH_LINES (6236), BENCH_RUNS (5), BENCH_TEXT (`arabic-pages` or
 * `random`), BENCH_PUT_IN_FLIGHT (32), BENCH_RECORD_LANES (4).
 *
 * Budget: every answer a success (never 413, 500 or 503) and right, and `lines-with-audio` of the
 * 6,236-line book (br) under 1 s at the median on this machine.
 */

const pageTotal = Number(process.env.BENCH_PAGES ?? 1000);
const lineTotal = Number(process.env.BENCH_LINES ?? 6236);
const runs = Number(process.env.BENCH_RUNS ?? 5);
/** Page callbacks in flight, as the page-callbacks bench. */
const callbacksInFlight = 32;
/** Audio PutObjects in flight while seeding; s3rver (one process) takes about 1.7 ms a put. */
const putsInFlight = Number(process.env.BENCH_PUT_IN_FLIGHT ?? 32);
/** `record` calls in flight while seeding (each keeps 8 UpdateItems in flight). */
const recordLanes = Number(process.env.BENCH_RECORD_LANES ?? 4);
/** Lines per `record` call. */
const linesPerRecord = 20;
/** The lines-with-audio budget (br, median). */
const linesWithAudioBudgetMs = 1000;


// ---------------------------------------------------------------------------------------------
// Report

export interface ReadRow {
  book: string;
  endpoint: string;
  acceptEncoding: string;
  /** e.g. `200`, or `303 → 200` when handed over through the bucket (of the last run). */
  status: string;
  /** Every timed run's final status (the followed one when handed over). */
  statuses: number[];
  /** The body bytes as received (compressed), of both hops when handed over (303 body + stored answer). */
  wireBytes: number;
  /** The 303's own body, when handed over. */
  redirectBytes: number | null;
  contentEncoding: string | null;
  /** The decoded body (JSON, or the document for the export). */
  decodedBytes: number;
  decodedKind: 'json' | 'docx' | 'other';
  handedOver: boolean;
  medianMs: number;
  maxMs: number;
  /** The API's own answer (the 303 when handed over), median. */
  apiMedianMs: number;
  /** The untimed warm-up (module loading of the route's function included). */
  warmUpMs: number | null;
  /** Timed runs: 1 when the first call was refused or timed out (not repeated). */
  runs: number;
  ok: boolean;
}

/** Over its time limit, measured once through a second local server that waits 10 minutes (not in the budget). */
export interface UnlimitedRow {
  endpoint: string;
  acceptEncoding: string;
  status: string;
  wireBytes: number;
  decodedBytes: number;
  ms: number;
}

/** A listing endpoint's work, in this process (the domain function, then what the HTTP layer does to its answer). */
export interface BreakdownRow {
  endpoint: string;
  runs: number;
  /** `books.lines` (one Query per 1 MB of lines). */
  linesMs: number;
  /** `audioFiles.ofBook` (one Query per 1 MB of the recorded files). */
  filesMs: number;
  files: number;
  /**
   * The same Query of the recorded files, raw (no parsing, no sort): its pages (1 MB each), all of
   * them, and the first and the last page, to tell the stand-in's cost from the adapter's.
   */
  rawQuery: { pages: number; ms: number; firstPageMs: number; lastPageMs: number };
  /** The domain function (lib/audio/listing.ts): both queries (concurrently), signing, building the answer. */
  domainMs: number;
  stringifyMs: number;
  jsonBytes: number;
  brMs: number;
  brBytes: number;
  gzipMs: number;
  gzipBytes: number;
  /** The largest heap growth seen (sampled every 20 ms) over the domain function and the stringify, MB. */
  heapPeakMb: number;
}

export interface WriteRow {
  endpoint: string;
  contentEncoding: string;
  /** The request body as sent. */
  requestWireBytes: number;
  /** The JSON it carries. */
  requestJsonBytes: number;
  status: string;
  statuses: number[];
  answerWireBytes: number;
  medianMs: number;
  maxMs: number;
  runs: number;
  /** A request a client must not send this way (a plain body over Lambda's request limit): shown, not in the budget. */
  informational: boolean;
  ok: boolean;
}

export interface SignRow {
  signer: string;
  keys: number;
  runs: number;
  /** One listing (all its keys), median of the runs. */
  wallMsPerListing: number;
  cpuMsPerListing: number;
  wallUsPerUrl: number;
  cpuUsPerUrl: number;
  /** Mean URL length in characters. */
  urlChars: number;
}

export interface BigBooksReport {
  pages: number;
  lines: number;
  runs: number;
  /** Where the Arabic text came from (BENCH_TEXT). */
  text: string;
  seeding: {
    /** Stores, server and users. */
    setupMs: number;
    pageCallbacksMs: number;
    pageCallbackFailures: number;
    /** From `POST /ocr` to the final result answered. */
    digitizedBookMs: number;
    bookLinesMs: number;
    audioFiles: number;
    audioBytes: number;
    audioPutsInFlight: number;
    audioPutsMs: number;
    /** Puts and records overlap: from the first put to the last record. */
    audioSeedMs: number;
  };
  reads: ReadRow[];
  unlimited: UnlimitedRow[];
  breakdown: BreakdownRow[];
  writes: WriteRow[];
  signing: SignRow[];
  linesWithAudioMedianMs: number;
  problems: string[];
  totalMs: number;
  ok: boolean;
}

// ---------------------------------------------------------------------------------------------
// Helpers

const median = (values: number[]): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  /** As received: compressed when the answer is. */
  body: Buffer;
}

/** One HTTP exchange without any decoding: the bytes counted are the bytes on the wire. */
function exchange(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: body ? { ...headers, 'content-length': String(body.length) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function decode(raw: Raw): Buffer {
  const encoding = String(raw.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'br') return brotliDecompressSync(raw.body);
  if (encoding === 'gzip') return gunzipSync(raw.body);
  return raw.body;
}

interface Fetched {
  /** The API's answer. */
  first: Raw;
  /** The stored answer, when the API handed it over (303). */
  followed?: Raw;
  final: Raw;
  ms: number;
  apiMs: number;
}

/** A client's request: when answered 303, it follows `Location` with a GET (no Authorization: another host). */
async function fetchFollowing(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<Fetched> {
  const start = performance.now();
  const first = await exchange(url, method, headers, body);
  const apiMs = performance.now() - start;
  if (first.status !== 303 || !first.headers.location) return { first, final: first, ms: apiMs, apiMs };
  const acceptEncoding = headers['accept-encoding'];
  const followed = await exchange(first.headers.location, 'GET', acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding });
  return { first, followed, final: followed, ms: performance.now() - start, apiMs };
}

const letters = 'ابتثجحخدذرزسشصضطظعغفقكلمنهوية';
/**
 * The Arabic text of the pages and lines: `arabicPage` (test/support), or with `BENCH_TEXT=random`
 * letters from crypto randomness in the same layout (a space every fifth character). `arabicPage`'s
 * generator loses precision in floating point (state x 1,103,515,245 passes 2^53) and falls into one
 * cycle of 10,466 states, so its pages share long runs that Brotli's window finds (a whole book
 * compresses about 14 to 1 with Brotli, against 2.3 to 1 for one page): `random` is the worst case.
 */
const textKind = process.env.BENCH_TEXT === 'random' ? 'random' : 'arabic-pages';
function arabicText(seed: number, length = 4_000): string {
  if (textKind === 'arabic-pages') return arabicPage(seed, length);
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += i % 5 === 4 ? ' ' : letters[bytes[i]! % letters.length]!;
  return out;
}

/** A deterministic PRNG (LCG, in BigInt-free integer steps small enough for doubles). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

const englishWords =
  'the and of to in that he is for it with as was his on be at by this had not are but from or have an they which one you were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(
    ' ',
  );

function words(random: () => number, length: number, from: readonly string[]): string {
  const out: string[] = [];
  let size = 0;
  while (size < length) {
    const word = from[Math.floor(random() * from.length)]!;
    out.push(word);
    size += word.length + 1;
  }
  return out.join(' ').slice(0, length);
}

/** A line as long as a Quran line with its translation and a commentary: ~150, ~200 and ~400 characters. */
function lineOf(bookId: string, lineId: string, i: number): Line {
  const random = prng(i + 7);
  const around = (mean: number, spread: number) => Math.round(mean - spread + random() * 2 * spread);
  return {
    bookId,
    lineId,
    arabic: arabicText(i + 1, around(150, 60)),
    english: words(random, around(200, 80), englishWords),
    commentary: words(random, around(400, 150), englishWords),
    rootwords: arabicText(i + 100_000, around(30, 10)),
  };
}

/** A small fake MP3 (an MPEG-1 layer III frame header, then filler), a few hundred bytes. */
const fakeMp3s = Array.from({ length: 16 }, (_, i) => {
  const bytes = Buffer.alloc(300 + i * 25, i);
  bytes.set([0xff, 0xfb, 0x90, 0x00]);
  return bytes;
});

/** What the platform answers past its limits, or a function that failed: never a success. */
const refusal = (status: number) => status === 413 || status >= 500;

/** Waits (at most 2 minutes) until this process has used under 15% of a core for two half-seconds running. */
async function settle(): Promise<void> {
  const start = performance.now();
  for (let quietFor = 0; quietFor < 2 && performance.now() - start < 120_000; ) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const used = process.cpuUsage(cpu);
    quietFor = (used.user + used.system) / 1000 / (performance.now() - t) < 0.15 ? quietFor + 1 : 0;
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n >= 100 ? fmt(n) : n.toFixed(1));

// ---------------------------------------------------------------------------------------------

export async function bigBooks(): Promise<BigBooksReport> {
  const benchStart = performance.now();
  const stack = await openBenchStack('big-books');
  try {
    const tableName = names.tableName;
    // No OCR_WORKER: no worker runs, the bench posts its callbacks.

    const [
      { loadHttpHandlers },
      { startLocalServer },
      { dynamoDocumentClient },
      { s3Client },
      { s3Objects },
      { servedByDistribution },
      { getSignedUrl },
      { GetObjectCommand },
      { audioKey, bookPrefix, contentHash },
      { audioFields, voiceIds },
      { sequentialObjectIds, newObjectId },
      dynamo,
    ] = await Promise.all([
      import('../infra/local/functions.ts'),
      import('../infra/local/server.ts'),
      import('../lib/adapters/aws/clients.ts'),
      import('../lib/adapters/aws/s3-client.ts'),
      import('../lib/adapters/s3/objects.ts'),
      import('../lib/adapters/cloudfront/media-urls.ts'),
      import('@aws-sdk/s3-request-presigner'),
      import('@aws-sdk/client-s3'),
      import('../lib/audio/audio-key.ts'),
      import('../lib/audio/voices.ts'),
      import('../lib/ids.ts'),
      Promise.all([import('../lib/adapters/dynamo/books.ts'), import('../lib/adapters/dynamo/audio-files.ts')]),
    ]);
    const [{ dynamoBookStore }, { dynamoAudioFiles }] = dynamo;
    const api = (await stack.serve()).url;

    const db = { client: dynamoDocumentClient(), tableName };
    const books = dynamoBookStore(db);
    const seeded = await seedBenchUsers(
      stack,
      [
        { key: 'editor', username: 'ocr-worker', role: 'editor' },
        // The digitized book's owner: pro, the tier import needs (docs/decisions.md, "import").
        { key: 'owner', username: 'scholar', subscription: { tier: 'pro', status: 'active' } },
        { key: 'reader', username: 'reader' },
      ],
      6 * 3600,
    );
    const editor = seeded.editor!;
    const owner = seeded.owner!;
    const reader = seeded.reader!;
    const setupMs = performance.now() - benchStart;
    const problems: string[] = [];
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });

    // -------------------------------------------------------------------------------------------
    // 1. The digitized book, as a client and the OCR worker make it.
    console.log(`big-books: seeding a ${fmt(pageTotal)}-page digitized book (POST /ocr, ${fmt(pageTotal)} page callbacks, the final result)`);
    const bookStart = performance.now();
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n')], { type: 'application/pdf' }), 'كتاب كبير.pdf');
    const createdRes = await fetch(`${api}/ocr`, { method: 'POST', headers: auth(owner.token), body: form });
    const createdText = await createdRes.text();
    if (createdRes.status !== 201) throw new Error(`POST /ocr answered ${createdRes.status}: ${createdText}`);
    const { jobId, fileId, bookTextId } = JSON.parse(createdText) as { jobId: string; fileId: string; bookTextId: string };
    const job = { jobId, fileId, userId: owner.userId };
    const texts = Array.from({ length: pageTotal }, (_, i) => arabicText(i + 1));

    const callbacksStart = performance.now();
    let nextPage = 0;
    let callbackFailures = 0;
    const jsonHeaders = (token: string) => ({ ...auth(token), 'content-type': 'application/json' });
    await Promise.all(
      Array.from({ length: Math.min(callbacksInFlight, pageTotal) }, async () => {
        for (let i = nextPage++; i < pageTotal; i = nextPage++) {
          const body = {
            ...job,
            pageNumber: i + 1,
            text: texts[i],
            storageKey: `ocr-pages/${jobId}/${i + 1}.png`,
            pagesProcessed: i + 1,
            ...(i % 100 === 0 ? { pageCount: pageTotal } : {}),
          };
          const answer = await exchange(`${api}/ocr/result/page`, 'POST', jsonHeaders(editor.token), Buffer.from(JSON.stringify(body)));
          if (answer.status !== 200) {
            if (callbackFailures++ === 0) problems.push(`page callback ${i + 1} answered ${answer.status}: ${answer.body.toString().slice(0, 200)}`);
          }
        }
      }),
    );
    const pageCallbacksMs = performance.now() - callbacksStart;
    if (callbackFailures) problems.push(`${callbackFailures} page callbacks not answered 200`);

    const writes: WriteRow[] = [];
    const fullText = texts.join('\n\n');
    {
      const json = JSON.stringify({ ...job, status: 'completed', extractedText: fullText, language: 'ar', pageCount: pageTotal, processingTime: Math.round(pageCallbacksMs) });
      const gz = gzipSync(json);
      const answer = await fetchFollowing(`${api}/ocr/result`, 'POST', { ...jsonHeaders(editor.token), 'content-encoding': 'gzip' }, gz);
      const ok = answer.final.status === 201;
      if (!ok) problems.push(`POST /ocr/result (gzip) answered ${answer.final.status}: ${answer.final.body.toString().slice(0, 300)}`);
      writes.push({
        endpoint: 'POST /ocr/result (completed, whole text; the pages came by callback)',
        contentEncoding: 'gzip',
        requestWireBytes: gz.length,
        requestJsonBytes: Buffer.byteLength(json),
        status: String(answer.final.status),
        statuses: [answer.final.status],
        answerWireBytes: answer.final.body.length,
        medianMs: answer.ms,
        maxMs: answer.ms,
        runs: 1,
        informational: false,
        ok,
      });
    }
    const digitizedBookMs = performance.now() - bookStart;
    console.log(`big-books: digitized book made in ${(digitizedBookMs / 1000).toFixed(1)} s (callbacks ${(pageCallbacksMs / 1000).toFixed(1)} s)`);

    // -------------------------------------------------------------------------------------------
    // 2. The line book and its audio.
    console.log(`big-books: seeding a ${fmt(lineTotal)}-line book and its audio (${fmt(lineTotal * 18)} files, ${putsInFlight} puts in flight)`);
    const linesStart = performance.now();
    const bookId = newObjectId();
    const lineIds = sequentialObjectIds(lineTotal);
    const lines = lineIds.map((lineId, i) => lineOf(bookId, lineId, i));
    const at = new Date().toISOString();
    await books.create(
      {
        bookId,
        title: 'مصحف بترجمة وتفسير',
        author: 'bench',
        ownerId: editor.userId,
        contributors: [],
        visibility: 'public',
        accessModel: 'free',
        requiredSubscriptionTier: null,
        metadata: {},
        lineCount: lineTotal,
        createdAt: at,
        updatedAt: at,
      },
      lines,
    );
    const bookLinesMs = performance.now() - linesStart;

    const audioBucket = s3Objects(s3Client(), names.audioBucket);
    const audioFiles = dynamoAudioFiles(db);
    const allKeys: string[] = [];
    const alloyKeys: string[] = [];
    // The puts go in line order, 32 at a time; each group of lines is recorded once all its files are stored.
    const groups = Math.ceil(lineTotal / linesPerRecord);
    const groupFiles: StoredObject[][] = Array.from({ length: groups }, () => []);
    const groupLeft = Array.from({ length: groups }, (_, g) => Math.min(linesPerRecord, lineTotal - g * linesPerRecord) * 18);
    const tasks: { key: string; bytes: Buffer; group: number }[] = [];
    lines.forEach((line, i) => {
      voiceIds.forEach((voice, v) => {
        const hash = contentHash(line, voice);
        audioFields.forEach((field, f) => {
          const key = audioKey(bookId, line.lineId, field, voice, hash);
          allKeys.push(key);
          if (voice === 'alloy') alloyKeys.push(key);
          tasks.push({ key, bytes: fakeMp3s[(i * 7 + v * 5 + f * 3) % fakeMp3s.length]!, group: Math.floor(i / linesPerRecord) });
        });
      });
    });
    const audioBytes = tasks.reduce((sum, t) => sum + t.bytes.length, 0);
    const toRecord: StoredObject[][] = [];
    let putsFinished = false;
    const audioStart = performance.now();
    let nextTask = 0;
    let putsMs = 0;
    const putLanes = Promise.all(
      Array.from({ length: putsInFlight }, async () => {
        for (let t = nextTask++; t < tasks.length; t = nextTask++) {
          const task = tasks[t]!;
          await audioBucket.put(task.key, task.bytes, 'audio/mpeg');
          groupFiles[task.group]!.push({ key: task.key, size: task.bytes.length, lastModified: new Date().toISOString() });
          if (--groupLeft[task.group]! === 0) toRecord.push(groupFiles[task.group]!);
          if (t % 20_000 === 0 && t > 0) console.log(`big-books:   ${fmt(t)} files put, ${((performance.now() - audioStart) / 1000).toFixed(0)} s`);
        }
      }),
    ).then(() => {
      putsMs = performance.now() - audioStart;
      putsFinished = true;
    });
    const recordLanesDone = Promise.all(
      Array.from({ length: recordLanes }, async () => {
        for (;;) {
          const batch = toRecord.shift();
          if (batch) await audioFiles.record(batch);
          else if (putsFinished) return;
          else await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }),
    );
    await Promise.all([putLanes, recordLanesDone]);
    const audioSeedMs = performance.now() - audioStart;
    console.log(
      `big-books: line book ${(bookLinesMs / 1000).toFixed(1)} s; ${fmt(tasks.length)} audio files put in ${(putsMs / 1000).toFixed(1)} s and recorded by ${(audioSeedMs / 1000).toFixed(1)} s`,
    );

    // -------------------------------------------------------------------------------------------
    // 3. The reads, as a client makes them.
    const reads: ReadRow[] = [];
    const readStart = performance.now();

    const routes = new Map<string, { route: string; token: string | undefined }>();
    /** Checks the decoded answer of the last timed run; returns a problem or undefined. */
    type Check = (decoded: Buffer, final: Raw) => string | undefined;
    const jsonCheck =
      (check: (body: never) => string | undefined): Check =>
      (decoded) => {
        let body: unknown;
        try {
          body = JSON.parse(decoded.toString('utf8'));
        } catch {
          return `not JSON: ${decoded.subarray(0, 200).toString()}`;
        }
        return check(body as never);
      };

    async function measureRead(
      bookLabel: string,
      endpoint: string,
      route: string,
      token: string | undefined,
      encodings: string[],
      check: Check,
      expect = 200,
    ): Promise<void> {
      routes.set(endpoint, { route, token });
      let warmedUp = false;
      for (const acceptEncoding of encodings) {
        const headers: Record<string, string> = { 'accept-encoding': acceptEncoding, ...(token ? auth(token) : {}) };
        let warmUpMs: number | null = null;
        const samples: Fetched[] = [];
        let problem: string | undefined;
        if (!warmedUp) {
          const first = await fetchFollowing(`${api}${route}`, 'GET', headers);
          warmUpMs = first.ms;
          if (refusal(first.final.status)) {
            // Refused or timed out: repeating it would only load the machine for the next measures
            // (a timed-out handler runs on, as a function does to its own timeout). One sample, then
            // wait for the process to go quiet.
            samples.push(first);
            problem = `${endpoint} (${acceptEncoding}) answered ${first.final.status} after ${ms(first.ms)} ms: ${first.final.body.subarray(0, 200).toString()}`;
            await settle();
          } else warmedUp = true;
        }
        for (let r = 0; r < runs && warmedUp; r++) {
          const got = await fetchFollowing(`${api}${route}`, 'GET', headers);
          samples.push(got);
          if (got.final.status !== expect || (got.followed && got.first.status !== 303)) {
            problem ??= `${endpoint} (${acceptEncoding}) answered ${got.first.status}${got.followed ? ` → ${got.final.status}` : ''}: ${got.final.body.subarray(0, 200).toString()}`;
          }
        }
        const last = samples.at(-1)!;
        let decoded: Buffer = Buffer.alloc(0);
        try {
          decoded = decode(last.final);
          if (last.final.status === expect) problem ??= check(decoded, last.final);
        } catch (error) {
          problem ??= `${endpoint} (${acceptEncoding}): could not decode the answer (${(error as Error).message})`;
        }
        if (problem) problems.push(problem.startsWith(endpoint) ? problem : `${endpoint} (${acceptEncoding}): ${problem}`);
        const contentType = String(last.final.headers['content-type'] ?? '');
        reads.push({
          book: bookLabel,
          endpoint,
          acceptEncoding,
          status: last.followed ? `${last.first.status} → ${last.final.status}` : String(last.final.status),
          statuses: samples.map((s) => s.final.status),
          wireBytes: last.first.body.length + (last.followed?.body.length ?? 0),
          redirectBytes: last.followed ? last.first.body.length : null,
          contentEncoding: (last.final.headers['content-encoding'] as string | undefined) ?? null,
          decodedBytes: decoded.length,
          decodedKind: contentType.includes('json') ? 'json' : contentType.includes('wordprocessingml') ? 'docx' : 'other',
          handedOver: samples.some((s) => s.followed !== undefined),
          medianMs: median(samples.map((s) => s.ms)),
          maxMs: Math.max(...samples.map((s) => s.ms)),
          apiMedianMs: median(samples.map((s) => s.apiMs)),
          warmUpMs: samples.length > 1 ? warmUpMs : null,
          runs: samples.length,
          ok: problem === undefined,
        });
        const row = reads.at(-1)!;
        console.log(
          `big-books:   ${endpoint} [${acceptEncoding}] ${row.status}, ${fmt(row.wireBytes)} B on the wire, ${fmt(row.decodedBytes)} B decoded, median ${ms(row.medianMs)} ms, max ${ms(row.maxMs)} ms`,
        );
      }
    }

    const all3 = ['br', 'gzip', 'identity'];
    const digitized = `${fmt(pageTotal)}-page book`;
    const lineBook = `${fmt(lineTotal)}-line book`;
    const windowOffset = Math.max(0, pageTotal - 200);
    const windowSize = Math.min(200, pageTotal);

    await measureRead(digitized, 'GET /ocr/status/{jobId}', `/ocr/status/${jobId}`, owner.token, ['br'], jsonCheck((b: { job?: { status?: string; pageCount?: number } }) =>
      b.job?.status === 'completed' && b.job.pageCount === pageTotal ? undefined : `status ${b.job?.status}, pageCount ${b.job?.pageCount}`,
    ));
    await measureRead(digitized, 'GET /ocr/text/{jobId}', `/ocr/text/${jobId}`, owner.token, all3, jsonCheck((b: { data?: { pages?: { pageNumber: number; text: string }[]; extractedText?: string } }) => {
      const pages = b.data?.pages ?? [];
      if (pages.length !== pageTotal) return `${pages.length} pages, not ${pageTotal}`;
      if (!pages.every((p, i) => p.pageNumber === i + 1 && p.text === texts[i])) return 'pages out of order or with the wrong text';
      return b.data?.extractedText === fullText ? undefined : `extractedText of ${b.data?.extractedText?.length} characters, not the ${fullText.length} sent`;
    }));
    await measureRead(
      digitized,
      `GET /ocr/books/{id}?pageLimit=200&pageOffset=${windowOffset} (biggest: 200 pages + text)`,
      `/ocr/books/${bookTextId}?pageLimit=200&pageOffset=${windowOffset}&includeText=true`,
      owner.token,
      all3,
      jsonCheck((b: { book?: { pages?: { pageNumber: number; imageUrl: string | null }[]; extractedText?: string } }) => {
        const pages = b.book?.pages ?? [];
        if (pages.length !== windowSize || pages[0]?.pageNumber !== windowOffset + 1) return `${pages.length} pages from ${pages[0]?.pageNumber}`;
        if (!pages.every((p) => p.imageUrl)) return 'a page without its imageUrl';
        return b.book?.extractedText === fullText ? undefined : `extractedText of ${b.book?.extractedText?.length} characters`;
      }),
    );
    await measureRead(digitized, 'GET /ocr/books/{id} (defaults: 50 pages + text)', `/ocr/books/${bookTextId}`, owner.token, ['br'], jsonCheck((b: { book?: { pages?: unknown[] } }) =>
      b.book?.pages?.length === Math.min(50, pageTotal) ? undefined : `${b.book?.pages?.length} pages`,
    ));
    await measureRead(digitized, 'GET /ocr/books/{id}/export/docx', `/ocr/books/${bookTextId}/export/docx`, owner.token, ['br'], (decoded, final) =>
      decoded.subarray(0, 2).toString() === 'PK' && String(final.headers['content-type']).includes('wordprocessingml') ? undefined : `not a docx (${final.headers['content-type']})`,
    );

    const middle = lines[Math.floor(lineTotal / 2)]!;
    await measureRead(lineBook, 'GET /audio/{bookId}/lines-with-audio (alloy)', `/audio/${bookId}/lines-with-audio`, reader.token, all3, jsonCheck((b: { lines?: { fields: Record<string, { hasAudio: boolean; audioUrl: string | null }> }[] }) => {
      const got = b.lines ?? [];
      if (got.length !== lineTotal) return `${got.length} lines, not ${lineTotal}`;
      const missing = got.filter((l) => Object.values(l.fields).some((f) => !f.hasAudio || !f.audioUrl)).length;
      return missing ? `${missing} lines with a field without audio` : undefined;
    }));
    await measureRead(lineBook, 'GET /audio/{bookId}/all (6 voices)', `/audio/${bookId}/all`, reader.token, all3, jsonCheck((b: { totalFiles?: number; lines?: unknown[] }) =>
      b.totalFiles === lineTotal * 18 && b.lines?.length === lineTotal ? undefined : `totalFiles ${b.totalFiles}, ${b.lines?.length} lines`,
    ));
    await measureRead(lineBook, 'GET /audio/{bookId}/all?voice=nova', `/audio/${bookId}/all?voice=nova`, reader.token, all3, jsonCheck((b: { totalFiles?: number; lines?: unknown[] }) =>
      b.totalFiles === lineTotal * 3 && b.lines?.length === lineTotal ? undefined : `totalFiles ${b.totalFiles}, ${b.lines?.length} lines`,
    ));
    await measureRead(lineBook, 'GET /audio/{bookId}/lines/{lineId} (18 files)', `/audio/${bookId}/lines/${middle.lineId}`, reader.token, ['br'], jsonCheck((b: { audioFiles?: { url: string }[] }) =>
      b.audioFiles?.length === 18 && b.audioFiles.every((f) => f.url) ? undefined : `${b.audioFiles?.length} files`,
    ));
    const readsMs = performance.now() - readStart;

    // What a refused read would take without the limits: once, through a second server that waits
    // 10 minutes (its handlers' own deadline moves with it). Not in the budget: it says by how much.
    const unlimited: UnlimitedRow[] = [];
    const refusedEndpoints = [...new Set(reads.filter((r) => r.statuses.some(refusal)).map((r) => r.endpoint))];
    if (refusedEndpoints.length) {
      const patient = await startLocalServer({ host: '127.0.0.1', port: 0, handlers: await loadHttpHandlers(), timeoutMs: 600_000 });
      try {
        for (const endpoint of refusedEndpoints) {
          const { route, token } = routes.get(endpoint)!;
          await settle();
          const got = await fetchFollowing(`${patient.url}${route}`, 'GET', { 'accept-encoding': 'br', ...(token ? auth(token) : {}) });
          let decodedBytes = 0;
          try {
            decodedBytes = decode(got.final).length;
          } catch {
            decodedBytes = NaN;
          }
          unlimited.push({
            endpoint,
            acceptEncoding: 'br',
            status: got.followed ? `${got.first.status} → ${got.final.status}` : String(got.final.status),
            wireBytes: got.first.body.length + (got.followed?.body.length ?? 0),
            decodedBytes,
            ms: got.ms,
          });
          console.log(`big-books:   without the 30 s limit: ${endpoint} [br] ${unlimited.at(-1)!.status} in ${ms(got.ms)} ms, ${fmt(unlimited.at(-1)!.wireBytes)} B on the wire, ${fmt(decodedBytes)} B decoded`);
        }
      } finally {
        await patient.close();
      }
    }

    // The listings' work in this process: the queries, the domain function (signing included), and
    // what the HTTP layer does with its answer (stringify, then Brotli or gzip as big-answers.ts).
    const [{ linesWithAudio, allAudio }, { audioDeps }, { answerRules }, { paginateQuery }, { keys: tableKeys }] = await Promise.all([
      import('../lib/audio/listing.ts'),
      import('../functions/_shared/audio-deps.ts'),
      import('../functions/_shared/http/big-answers.ts'),
      import('@aws-sdk/lib-dynamodb'),
      import('../lib/adapters/dynamo/keys.ts'),
    ]);
    // The recorded files' partitions (one a voice), page by page, as the adapter reads them.
    const rawQuery = async (voice: string | undefined) => {
      const pageMs: number[] = [];
      const start = performance.now();
      let t = start;
      for (const v of voice === undefined ? voiceIds : [voice]) {
        const pages = paginateQuery(
          { client: db.client },
          { TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': tableKeys.audioFilesPartition(bookId, v) } },
        );
        for await (const _page of pages) {
          pageMs.push(performance.now() - t);
          t = performance.now();
        }
      }
      return { pages: pageMs.length, ms: performance.now() - start, firstPageMs: pageMs[0] ?? NaN, lastPageMs: pageMs.at(-1) ?? NaN };
    };
    const deps = audioDeps();
    const anonymousCaller = { kind: 'anonymous' } as const;
    const breakdown: BreakdownRow[] = [];
    async function measureBreakdown(endpoint: string, times: number, voice: string | undefined, run: () => Promise<unknown>) {
      const samples: Omit<BreakdownRow, 'endpoint' | 'runs'>[] = [];
      for (let r = 0; r < times; r++) {
        await settle();
        let t = performance.now();
        await deps.books.lines(bookId);
        const linesMs = performance.now() - t;
        t = performance.now();
        const files = (await deps.audioFiles.ofBook(bookId, voice)).length;
        const filesMs = performance.now() - t;
        const raw = await rawQuery(voice);
        const heapBase = process.memoryUsage().heapUsed;
        let heapPeak = heapBase;
        const sample = () => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed));
        const sampler = setInterval(sample, 20);
        t = performance.now();
        const answer = await run();
        const domainMs = performance.now() - t;
        t = performance.now();
        const json = Buffer.from(JSON.stringify(answer));
        const stringifyMs = performance.now() - t;
        sample();
        clearInterval(sampler);
        t = performance.now();
        // As big-answers.ts compresses it: the fast settings over a megabyte.
        const fast = json.length > answerRules.fastAboveBytes;
        const br = await promisify(brotliCompress)(json, {
          params: { [zlibConstants.BROTLI_PARAM_QUALITY]: fast ? answerRules.fastBrotliQuality : answerRules.brotliQuality, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: json.length },
        });
        const brMs = performance.now() - t;
        t = performance.now();
        const gz = await promisify(gzip)(json, { level: fast ? answerRules.fastGzipLevel : answerRules.gzipLevel });
        const gzipMs = performance.now() - t;
        samples.push({ linesMs, filesMs, files, rawQuery: raw, domainMs, stringifyMs, jsonBytes: json.length, brMs, brBytes: br.length, gzipMs, gzipBytes: gz.length, heapPeakMb: (heapPeak - heapBase) / 2 ** 20 });
      }
      type Sample = (typeof samples)[number];
      const mid = <K extends Exclude<keyof Sample, 'rawQuery'>>(key: K) => median(samples.map((x) => x[key] as number));
      const midRaw = <K extends keyof Sample['rawQuery']>(key: K) => median(samples.map((x) => x.rawQuery[key]));
      breakdown.push({
        endpoint,
        runs: times,
        linesMs: mid('linesMs'),
        filesMs: mid('filesMs'),
        files: samples[0]!.files,
        rawQuery: { pages: samples[0]!.rawQuery.pages, ms: midRaw('ms'), firstPageMs: midRaw('firstPageMs'), lastPageMs: midRaw('lastPageMs') },
        domainMs: mid('domainMs'),
        stringifyMs: mid('stringifyMs'),
        jsonBytes: samples[0]!.jsonBytes,
        brMs: mid('brMs'),
        brBytes: samples[0]!.brBytes,
        gzipMs: mid('gzipMs'),
        gzipBytes: samples[0]!.gzipBytes,
        heapPeakMb: Math.max(...samples.map((x) => x.heapPeakMb)),
      });
      const row = breakdown.at(-1)!;
      console.log(
        `big-books:   in process: ${endpoint}: lines ${ms(row.linesMs)} ms, files ${ms(row.filesMs)} ms (raw Query ${row.rawQuery.pages} pages ${ms(row.rawQuery.ms)} ms), domain ${ms(row.domainMs)} ms, stringify ${ms(row.stringifyMs)} ms, br ${ms(row.brMs)} ms, gzip ${ms(row.gzipMs)} ms`,
      );
    }
    await measureBreakdown('lines-with-audio (alloy)', runs, 'alloy', () => linesWithAudio(deps, anonymousCaller, bookId, { voice: 'alloy' }));
    await measureBreakdown('/all?voice=nova', runs, 'nova', () => allAudio(deps, anonymousCaller, bookId, { fields: audioFields, voice: 'nova' }));
    await measureBreakdown('/all (6 voices)', 1, undefined, () => allAudio(deps, anonymousCaller, bookId, { fields: audioFields }));

    // -------------------------------------------------------------------------------------------
    // 4. The big edits and the import (after the reads, which checked the text as made).
    async function measureWrite(endpoint: string, route: string, method: string, token: string, json: string | undefined, encoding: 'gzip' | 'identity', expect: number, times: number, before?: (run: number) => Promise<void>, check?: (answer: Raw) => Promise<string | undefined>) {
      const plain = json === undefined ? undefined : Buffer.from(json);
      const body = plain && encoding === 'gzip' ? gzipSync(plain) : plain;
      const headers: Record<string, string> = { ...auth(token), 'accept-encoding': 'br', ...(json !== undefined && { 'content-type': 'application/json' }), ...(encoding === 'gzip' && { 'content-encoding': 'gzip' }) };
      const informational = body !== undefined && encoding === 'identity' && expect === 413;
      const samples: Fetched[] = [];
      let problem: string | undefined;
      for (let r = 0; r < times; r++) {
        await before?.(r);
        const got = await fetchFollowing(`${api}${route}`, method, headers, body);
        samples.push(got);
        if (got.final.status !== expect) problem ??= `${endpoint} (${encoding}) answered ${got.final.status}: ${got.final.body.subarray(0, 300).toString()}`;
        else if (r === 0 && check) problem ??= await check(got.final);
      }
      if (problem) problems.push(problem);
      const last = samples.at(-1)!;
      writes.push({
        endpoint,
        contentEncoding: body === undefined ? '(no body)' : encoding,
        requestWireBytes: body?.length ?? 0,
        requestJsonBytes: plain?.length ?? 0,
        status: last.followed ? `${last.first.status} → ${last.final.status}` : String(last.final.status),
        statuses: samples.map((s) => s.final.status),
        answerWireBytes: last.final.body.length,
        medianMs: median(samples.map((s) => s.ms)),
        maxMs: Math.max(...samples.map((s) => s.ms)),
        runs: times,
        informational,
        ok: problem === undefined,
      });
      const row = writes.at(-1)!;
      console.log(
        `big-books:   ${endpoint} [${row.contentEncoding}] ${row.status}, ${fmt(row.requestWireBytes)} B sent (${fmt(row.requestJsonBytes)} B JSON), median ${ms(row.medianMs)} ms, max ${ms(row.maxMs)} ms`,
      );
    }

    const writeStart = performance.now();
    const editedPages = (run: number) => texts.map((_, i) => ({ pageNumber: i + 1, text: arabicText((run + 2) * 1_000_003 + i) }));
    const pagesJson = (run: number) => JSON.stringify({ pages: editedPages(run) });
    const overRequestLimit = (json: string) => Buffer.byteLength(json) > platformLimits.lambdaRequestBytes - 4_096;
    // Every page's text (PATCH's pages cap is 2,000; a page's text at most 60,000 characters).
    if (overRequestLimit(pagesJson(0))) {
      await measureWrite(`PATCH /ocr/books/{id} (all ${fmt(pageTotal)} pages' text)`, `/ocr/books/${bookTextId}`, 'PATCH', owner.token, pagesJson(0), 'identity', 413, 1);
    }
    for (let r = 0; r < runs; r++) {
      // A new text each run, so that every run writes (and the next run's import is of a new text).
      await measureWrite(`PATCH /ocr/books/{id} (all ${fmt(pageTotal)} pages' text)`, `/ocr/books/${bookTextId}`, 'PATCH', owner.token, pagesJson(r), 'gzip', 200, 1);
    }
    mergeRuns(writes, `PATCH /ocr/books/{id} (all ${fmt(pageTotal)} pages' text)`, 'gzip');
    const editedText = editedPages(runs - 1).map((p) => p.text).join('\n\n');
    const textJson = JSON.stringify({ extractedText: editedText });
    if (overRequestLimit(textJson)) {
      await measureWrite('PATCH /ocr/books/{id} (the whole extractedText)', `/ocr/books/${bookTextId}`, 'PATCH', owner.token, textJson, 'identity', 413, 1);
    }
    await measureWrite('PATCH /ocr/books/{id} (the whole extractedText)', `/ocr/books/${bookTextId}`, 'PATCH', owner.token, textJson, 'gzip', 200, runs, undefined, async () => {
      const back = await fetchFollowing(`${api}/ocr/text/${jobId}`, 'GET', { ...auth(owner.token), 'accept-encoding': 'br' });
      const data = (JSON.parse(decode(back.final).toString('utf8')) as { data?: { extractedText?: string } }).data;
      return data?.extractedText === editedText ? undefined : `GET /ocr/text after the PATCH gives extractedText of ${data?.extractedText?.length} characters, not the ${editedText.length} sent`;
    });

    // Import: each run after a one-page edit (untimed), so that each run imports a new text (an import
    // of a text already imported answers the same Book at once).
    const imported: string[] = [];
    await measureWrite(
      `POST /ocr/books/{id}/import (${fmt(pageTotal)} pages → lines)`,
      `/ocr/books/${bookTextId}/import`,
      'POST',
      owner.token,
      undefined,
      'identity',
      201,
      runs,
      async (run) => {
        const edit = await exchange(`${api}/ocr/books/${bookTextId}`, 'PATCH', jsonHeaders(owner.token), Buffer.from(JSON.stringify({ pages: [{ pageNumber: 1, text: `${texts[0]} (${run})` }] })));
        if (edit.status !== 200) problems.push(`the one-page PATCH before import run ${run} answered ${edit.status}`);
      },
      async (answer) => {
        const { bookId: newBook } = JSON.parse(decode(answer).toString('utf8')) as { bookId?: string };
        if (!newBook) return 'import answered no bookId';
        imported.push(newBook);
        const got = await books.lines(newBook);
        return got.length === pageTotal ? undefined : `the imported book has ${got.length} lines, not ${pageTotal}`;
      },
    );
    const writesMs = performance.now() - writeStart;

    // -------------------------------------------------------------------------------------------
    // 5. Signing CPU per URL.
    const signing: SignRow[] = [];
    const prefix = bookPrefix(bookId);
    async function measureSigning(signer: string, keys: readonly string[], sign: () => Promise<string[]>, times = runs) {
      const walls: number[] = [];
      const cpus: number[] = [];
      let urlChars = 0;
      for (let r = 0; r < times; r++) {
        const cpu = process.cpuUsage();
        const start = performance.now();
        const urls = await sign();
        walls.push(performance.now() - start);
        const used = process.cpuUsage(cpu);
        cpus.push((used.user + used.system) / 1000);
        if (urls.length !== keys.length) problems.push(`${signer}: ${urls.length} URLs for ${keys.length} keys`);
        urlChars = urls.reduce((sum, u) => sum + u.length, 0) / Math.max(1, urls.length);
      }
      const wall = median(walls);
      const cpu = median(cpus);
      signing.push({ signer, keys: keys.length, runs: times, wallMsPerListing: wall, cpuMsPerListing: cpu, wallUsPerUrl: (wall * 1000) / keys.length, cpuUsPerUrl: (cpu * 1000) / keys.length, urlChars });
      const row = signing.at(-1)!;
      console.log(`big-books:   ${signer}, ${fmt(row.keys)} keys: ${ms(row.wallMsPerListing)} ms (CPU ${ms(row.cpuMsPerListing)} ms), ${row.cpuUsPerUrl.toFixed(1)} µs CPU a URL`);
    }
    const sdkKeys = alloyKeys.slice(0, 500);
    const s3 = s3Client();
    await measureSigning('SDK getSignedUrl (one call a URL)', sdkKeys, () =>
      sdkKeys.reduce<Promise<string[]>>(async (done, Key) => [...(await done), await getSignedUrl(s3, new GetObjectCommand({ Bucket: names.audioBucket, Key }), { expiresIn: 3600 })], Promise.resolve([])),
    );
    for (const keys of [alloyKeys, allKeys]) {
      await measureSigning('S3 adapter presignGetAll', keys, () => audioBucket.presignGetAll(prefix, keys, 3600));
    }
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const distribution = servedByDistribution(audioBucket, { urlBase: 'https://d111111abcdef8.cloudfront.net', keyPairId: 'K2JCJMDEHXQW5F', privateKey: async () => privateKey });
    await measureSigning('CloudFront presignGet (one signature a URL)', sdkKeys, () =>
      sdkKeys.reduce<Promise<string[]>>(async (done, key) => [...(await done), await distribution.presignGet(key, 3600)], Promise.resolve([])),
    );
    for (const keys of [alloyKeys, allKeys]) {
      await measureSigning('CloudFront presignGetAll (one policy a listing)', keys, () => distribution.presignGetAll(prefix, keys, 3600));
    }

    // -------------------------------------------------------------------------------------------
    const linesWithAudioRead = reads.find((r) => r.endpoint.startsWith('GET /audio/{bookId}/lines-with-audio') && r.acceptEncoding === 'br');
    const linesWithAudioMedianMs = linesWithAudioRead?.medianMs ?? NaN;
    if (!(linesWithAudioMedianMs < linesWithAudioBudgetMs)) {
      problems.push(`lines-with-audio (br) median ${ms(linesWithAudioMedianMs)} ms, over the ${fmt(linesWithAudioBudgetMs)} ms budget`);
    }
    const refused = [...reads.flatMap((r) => r.statuses), ...writes.filter((w) => !w.informational).flatMap((w) => w.statuses)].filter((s) => s === 413 || s >= 500);
    if (refused.length) problems.push(`${refused.length} answers were a platform refusal or a failure (${[...new Set(refused)].join(', ')})`);
    console.log(`big-books: reads ${(readsMs / 1000).toFixed(0)} s, writes ${(writesMs / 1000).toFixed(0)} s`);

    return {
      pages: pageTotal,
      lines: lineTotal,
      runs,
      text: textKind === 'random' ? 'random letters (BENCH_TEXT=random)' : 'arabicPage of test/support (its pages share long runs: Brotli compresses the whole book about 14 to 1)',
      seeding: {
        setupMs,
        pageCallbacksMs,
        pageCallbackFailures: callbackFailures,
        digitizedBookMs,
        bookLinesMs,
        audioFiles: tasks.length,
        audioBytes,
        audioPutsInFlight: putsInFlight,
        audioPutsMs: putsMs,
        audioSeedMs,
      },
      reads,
      unlimited,
      breakdown,
      writes,
      signing,
      linesWithAudioMedianMs,
      problems,
      totalMs: performance.now() - benchStart,
      ok: problems.length === 0,
    };
  } finally {
    await stack.close();
  }
}

/** The PATCH runs were measured one request at a time (each its own text): one row of them all. */
function mergeRuns(writes: WriteRow[], endpoint: string, contentEncoding: string): void {
  const rows = writes.filter((w) => w.endpoint === endpoint && w.contentEncoding === contentEncoding);
  if (rows.length < 2) return;
  const times = rows.map((w) => w.medianMs);
  const merged: WriteRow = {
    ...rows.at(-1)!,
    statuses: rows.flatMap((w) => w.statuses),
    medianMs: median(times),
    maxMs: Math.max(...times),
    runs: rows.length,
    ok: rows.every((w) => w.ok),
  };
  const first = writes.indexOf(rows[0]!);
  for (const row of rows) writes.splice(writes.indexOf(row), 1);
  writes.splice(first, 0, merged);
}

// ---------------------------------------------------------------------------------------------

function table(header: string[], rows: string[][], leftColumns: number): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i < leftColumns ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)];
}

export function printBigBooks(report: BigBooksReport): void {
  const s = report.seeding;
  const sec = (n: number) => `${(n / 1000).toFixed(1)} s`;
  console.log(`\nbig-books: ${fmt(report.pages)}-page Arabic book, ${fmt(report.lines)}-line book with ${fmt(s.audioFiles)} audio files; median and max of ${report.runs} runs after 1 untimed warm-up (reads)`);
  console.log(
    `seeding: stores, server and users ${sec(s.setupMs)}; digitized book ${sec(s.digitizedBookMs)} (POST /ocr, ${fmt(report.pages)} page callbacks at 32 in flight in ${sec(s.pageCallbacksMs)}, ${s.pageCallbackFailures} failed, the final result); ` +
      `line book ${sec(s.bookLinesMs)}; audio ${fmt(s.audioFiles)} files (${fmt(s.audioBytes)} bytes) put ${s.audioPutsInFlight} in flight in ${sec(s.audioPutsMs)}, recorded alongside, done in ${sec(s.audioSeedMs)}`,
  );
  console.log('\nReads (wire bytes: the body as received, compressed; when handed over (303), the 303 body plus the stored answer; time includes following the URL):\n');
  const reads = report.reads.map((r) => [
    `${r.book}: ${r.endpoint}`,
    r.acceptEncoding,
    r.status + (r.contentEncoding ? ` (${r.contentEncoding})` : ''),
    fmt(r.wireBytes),
    r.decodedKind === 'json' ? fmt(r.decodedBytes) : `${fmt(r.decodedBytes)} (${r.decodedKind})`,
    r.handedOver ? 'yes' : 'no',
    ms(r.medianMs),
    ms(r.maxMs),
    ms(r.apiMedianMs),
  ]);
  for (const line of table(['endpoint', 'accept-encoding', 'status', 'wire bytes', 'JSON bytes', 'handed over', 'median ms', 'max ms', 'API hop median ms'], reads, 2)) console.log(line);

  if (report.unlimited.length) {
    console.log('\nRefused reads, once more through a server without the 30 s limit (not in the budget: by how much they miss it):\n');
    const rows = report.unlimited.map((u) => [u.endpoint, u.acceptEncoding, u.status, fmt(u.wireBytes), fmt(u.decodedBytes), ms(u.ms)]);
    for (const line of table(['endpoint', 'accept-encoding', 'status', 'wire bytes', 'JSON bytes', 'ms'], rows, 2)) console.log(line);
  }

  console.log('\nThe listings in this process, median (the queries run again on their own; domain = lib/audio/listing.ts with both queries and the signing; br and gzip as big-answers.ts):\n');
  const breakdown = report.breakdown.map((b) => [
    b.endpoint,
    String(b.runs),
    ms(b.linesMs),
    `${ms(b.filesMs)} (${fmt(b.files)})`,
    `${b.rawQuery.pages}: ${ms(b.rawQuery.ms)} (${ms(b.rawQuery.firstPageMs)} → ${ms(b.rawQuery.lastPageMs)})`,
    ms(b.domainMs),
    ms(b.stringifyMs),
    fmt(b.jsonBytes),
    `${ms(b.brMs)} → ${fmt(b.brBytes)}`,
    `${ms(b.gzipMs)} → ${fmt(b.gzipBytes)}`,
    Math.ceil((b.brBytes * 4) / 3) + 200 <= platformLimits.lambdaResponseBytes ? 'yes' : 'no',
    fmt(b.heapPeakMb),
  ]);
  for (const line of table(
    ['listing', 'runs', 'lines query ms', 'files query ms (files)', 'raw Query pages: ms (first → last page)', 'domain ms', 'stringify ms', 'JSON bytes', 'br ms → bytes', 'gzip ms → bytes', 'br fits (base64)', 'heap growth MB'],
    breakdown,
    1,
  )) console.log(line);

  console.log('\nWrites (request bodies as sent; the plain ones over Lambda\'s 6,291,456-byte request are shown to say why the client gzips them, and are not in the budget):\n');
  const writes = report.writes.map((w) => [
    w.endpoint,
    w.contentEncoding,
    fmt(w.requestWireBytes),
    fmt(w.requestJsonBytes),
    w.status + (w.informational ? ' (expected)' : ''),
    fmt(w.answerWireBytes),
    String(w.runs),
    ms(w.medianMs),
    ms(w.maxMs),
  ]);
  for (const line of table(['request', 'content-encoding', 'request wire bytes', 'request JSON bytes', 'status', 'answer bytes', 'runs', 'median ms', 'max ms'], writes, 2)) console.log(line);

  console.log('\nURL signing (in this process, expiry 3,600 s; CPU from process.cpuUsage(), median of the runs):\n');
  const signing = report.signing.map((g) => [
    g.signer,
    fmt(g.keys),
    ms(g.wallMsPerListing),
    ms(g.cpuMsPerListing),
    g.wallUsPerUrl.toFixed(2),
    g.cpuUsPerUrl.toFixed(2),
    fmt(g.urlChars),
  ]);
  for (const line of table(['signer', 'keys', 'wall ms a listing', 'CPU ms a listing', 'wall µs a URL', 'CPU µs a URL', 'URL chars'], signing, 1)) console.log(line);

  console.log(`text: ${report.text}`);
  console.log(`\nbudget: every answer a success (no 413, 500 or 503) and right; lines-with-audio (br) median under ${fmt(linesWithAudioBudgetMs)} ms: ${ms(report.linesWithAudioMedianMs)} ms`);
  for (const problem of report.problems) console.log(`PROBLEM: ${problem}`);
  console.log(`total ${sec(report.totalMs)}`);
  console.log(report.ok ? 'ok' : 'OVER BUDGET');
  console.log(JSON.stringify({ bench: 'big-books', ...report }));
}

await runIfMain(import.meta.url, bigBooks, printBigBooks);
