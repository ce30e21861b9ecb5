import { seeded } from '../ocr-worker/fixtures/random.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { names } from '../infra/local/state.ts';
import type { Caller } from '../lib/auth/caller.ts';
import type { User } from '../lib/auth/users.ts';
import type { BookText, FileRecord, OcrStatus, Visibility } from '../lib/ocr/book-text.ts';
import { maxWindow } from '../lib/paging.ts';
import * as v from 'valibot';
import { ocrApiContracts } from '../functions/api/ocr-api.ts';
import { openBenchStack } from './env.ts';

/** The catalogue's query as its contract reads it before the handler runs. */
const listing = (query: Record<string, string>) => v.parse(ocrApiContracts['GET /ocr/books'].query, query);

/**
 * The catalogue listing (`GET /ocr/books`, DESIGN.md section 4 and 8): what a page costs as the
 * catalogue grows. Two catalogues are seeded in one DynamoDB Local, each in its own table built from
 * schema.ts: `BENCH_BOOKS_SMALL` (1,000) and `BENCH_BOOKS_LARGE` (100,000) books, written directly
 * as stored items (`entities.ts`, `batchPut`) with one File each, 200 users and the counter items
 * set to what was seeded. Then every variant (caller x sort x offset x filter) runs through the domain
 * function behind the route, `listCatalogue`, `BENCH_RUNS` times after one warm-up, against each table in
 * turn; an SDK middleware on the document client counts the DynamoDB calls by command and the items
 * read (ScannedCount of every Query, COUNT queries included, plus the items GetItem and BatchGetItem
 * return). Every answer is checked against the seeded data (total and page ids).
 *
 * Budget: the unfiltered newest-first first page makes the same calls and reads the same items at
 * the large size as at the small one, for anonymous callers, members and editors; and every answer
 * is right. Latency is reported, not budgeted: DynamoDB Local is a stand-in, not DynamoDB.
 */

const smallSize = Number(process.env.BENCH_BOOKS_SMALL ?? 1000);
const largeSize = Number(process.env.BENCH_BOOKS_LARGE ?? 100_000);
const runs = Number(process.env.BENCH_RUNS ?? 5);
/** Books' Files too (the listing joins them for the page); 0 leaves them out (author, fileType, fileSize null). */
const withFiles = (process.env.BENCH_FILES ?? '1') !== '0';
/** batchPut calls in flight while seeding (each keeps 4 BatchWriteItems in flight). */
const seedLanes = Number(process.env.BENCH_SEED_LANES ?? 2);

// ---------------------------------------------------------------------------------------------
// The seeded data: deterministic (a seeded PRNG), so two runs seed the same catalogues.

function weighted<T>(random: () => number, choices: readonly (readonly [T, number])[]): T {
  const sum = choices.reduce((s, [, w]) => s + w, 0);
  let r = random() * sum;
  for (const [value, w] of choices) if ((r -= w) < 0) return value;
  return choices.at(-1)![0];
}

/** Up to `n` distinct picks, each weighted. */
function pickDistinct<T>(random: () => number, choices: readonly (readonly [T, number])[], n: number): T[] {
  const picked: T[] = [];
  for (let tries = 0; picked.length < n && tries < n * 10; tries++) {
    const value = weighted(random, choices);
    if (!picked.includes(value)) picked.push(value);
  }
  return picked;
}

/** Zipf-like weights: the first is the most common, the last the rarest. */
const zipf = <T>(values: readonly T[]): (readonly [T, number])[] => values.map((value, i) => [value, 1 / (i + 1)] as const);

const tagPool = [
  'fiqh', 'hadith', 'tafsir', 'aqeedah', 'seerah', 'history', 'poetry', 'nahw', 'sarf', 'balagha',
  'usul', 'tasawwuf', 'adab', 'philosophy', 'logic', 'medicine', 'astronomy', 'mathematics', 'geography', 'biography',
  'lectures', 'children', 'dua', 'quran', 'arabic-language', 'urdu-literature', 'translation', 'fatwa', 'travel', 'calligraphy',
] as const;
/** On one book in 1,000 (every 1,000th in creation order), besides the pool's tags. */
const rareTag = 'rare-manuscript';
const commonTag = tagPool[0];
const categoryPool = ['ocr', 'religion', 'history', 'literature', 'language', 'science', 'law', 'philosophy', 'children', 'reference'] as const;

const arabicTitles = [
  'رياض الصالحين', 'صحيح البخاري', 'تفسير ابن كثير', 'الأربعون النووية', 'مقدمة ابن خلدون', 'ألفية ابن مالك', 'كتاب التوحيد',
  'الرحيق المختوم', 'إحياء علوم الدين', 'البداية والنهاية', 'لسان العرب', 'الموطأ', 'بلوغ المرام', 'زاد المعاد', 'ديوان المتنبي',
  'كليلة ودمنة', 'الأدب المفرد', 'شرح الآجرومية', 'مختصر خليل', 'تاريخ الطبري',
];
const englishTitles = [
  'Introduction to Arabic Grammar', 'A History of the Arabs', 'The Muqaddimah', 'Selections from Hadith', 'Classical Arabic Poetry',
  'Islamic Jurisprudence', 'The Sealed Nectar', 'Madinah Arabic Reader', 'Lectures on Logic', 'Medieval Astronomy',
  'arabic morphology notes', 'Quranic Studies', 'Ottoman Manuscripts', 'The Travels of Ibn Battuta', 'Sufism: An Introduction',
];
const urduTitles = ['تفہیم القرآن', 'سیرت النبی', 'بہشتی زیور', 'فضائل اعمال', 'دیوان غالب'];
const previewText = 'بسم الله الرحمن الرحيم. الحمد لله رب العالمين، والصلاة والسلام على نبينا محمد وعلى آله وصحبه أجمعين. أما بعد، ';

/** A 24-hex ObjectId: 4 bytes of seconds, then 8 bytes unique within the run. */
const objectId = (at: string, unique: number, salt: number) =>
  Math.floor(Date.parse(at) / 1000).toString(16).padStart(8, '0') + salt.toString(16).padStart(4, '0') + unique.toString(16).padStart(12, '0');

const uuid = (random: () => number) => {
  const h = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  h[12] = '4';
  h[16] = '89ab'[Math.floor(random() * 4)]!;
  return `${h.slice(0, 8).join('')}-${h.slice(8, 12).join('')}-${h.slice(12, 16).join('')}-${h.slice(16, 20).join('')}-${h.slice(20).join('')}`;
};

const userCount = 200;
const memberBooks = 50;
const end = Date.parse('2026-11-01T00:00:00.000Z');
const spanMs = 3 * 365 * 24 * 3600_000;

/** 200 users: the member (index 0), the editor (index 1) and 198 more members. */
function seedUsers(): User[] {
  const at = new Date(end - spanMs - 86_400_000).toISOString();
  return Array.from({ length: userCount }, (_, i) => ({
    userId: objectId(at, i, 0xffff),
    username: i === 0 ? 'bench-member' : i === 1 ? 'bench-editor' : `reader${i}`,
    email: `user${i}@bench.example`,
    role: i === 1 ? 'editor' : 'member',
    profilePicture: null,
    profilePictureKey: null,
    createdAt: at,
    updatedAt: at,
  }));
}

interface Catalogue {
  size: number;
  books: BookText[];
  files: FileRecord[];
}

/**
 * `size` books, oldest first, with distinct createdAt spread over three years. Owners: the member
 * owns 50 books at every size (the 2 newest, one public and one private, and 48 spread over the
 * older ones, 40% private); every other book's owner rotates over the other 199 users in creation
 * order, so any run of fewer than 199 consecutive books has distinct owners and the first pages join
 * the same number of users at every size (random owners would make that number vary from page to
 * page, whatever the catalogue's size).
 */
function seedCatalogue(size: number, users: User[], salt: number): Catalogue {
  const random = seeded(0x6b617462 + size);
  const step = Math.floor(spanMs / size);
  const memberAt = new Map<number, Visibility>([
    [size - 1, 'private'],
    [size - 2, 'public'],
  ]);
  for (let i = 0; i < memberBooks - 2; i++) memberAt.set(Math.floor((i * (size - 100)) / (memberBooks - 2)), i % 5 < 2 ? 'private' : 'public');
  const books: BookText[] = [];
  const files: FileRecord[] = [];
  let others = 0;
  for (let p = 0; p < size; p++) {
    const createdAt = new Date(end - (size - 1 - p) * step - Math.floor(random() * (step / 2))).toISOString();
    const owner = memberAt.has(p) ? users[0]! : users[1 + (others++ % (userCount - 1))]!;
    const visibility: Visibility = memberAt.get(p) ?? (random() < 0.6 ? 'public' : 'private');
    const status = weighted<OcrStatus>(random, [
      ['completed', 92],
      ['processing', 3],
      ['failed', 3],
      ['pending', 1.5],
      ['submission_failed', 0.5],
    ]);
    const language = weighted(random, [
      ['ar', 70],
      ['en', 20],
      ['ur', 10],
    ] as const);
    const pool = language === 'en' ? englishTitles : language === 'ur' ? urduTitles : random() < 0.85 ? arabicTitles : englishTitles;
    const title = pool[Math.floor(random() * pool.length)]!;
    const volume = Math.floor(random() * 12) + 1;
    const arabicScript = /\p{Script=Arabic}/u.test(title);
    const fileName = `${title}${arabicScript ? ` - ج${volume}` : ` vol. ${volume}`}${random() < 0.5 ? '.pdf' : ''}`;
    const tags: string[] = pickDistinct(random, zipf(tagPool), Math.floor(random() * 4));
    if (p % 1000 === 500) tags.push(rareTag);
    const categories: string[] = pickDistinct(random, zipf(categoryPool), 1 + Math.floor(random() * 2));
    const pageCount = 1 + Math.floor(799 * random() ** 1.5);
    const bookTextId = objectId(createdAt, 2 * p, salt);
    const fileId = objectId(createdAt, 2 * p + 1, salt);
    const updatedAt = new Date(Date.parse(createdAt) + 60_000 + pageCount * 1000).toISOString();
    books.push({
      bookTextId,
      jobId: uuid(random),
      fileId,
      userId: owner.userId,
      fileName,
      status,
      language,
      pageCount,
      extractedText: status === 'completed' ? previewText.repeat(2) : '',
      tags,
      categories,
      visibility,
      processingTime: status === 'completed' ? pageCount * 900 : null,
      error: status === 'failed' ? 'OCR worker failed' : null,
      createdAt,
      updatedAt,
      completedAt: status === 'completed' ? updatedAt : null,
      metadata: { source: 'bench' },
      pageErrors: {},
      ...(status === 'completed' ? { pagesProcessed: pageCount, lastPageUpdate: updatedAt } : {}),
    });
    if (withFiles) {
      files.push({
        fileId,
        userId: owner.userId,
        fileName,
        author: random() < 0.3 ? 'Unknown' : `مؤلف ${1 + Math.floor(random() * 500)}`,
        fileType: 'application/pdf',
        fileSize: pageCount * (40_000 + Math.floor(random() * 80_000)),
        tags,
        categories,
        visibility,
        storageKey: `ocr/${uuid(random)}-book.pdf`,
        createdAt,
        updatedAt: createdAt,
      });
    }
  }
  return { size, books, files };
}

// ---------------------------------------------------------------------------------------------
// Counting DynamoDB calls: an SDK middleware on the document client the stores use.

interface Meter {
  calls: Record<string, number>;
  /** ScannedCount of every Query (COUNT queries too). */
  scanned: number;
  /** Items GetItem returned. */
  got: number;
  /** Items BatchGetItem returned. */
  batchGot: number;
  /** The slowest single call, and which command it was. */
  slowest: { command: string; ms: number };
}

const newMeter = (): Meter => ({ calls: {}, scanned: 0, got: 0, batchGot: 0, slowest: { command: '', ms: 0 } });
const itemsRead = (m: Meter) => m.scanned + m.got + m.batchGot;
/** `total (Query scanned + GetItem + BatchGetItem)`. */
const itemsText = (m: Meter) => `${itemsRead(m)} (${m.scanned}+${m.got}+${m.batchGot})`;
const callCount = (m: Meter) => Object.values(m.calls).reduce((a, b) => a + b, 0);
const callsText = (m: Meter) => {
  const short: Record<string, string> = { Query: 'Q', GetItem: 'G', BatchGetItem: 'B' };
  return `${callCount(m)} (${Object.entries(m.calls)
    .sort(([a], [b]) => ['Query', 'GetItem', 'BatchGetItem'].indexOf(a) - ['Query', 'GetItem', 'BatchGetItem'].indexOf(b))
    .map(([name, n]) => `${n}${short[name] ?? ` ${name}`}`)
    .join(' ')})`;
};
const sameMeter = (a: Meter, b: Meter) => callsText(a) === callsText(b) && a.scanned === b.scanned && a.got === b.got && a.batchGot === b.batchGot;

/**
 * At the initialize step of a document-client command, `args.input` is the command's input as the
 * store wrote it and the output is already unmarshalled (lib-dynamodb marshalls and unmarshalls next
 * to the serializer and deserializer), so the counts read plain objects.
 */
function addMeter(client: DynamoDBDocumentClient, current: () => Meter | undefined): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const started = performance.now();
      const out = await next(args);
      const ms = performance.now() - started;
      const meter = current();
      if (meter) {
        const command = String(context.commandName ?? 'unknown').replace(/Command$/, '');
        meter.calls[command] = (meter.calls[command] ?? 0) + 1;
        if (ms > meter.slowest.ms) meter.slowest = { command, ms };
        const output = out.output as { ScannedCount?: number; Item?: unknown; Responses?: Record<string, unknown[]> };
        if (command === 'Query') meter.scanned += output.ScannedCount ?? 0;
        else if (command === 'GetItem') meter.got += output.Item ? 1 : 0;
        else if (command === 'BatchGetItem') meter.batchGot += Object.values(output.Responses ?? {}).reduce((n, items) => n + items.length, 0);
      }
      return out;
    },
    { step: 'initialize', name: 'benchCatalogueMeter' },
  );
}

// ---------------------------------------------------------------------------------------------
// The variants, and what each must answer (computed from the seeded data).

type CallerName = 'anonymous' | 'member' | 'editor';

interface Variant {
  query: Record<string, string>;
  callers: CallerName[];
}

const combination = { status: 'completed', language: 'ar', tags: 'hadith,seerah', categories: 'religion' };
const variants: Variant[] = [
  { query: {}, callers: ['anonymous', 'member', 'editor'] },
  { query: { offset: '500' }, callers: ['anonymous'] },
  { query: { offset: '5000' }, callers: ['anonymous'] },
  { query: { sort: 'date_asc' }, callers: ['anonymous', 'member'] },
  { query: { sort: 'name_asc' }, callers: ['anonymous', 'member'] },
  { query: { sort: 'pages_desc' }, callers: ['anonymous', 'member'] },
  { query: { status: 'completed' }, callers: ['anonymous'] },
  { query: { language: 'en' }, callers: ['anonymous', 'member'] },
  { query: { tags: commonTag }, callers: ['anonymous'] },
  { query: { tags: rareTag }, callers: ['anonymous'] },
  { query: { categories: 'history' }, callers: ['anonymous'] },
  { query: combination, callers: ['anonymous', 'member'] },
];
const variantName = (query: Record<string, string>) =>
  Object.keys(query).length ? Object.entries(query).map(([k, v]) => `${k}=${v}`).join('&') : 'newest first (no parameters)';

interface Oracle {
  /** Per book: its sort keys as stored (UTF-8 bytes, as DynamoDB compares them). */
  sortKeys: Map<string, { date: Buffer; name: Buffer; pages: Buffer }>;
}

function expected(
  cat: Catalogue,
  oracle: Oracle,
  member: User,
  caller: CallerName,
  query: Record<string, string>,
): { total: number; ids: string[] } {
  const sorts: Record<string, ['date' | 'name' | 'pages', boolean]> = {
    date_asc: ['date', false],
    date_desc: ['date', true],
    name_asc: ['name', false],
    name_desc: ['name', true],
    pages_asc: ['pages', false],
    pages_desc: ['pages', true],
  };
  const [order, descending] = sorts[query.sort ?? ''] ?? sorts.date_desc!;
  const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const tags = list(query.tags);
  const categories = list(query.categories);
  const filtered = Boolean(query.status || query.language || tags.length || categories.length);
  const passes = (b: BookText) =>
    (!query.status || b.status === query.status) &&
    (!query.language || b.language === query.language) &&
    (!tags.length || tags.some((t) => b.tags.includes(t))) &&
    (!categories.length || categories.some((c) => b.categories.includes(c)));
  const sign = descending ? -1 : 1;
  const key = (b: BookText) => oracle.sortKeys.get(b.bookTextId)![order];
  const inOrder = (books: BookText[], k: (b: BookText) => Buffer, s: number) => [...books].sort((a, b) => s * Buffer.compare(k(a), k(b)));
  // Each source is read no further than the listing window (paging.ts maxWindow); filtered totals count within it.
  const windowOf = (books: BookText[]) => inOrder(books, key, sign).slice(0, maxWindow);
  const ownNewest = (books: BookText[]) =>
    order === 'date' ? windowOf(books) : inOrder(books, (b) => oracle.sortKeys.get(b.bookTextId)!.date, -1).slice(0, maxWindow);
  const sources =
    caller === 'anonymous'
      ? [windowOf(cat.books.filter((b) => b.visibility === 'public'))]
      : caller === 'editor'
        ? [windowOf(cat.books.filter((b) => b.visibility === 'public')), windowOf(cat.books.filter((b) => b.visibility === 'private'))]
        : [windowOf(cat.books.filter((b) => b.visibility === 'public')), ownNewest(cat.books.filter((b) => b.userId === member.userId)).filter((b) => b.visibility === 'private')];
  const matches = inOrder(sources.flat().filter(passes), key, sign);
  const offset = Number(query.offset ?? 0);
  const limit = Number(query.limit ?? 20);
  const everyMatch = cat.books.filter(
    (b) => (caller === 'editor' || b.visibility === 'public' || (caller === 'member' && b.userId === member.userId)) && passes(b),
  ).length;
  return { total: filtered ? matches.length : everyMatch, ids: matches.slice(offset, offset + limit).map((b) => b.bookTextId) };
}

// ---------------------------------------------------------------------------------------------

export interface SizeReport {
  books: number;
  public: number;
  private: number;
  memberPrivate: number;
  memberPublic: number;
  itemsWritten: number;
  seedMs: number;
  itemsPerSecond: number;
  booksPerSecond: number;
}

export interface Measure {
  medianMs: number;
  minMs: number;
  maxMs: number;
  meter: Meter;
  /** The counts differed between runs (they should not). */
  countsVaried: boolean;
  total: number;
  returned: number;
  right: boolean;
}

export interface Row {
  variant: string;
  caller: CallerName;
  /** Keyed by catalogue size. */
  sizes: Record<number, Measure>;
  /** Budgeted: must cost the same at both sizes. */
  flat: boolean;
}

export interface CatalogueReport {
  sizes: SizeReport[];
  runs: number;
  withFiles: boolean;
  rows: Row[];
  checks: { name: string; expected: unknown; got: unknown; ok: boolean }[];
  /** Untimed answers checked against the seeded data (every sort, caller and filter), per size. */
  sweep: Record<number, { checked: number; wrong: number }>;
  problems: string[];
  setupMs: number;
  ok: boolean;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function catalogueBench(): Promise<CatalogueReport> {
  const setupStart = performance.now();
  const stack = await openBenchStack('catalogue');
  let client: DynamoDBDocumentClient | undefined;
  const log = (line: string) => process.stderr.write(`catalogue: ${line}\n`);
  try {
    const [
      { DynamoDBClient },
      { DynamoDBDocumentClient },
      { ensureTable },
      { keys },
      { entities },
      { dynamoCatalogueStore },
      { batchPut },
      { dynamoUserStore },
      { listCatalogue },
      { dynamoBookTextStore },
      { sqliteSearchEngine },
      { indexedBook },
    ] = await Promise.all([
        import('@aws-sdk/client-dynamodb'),
        import('@aws-sdk/lib-dynamodb'),
        import('../lib/adapters/dynamo/ensure-table.ts'),
        import('../lib/adapters/dynamo/keys.ts'),
        import('../lib/adapters/dynamo/entities.ts'),
        import('../lib/adapters/dynamo/catalogue.ts'),
        import('../lib/adapters/dynamo/books.ts'),
        import('../lib/adapters/dynamo/users.ts'),
        import('../lib/ocr/catalogue/listing.ts'),
        import('../lib/adapters/dynamo/book-texts.ts'),
        import('../lib/adapters/sqlite/search-engine.ts'),
        import('../lib/search/indexing.ts'),
      ]);
    // The search index's catalogue listing (filtered and deeper listings), one per size, in memory.
    const engines = new Map<number, Awaited<ReturnType<typeof sqliteSearchEngine>>>();
    // The stores' client, as lib/adapters/aws/clients.ts makes it (from the environment just set), but
    // our own, so that the meter goes away with it.
    const base = new DynamoDBClient({});
    client = DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } });
    let meter: Meter | undefined;
    addMeter(client, () => meter);

    const users = seedUsers();
    const member = users[0]!;
    const editor = users[1]!;
    const callers: Record<CallerName, Caller> = { anonymous: { kind: 'anonymous' }, member: { kind: 'user', user: member }, editor: { kind: 'user', user: editor } };
    const setupMs = performance.now() - setupStart;

    // Seeding: one table per size, each written directly as stored items.
    const sizes = [smallSize, largeSize];
    const tables = new Map<number, { db: { client: DynamoDBDocumentClient; tableName: string }; cat: Catalogue; oracle: Oracle }>();
    const sizeReports: SizeReport[] = [];
    for (const [i, size] of sizes.entries()) {
      const tableName = `${names.tableName}-catalogue-${size}`;
      await ensureTable(base, tableName);
      const db = { client, tableName };
      const cat = seedCatalogue(size, users, i + 1);
      const privateByOwner = new Map<string, number>();
      for (const b of cat.books) if (b.visibility === 'private') privateByOwner.set(b.userId, (privateByOwner.get(b.userId) ?? 0) + 1);
      const publicCount = cat.books.filter((b) => b.visibility === 'public').length;
      const items: Record<string, unknown>[] = [
        ...users.map((u) => entities.user.item(u)),
        ...cat.books.flatMap((b, n) => [entities.bookText.item(b), ...(withFiles ? [entities.file.item(cat.files[n]!)] : [])]),
      ];
      log(`seeding ${size} books (${items.length} items, files ${withFiles ? 'included' : 'left out'}) into ${tableName}`);
      const seedStart = performance.now();
      const chunk = 1000;
      let written = 0;
      let nextReport = 0.05;
      let nextChunk = 0;
      const lane = async () => {
        for (let c = nextChunk++; c * chunk < items.length; c = nextChunk++) {
          const part = items.slice(c * chunk, (c + 1) * chunk);
          await batchPut(db, part);
          written += part.length;
          if (written / items.length >= nextReport || written === items.length) {
            const s = (performance.now() - seedStart) / 1000;
            const rate = written / s;
            log(`  ${size}: ${written}/${items.length} items in ${s.toFixed(0)} s, ${rate.toFixed(0)} items/s, about ${((items.length - written) / rate).toFixed(0)} s left`);
            while (nextReport <= written / items.length) nextReport += 0.05;
          }
        }
      };
      await Promise.all(Array.from({ length: seedLanes }, lane));
      // The counters, exactly as seeded (create() keeps them with every BookText it writes).
      await batchPut(db, [
        { ...keys.catalogueCounts, public: publicCount, private: size - publicCount },
        ...[...privateByOwner].map(([userId, n]) => ({ ...keys.ownerCatalogueCounts(userId), private: n })),
      ]);
      const engine = await sqliteSearchEngine(':memory:');
      for (const b of cat.books) {
        const entry = indexedBook(b);
        if (entry) await engine.putBook(entry);
      }
      engines.set(size, engine);
      const seedMs = performance.now() - seedStart;
      const memberOwn = cat.books.filter((b) => b.userId === member.userId);
      sizeReports.push({
        books: size,
        public: publicCount,
        private: size - publicCount,
        memberPrivate: memberOwn.filter((b) => b.visibility === 'private').length,
        memberPublic: memberOwn.filter((b) => b.visibility === 'public').length,
        itemsWritten: items.length + 1 + privateByOwner.size,
        seedMs,
        itemsPerSecond: (items.length / seedMs) * 1000,
        booksPerSecond: (size / seedMs) * 1000,
      });
      log(`seeded ${size} books in ${(seedMs / 1000).toFixed(1)} s (${((items.length / seedMs) * 1000).toFixed(0)} items/s)`);
      const sortKeys = new Map(
        cat.books.map((b) => {
          const k = keys.catalogueSort(b);
          return [b.bookTextId, { date: Buffer.from(k.byDate), name: Buffer.from(k.byName), pages: Buffer.from(k.byPages) }];
        }),
      );
      tables.set(size, { db, cat, oracle: { sortKeys } });
    }

    // The variants, each against the small then the large catalogue.
    const rows: Row[] = [];
    const problems: string[] = [];
    for (const variant of variants) {
      for (const callerName of variant.callers) {
        const row: Row = { variant: variantName(variant.query), caller: callerName, sizes: {}, flat: Object.keys(variant.query).length === 0 };
        for (const size of sizes) {
          const { db, cat, oracle } = tables.get(size)!;
          const deps = { catalogue: dynamoCatalogueStore(db), listing: engines.get(size)!, bookTexts: dynamoBookTextStore(db), users: dynamoUserStore(db) };
          const times: number[] = [];
          const meters: Meter[] = [];
          let answer: Awaited<ReturnType<typeof listCatalogue>> | undefined;
          for (let run = 0; run <= runs; run++) {
            meter = newMeter();
            const t = performance.now();
            answer = await listCatalogue(deps, callers[callerName], listing(variant.query));
            const ms = performance.now() - t;
            if (run > 0) {
              times.push(ms);
              meters.push(meter);
            }
            meter = undefined;
          }
          const want = expected(cat, oracle, member, callerName, variant.query);
          const gotIds = answer!.books.map((b) => b.bookTextId);
          const right = answer!.total === want.total && gotIds.join() === want.ids.join();
          if (!right) {
            const firstDiff = want.ids.findIndex((id, k) => gotIds[k] !== id);
            problems.push(
              `${row.variant} (${callerName}, ${size} books): expected total ${want.total} and ${want.ids.length} books, got total ${answer!.total} and ${gotIds.length} books` +
                (firstDiff >= 0 ? `; first difference at position ${firstDiff}: expected ${want.ids[firstDiff]}, got ${gotIds[firstDiff] ?? 'nothing'}` : ''),
            );
          }
          row.sizes[size] = {
            medianMs: median(times),
            minMs: Math.min(...times),
            maxMs: Math.max(...times),
            meter: meters[0]!,
            countsVaried: meters.some((m) => !sameMeter(m, meters[0]!)),
            total: answer!.total,
            returned: gotIds.length,
            right,
          };
          log(`${row.variant} | ${callerName} | ${size}: ${median(times).toFixed(1)} ms, ${callsText(meters[0]!)} calls, ${itemsText(meters[0]!)} items read, slowest call ${meters[0]!.slowest.command} ${meters[0]!.slowest.ms.toFixed(0)} ms${right ? '' : ' WRONG'}`);
        }
        rows.push(row);
      }
    }

    // A correctness sweep, untimed: every sort for every caller at two offsets, and filters for every
    // caller, each answer checked against the seeded data (total and page ids).
    const sweepQueries: Record<string, string>[] = [
      ...['date_desc', 'date_asc', 'name_asc', 'name_desc', 'pages_asc', 'pages_desc'].flatMap((sort): Record<string, string>[] => [{ sort }, { sort, offset: '37', limit: '50' }]),
      { status: 'failed' },
      { language: 'ur', sort: 'name_desc' },
      { tags: 'quran,calligraphy', offset: '25' },
      { tags: rareTag, sort: 'pages_asc' },
      { categories: 'law,children', sort: 'date_asc' },
      combination,
      { status: 'bogus' },
      { sort: 'bogus', limit: '100', offset: '100' },
    ];
    const sweep: CatalogueReport['sweep'] = {};
    for (const size of sizes) {
      const { db, cat, oracle } = tables.get(size)!;
      const deps = { catalogue: dynamoCatalogueStore(db), listing: engines.get(size)!, bookTexts: dynamoBookTextStore(db), users: dynamoUserStore(db) };
      sweep[size] = { checked: 0, wrong: 0 };
      for (const query of sweepQueries) {
        for (const callerName of ['anonymous', 'member', 'editor'] as const) {
          const answer = await listCatalogue(deps, callers[callerName], listing(query));
          const want = expected(cat, oracle, member, callerName, query);
          const gotIds = answer.books.map((b) => b.bookTextId);
          sweep[size].checked++;
          if (answer.total !== want.total || gotIds.join() !== want.ids.join()) {
            sweep[size].wrong++;
            const firstDiff = want.ids.findIndex((id, k) => gotIds[k] !== id);
            problems.push(
              `sweep ${variantName(query)} (${callerName}, ${size} books): expected total ${want.total} and ${want.ids.length} books, got total ${answer.total} and ${gotIds.length} books` +
                (firstDiff >= 0 ? `; first difference at position ${firstDiff}: expected ${want.ids[firstDiff]}, got ${gotIds[firstDiff] ?? 'nothing'}` : ''),
            );
          }
        }
      }
      log(`sweep at ${size}: ${sweep[size].checked} answers checked, ${sweep[size].wrong} wrong`);
    }

    // The budget: the unfiltered newest-first first page costs the same at both sizes, for every caller.
    for (const row of rows.filter((r) => r.flat)) {
      const [small, large] = [row.sizes[smallSize]!, row.sizes[largeSize]!];
      if (!sameMeter(small.meter, large.meter)) {
        problems.push(
          `${row.variant} (${row.caller}): ${callsText(small.meter)} calls reading ${itemsRead(small.meter)} items at ${smallSize} books, ` +
            `${callsText(large.meter)} calls reading ${itemsRead(large.meter)} items at ${largeSize}`,
        );
      }
    }
    for (const row of rows) for (const size of sizes) if (row.sizes[size]!.countsVaried) problems.push(`${row.variant} (${row.caller}, ${size}): counts varied between runs`);

    // The named checks on the large catalogue (the oracle above checked every answer at both sizes).
    const large = tables.get(largeSize)!;
    const largeReport = sizeReports[1]!;
    const rowOf = (variant: string, caller: CallerName) => rows.find((r) => r.variant === variant && r.caller === caller)!.sizes[largeSize]!;
    const newest = variantName({});
    const newestPublic = large.cat.books
      .filter((b) => b.visibility === 'public')
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))
      .slice(0, 20)
      .map((b) => b.bookTextId);
    const largeDeps = { catalogue: dynamoCatalogueStore(large.db), listing: engines.get(largeSize)!, bookTexts: dynamoBookTextStore(large.db), users: dynamoUserStore(large.db) };
    const firstPage = (await listCatalogue(largeDeps, callers.anonymous, listing({}))).books.map((b) => b.bookTextId);
    // A filtered total counts the matches within the listing window: the newest maxWindow public books.
    const seededEn = large.cat.books
      .filter((b) => b.visibility === 'public')
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))
      .slice(0, maxWindow)
      .filter((b) => b.language === 'en').length;
    const checks = [
      { name: `anonymous total = public books seeded (${largeSize})`, expected: largeReport.public, got: rowOf(newest, 'anonymous').total },
      { name: `member total = public + the member's private books (${largeSize})`, expected: largeReport.public + largeReport.memberPrivate, got: rowOf(newest, 'member').total },
      { name: `editor total = every book seeded (${largeSize})`, expected: largeSize, got: rowOf(newest, 'editor').total },
      { name: `anonymous first page = the 20 newest public books seeded (${largeSize})`, expected: newestPublic.join(','), got: firstPage.join(',') },
      { name: `anonymous language=en total = en books among the newest ${maxWindow} public ones (${largeSize})`, expected: seededEn, got: rowOf('language=en', 'anonymous').total },
    ].map((c) => ({ ...c, ok: c.expected === c.got }));
    for (const c of checks) if (!c.ok) problems.push(`check failed: ${c.name}: expected ${c.expected}, got ${c.got}`);

    return { sizes: sizeReports, runs, withFiles, rows, checks, sweep, problems, setupMs, ok: problems.length === 0 };
  } finally {
    client?.destroy();
    await stack.close();
  }
}

export function printCatalogue(report: CatalogueReport): void {
  const [small, large] = report.sizes as [SizeReport, SizeReport];
  for (const s of report.sizes) {
    console.log(
      `${s.books} books seeded (${s.public} public, ${s.private} private; member owns ${s.memberPublic} public + ${s.memberPrivate} private): ` +
        `${s.itemsWritten} items in ${(s.seedMs / 1000).toFixed(1)} s, ${s.itemsPerSecond.toFixed(0)} items/s (${s.booksPerSecond.toFixed(0)} books/s${report.withFiles ? ' with their Files' : ', no Files'})`,
    );
  }
  console.log(`listCatalogue called directly (no HTTP, no token lookup), median of ${report.runs} runs after 1 warm-up; calls: Q Query, G GetItem, B BatchGetItem;`);
  console.log('items read: ScannedCount of every Query (COUNT queries too) + items returned by GetItem and BatchGetItem, shown as total (Query+GetItem+BatchGetItem)');
  const header = ['variant', 'caller', `${small.books}: ms`, 'calls', 'items read', `${large.books}: ms`, 'calls', 'items read', 'total (large)', 'right'];
  const lines = report.rows.map((row) => {
    const a = row.sizes[small.books]!;
    const b = row.sizes[large.books]!;
    return [
      row.variant,
      row.caller,
      a.medianMs.toFixed(1),
      callsText(a.meter),
      itemsText(a.meter),
      b.medianMs.toFixed(1),
      callsText(b.meter),
      itemsText(b.meter),
      String(b.total),
      a.right && b.right ? 'yes' : 'NO',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  console.log(format(header));
  console.log(`|${widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const line of lines) console.log(format(line));
  for (const [size, s] of Object.entries(report.sweep)) {
    console.log(`correctness sweep at ${size} books: ${s.checked} more answers (each of 3 callers: 6 sorts x 2 offsets, 6 filters, an unknown status and an unknown sort) checked against the seeded data, ${s.wrong} wrong`);
  }
  for (const c of report.checks) console.log(`${c.ok ? 'ok' : 'FAILED'}: ${c.name}${c.ok ? '' : ` (expected ${c.expected}, got ${c.got})`}`);
  console.log(
    'budget: the unfiltered newest-first first page makes the same calls and reads the same items at both sizes, for each caller; every answer right. ' +
      'No latency budget: DynamoDB Local is a stand-in.',
  );
  for (const problem of report.problems) console.log(`PROBLEM: ${problem}`);
  console.log(report.ok ? 'ok' : 'OVER BUDGET');
  console.log(JSON.stringify({ bench: 'catalogue', ...report }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const report = await catalogueBench();
  printCatalogue(report);
  if (!report.ok) process.exitCode = 1;
}
