import { seeded } from '../ocr-worker/fixtures/random.ts';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { names } from '../infra/local/state.ts';
import type { SqliteSearchEngine } from '../lib/adapters/sqlite/search-engine.ts';
import type { Caller } from '../lib/auth/caller.ts';
import type { User } from '../lib/auth/users.ts';
import type { BookText, FileRecord, OcrStatus, Visibility } from '../lib/ocr/book-text.ts';
import { catalogueSortOrders, tableWindow, type CatalogueListing } from '../lib/ocr/catalogue/listing.ts';
import { catalogueSortKeys } from '../lib/ocr/catalogue/sort-keys.ts';
import { maxOffset } from '../lib/paging.ts';
import type { BookListQuery, SearchEngine, SearchView } from '../lib/search/engine.ts';
import * as v from 'valibot';
import { ocrApiContracts } from '../functions/ocr-api/contract.ts';
import { openBenchStack } from './env.ts';
import { runIfMain } from './report.ts';

/** The catalogue's query as its contract reads it before the handler runs. */
const listing = (query: Record<string, string>): CatalogueListing => v.parse(ocrApiContracts['GET /ocr/books'].query, query);

/**
 * The catalogue listing (`GET /ocr/books`, issue 17): what a page costs as the catalogue grows.
 * Two catalogues are seeded in one DynamoDB Local, each in its own table built from schema.ts:
 * `BENCH_BOOKS_SMALL` (1,000) and `BENCH_BOOKS_LARGE` (100,000) books, written directly as stored
 * items (`entities.ts`, `batchPut`) with one File each, 200 users and the counter items set to what
 * was seeded; and each catalogue's search-index listing (the SQLite engine in memory, one
 * `putBook` per book of the indexer's own entry, `indexedBook`). Then every variant (caller x sort x
 * offset x filter) runs through the domain function behind the route, `listCatalogue`, `BENCH_RUNS`
 * times after one warm-up, against each catalogue in turn. An SDK middleware on the document client
 * counts the DynamoDB calls by command and the items read (ScannedCount of every Query, plus the
 * items GetItem and BatchGetItem return); a wrapper counts and times the listing calls
 * (`listBooks`, shown as `L`). Every answer is checked against the seeded data: the exact total and
 * the page's ids, for the caller's view (anonymous: public books; member: public + own; editor: all).
 *
 * Budget (issue 17): for every row, the calls and the items read at the large size are at most 1.5
 * times those at the small size, counting what finds the page and its total, not the page's own
 * records. A page of n books from o distinct owners is read with 3 BatchGetItems (its BookTexts, their
 * Files, their owners) returning 2n + o items (n + o without Files); an empty page reads none. Those
 * grow with the answer, not the catalogue, and the answer is bigger at the large size whenever the
 * small catalogue has fewer matches than the page asks for (an offset past its end, a tag on 1 book
 * at 1,000 and on 100 at 100,000). So the budgeted quantities are the calls less those 3 (when the
 * page is not empty), and the items read less those 2n + o records, both computed from the seeded
 * data of the books listed, not from what the code read: a page read twice, or a book read and then
 * dropped, counts against the budget. Raw numbers are printed beside them. Every answer must be right.
 * Latency is reported, not budgeted: DynamoDB Local is a stand-in, not DynamoDB.
 *
 * A last section times the SQLite listing alone on the large catalogue: every view x order x
 * direction of a range of filters, at offset 0 and at the deepest page (p50, p95, max).
 */

const smallSize = Number(process.env.BENCH_BOOKS_SMALL ?? 1000);
const largeSize = Number(process.env.BENCH_BOOKS_LARGE ?? 100_000);
const runs = Number(process.env.BENCH_RUNS ?? 5);
/** Books' Files too (the listing joins them for the page); 0 leaves them out (author, fileType, fileSize null). */
const withFiles = (process.env.BENCH_FILES ?? '1') !== '0';
/** batchPut calls in flight while seeding (each keeps 4 BatchWriteItems in flight). */
const seedLanes = Number(process.env.BENCH_SEED_LANES ?? 2);
/** The listing-latency section: each query's time is its fastest of this many runs (a shared machine's noise is not the engine's). */
const latencyRounds = Number(process.env.BENCH_LISTING_ROUNDS ?? 3);
/** The issue's budget: at most this many times the small catalogue's calls and items read. */
const budgetFactor = 1.5;

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
// Counting calls: an SDK middleware on the document client the stores use, and a wrapper on the
// search index's listing.

interface Meter {
  /** By command: DynamoDB's (Query, GetItem, BatchGetItem) and the search index's `listBooks`. */
  calls: Record<string, number>;
  /** ScannedCount of every Query. */
  scanned: number;
  /** Items GetItem returned. */
  got: number;
  /** Items BatchGetItem returned. */
  batchGot: number;
  /** Time spent in listBooks. */
  listingMs: number;
  /** The slowest single call, and which command it was. */
  slowest: { command: string; ms: number };
}

const newMeter = (): Meter => ({ calls: {}, scanned: 0, got: 0, batchGot: 0, listingMs: 0, slowest: { command: '', ms: 0 } });
/** DynamoDB items read (the listing's own reads are its engine's, timed, not counted). */
const itemsRead = (m: Meter) => m.scanned + m.got + m.batchGot;
/** `total (Query scanned + GetItem + BatchGetItem)`. */
const itemsText = (m: Meter) => `${itemsRead(m)} (${m.scanned}+${m.got}+${m.batchGot})`;
const callCount = (m: Meter) => Object.values(m.calls).reduce((a, b) => a + b, 0);
const commands: Record<string, string> = { Query: 'Q', GetItem: 'G', BatchGetItem: 'B', listBooks: 'L' };
const commandRank = (name: string) => (name in commands ? Object.keys(commands).indexOf(name) : Infinity);
const callsText = (m: Meter) =>
  `${callCount(m)} (${Object.entries(m.calls)
    .sort(([a], [b]) => commandRank(a) - commandRank(b))
    .map(([name, n]) => `${n}${commands[name] ?? ` ${name}`}`)
    .join(' ')})`;
const sameMeter = (a: Meter, b: Meter) => callsText(a) === callsText(b) && a.scanned === b.scanned && a.got === b.got && a.batchGot === b.batchGot;

/** Where the calls of the listing being measured are counted (none between measurements). */
interface Metering {
  current?: Meter;
}

/**
 * At the initialize step of a document-client command, `args.input` is the command's input as the
 * store wrote it and the output is already unmarshalled (lib-dynamodb marshalls and unmarshalls next
 * to the serializer and deserializer), so the counts read plain objects.
 */
function addMeter(client: DynamoDBDocumentClient, metering: Metering): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const started = performance.now();
      const out = await next(args);
      const ms = performance.now() - started;
      const meter = metering.current;
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

/** The search index's listing as listCatalogue sees it, each call counted (`listBooks`) and timed. */
function meteredListing(engine: Pick<SearchEngine, 'listBooks'>, metering: Metering): Pick<SearchEngine, 'listBooks'> {
  return {
    async listBooks(query) {
      const started = performance.now();
      const found = await engine.listBooks(query);
      const ms = performance.now() - started;
      const meter = metering.current;
      if (meter) {
        meter.calls.listBooks = (meter.calls.listBooks ?? 0) + 1;
        meter.listingMs += ms;
        if (ms > meter.slowest.ms) meter.slowest = { command: 'listBooks', ms };
      }
      return found;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The budget: what finds the page and its total, less what the page's own records cost.

/** What reading a page's own records costs: calls and items. */
interface PageReads {
  calls: number;
  records: number;
}

/**
 * The page's own reads, from the seeded data of the books a right answer lists: 3 BatchGetItems
 * (BookTexts, their Files, their owners; a page holds at most 100 books, one BatchGetItem's worth)
 * returning each book's BookText and File and each owner once; nothing for an empty page.
 */
function pageReads(ids: readonly string[], byId: ReadonlyMap<string, BookText>): PageReads {
  if (ids.length === 0) return { calls: 0, records: 0 };
  const owners = new Set(ids.map((id) => byId.get(id)!.userId)).size;
  return { calls: 3, records: ids.length + (withFiles ? ids.length : 0) + owners };
}

/** What grows with the catalogue, if anything does: the calls and items read beyond the page's own. */
const beyondPage = (m: Meter, page: PageReads) => ({ calls: callCount(m) - page.calls, items: itemsRead(m) - page.records });

const withinBudget = (small: number, large: number) => large <= budgetFactor * small;

// ---------------------------------------------------------------------------------------------
// The variants, and what each must answer (computed from the seeded data).

type CallerName = 'anonymous' | 'member' | 'editor';

interface Variant {
  query: Record<string, string>;
  callers: CallerName[];
  /** Not in docs/benchmarks.md's table of 2026-11-23 ("The catalogue"; measured before the search index's listing). */
  added?: boolean;
}

const combination = { status: 'completed', language: 'ar', tags: 'hadith,seerah', categories: 'religion' };
/** The variants measured before the search index's listing (docs/benchmarks.md, "The catalogue", 2026-11-23), in that order. */
const todays: Variant[] = [
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
/** What a reader browses besides: each source's edge, deep pages of every view, filters in every order. */
const added: Variant[] = [
  // The switch between the sources: offset + limit at tableWindow is the table's last page, one past it the index's first.
  { query: { offset: String(tableWindow - 20) }, callers: ['anonymous', 'member', 'editor'] },
  { query: { offset: String(tableWindow - 19) }, callers: ['anonymous', 'member', 'editor'] },
  { query: { limit: String(tableWindow) }, callers: ['editor'] },
  { query: { offset: '5000' }, callers: ['member', 'editor'] },
  { query: { offset: String(maxOffset) }, callers: ['editor'] },
  { query: { tags: commonTag, sort: 'name_asc' }, callers: ['anonymous', 'member'] },
  { query: { language: 'en', sort: 'pages_desc' }, callers: ['anonymous', 'member'] },
  { query: { categories: 'history', sort: 'date_asc' }, callers: ['editor'] },
  { query: { tags: commonTag, offset: '2000' }, callers: ['anonymous', 'member', 'editor'] },
  { query: combination, callers: ['editor'] },
];
for (const variant of added) variant.added = true;
const variants = [...todays, ...added];

const variantName = (query: Record<string, string>) =>
  Object.keys(query).length ? Object.entries(query).map(([k, v]) => `${k}=${v}`).join('&') : 'newest first (no parameters)';

type Order = 'date' | 'name' | 'pages';

/** The seeded catalogue in each order, ascending by sort key as UTF-8 bytes (DynamoDB's order, and the index's). */
interface Oracle {
  byId: Map<string, BookText>;
  ascending: Record<Order, BookText[]>;
}

function oracleOf(books: readonly BookText[]): Oracle {
  const sortKeys = books.map((b) => catalogueSortKeys(b));
  const inOrder = (field: 'byDate' | 'byName' | 'byPages') => {
    // Buffers made once, not per comparison: sorting 100,000 books compares about 1.7 million pairs.
    const bytes = sortKeys.map((k) => Buffer.from(k[field]));
    return [...books.keys()].sort((a, b) => Buffer.compare(bytes[a]!, bytes[b]!)).map((i) => books[i]!);
  };
  return { byId: new Map(books.map((b) => [b.bookTextId, b])), ascending: { date: inOrder('byDate'), name: inOrder('byName'), pages: inOrder('byPages') } };
}

const sortOf: Record<string, { order: Order; descending: boolean }> = catalogueSortOrders;

/**
 * What `GET /ocr/books` must answer, from the seeded data alone: every book the caller may see
 * (anonymous: public; member: public and their own; editor: all) that passes the filter (each
 * given field equal; any of the tags, any of the categories), in order; the total counts them all.
 */
function expected(oracle: Oracle, member: User, caller: CallerName, q: CatalogueListing): { total: number; ids: string[] } {
  const { order, descending } = sortOf[q.sort ?? 'date_desc']!;
  const visible = (b: BookText) => caller === 'editor' || b.visibility === 'public' || (caller === 'member' && b.userId === member.userId);
  const passes = (b: BookText) =>
    (q.status === undefined || b.status === q.status) &&
    (q.language === undefined || b.language === q.language) &&
    (q.tags.length === 0 || q.tags.some((t) => b.tags.includes(t))) &&
    (q.categories.length === 0 || q.categories.some((c) => b.categories.includes(c)));
  const matches = oracle.ascending[order].filter((b) => visible(b) && passes(b));
  if (descending) matches.reverse();
  return { total: matches.length, ids: matches.slice(q.offset, q.offset + q.limit).map((b) => b.bookTextId) };
}

/** The difference between an answer and the expected one, or undefined when it is right. */
function wrongness(want: { total: number; ids: string[] }, got: { total: number; ids: string[] }): string | undefined {
  if (got.total === want.total && got.ids.join() === want.ids.join()) return undefined;
  const firstDiff = want.ids.findIndex((id, k) => got.ids[k] !== id);
  const at = firstDiff >= 0 ? firstDiff : want.ids.length < got.ids.length ? want.ids.length : -1;
  return (
    `expected total ${want.total} and ${want.ids.length} books, got total ${got.total} and ${got.ids.length} books` +
    (at >= 0 ? `; first difference at position ${at}: expected ${want.ids[at] ?? 'nothing'}, got ${got.ids[at] ?? 'nothing'}` : '')
  );
}

// ---------------------------------------------------------------------------------------------
// The SQLite listing's own latency on the large catalogue (no DynamoDB): filters x views x orders.

const latencyFilters: [string, Partial<BookListQuery['filter']>][] = [
  ['no filter', {}],
  ['status completed', { status: 'completed' }],
  ['status failed', { status: 'failed' }],
  ['status submission_failed', { status: 'submission_failed' }],
  ['language ar', { language: 'ar' }],
  ['language ur', { language: 'ur' }],
  ['status + language', { status: 'completed', language: 'en' }],
  [`tag ${commonTag}`, { tags: [commonTag] }],
  [`tag ${rareTag}`, { tags: [rareTag] }],
  ['3 tags (any)', { tags: tagPool.slice(0, 3) }],
  ['12 tags (any)', { tags: tagPool.slice(0, 12) }],
  // Past the engine's 32 merged lists (lib/adapters/sqlite/search-engine.ts maxMergedLists): one sorted IN list.
  [`${tagPool.length + 3} tags (any; 2 on no book)`, { tags: [...tagPool, rareTag, 'no-such-tag-1', 'no-such-tag-2'] }],
  ['category history', { categories: ['history'] }],
  ['2 categories (any)', { categories: ['religion', 'law'] }],
  [`tag ${commonTag} + category religion`, { tags: [commonTag], categories: ['religion'] }],
  ['3 tags + 2 categories', { tags: tagPool.slice(0, 3), categories: ['religion', 'law'] }],
  ['status + language + 2 tags + category', { status: 'completed', language: 'ar', tags: ['hadith', 'seerah'], categories: ['religion'] }],
  [`tag ${rareTag} + status failed`, { tags: [rareTag], status: 'failed' }],
];
const latencyPagings = [
  { name: 'offset 0', limit: 20, offset: 0 },
  { name: `offset ${maxOffset}`, limit: 100, offset: maxOffset },
];

interface Spread {
  p50: number;
  p95: number;
  max: number;
}

const spread = (times: number[]): Spread => {
  const s = [...times].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!;
  return { p50: at(50), p95: at(95), max: s.at(-1)! };
};

export interface ListingLatency {
  books: number;
  rounds: number;
  views: string[];
  filters: ({ name: string; matches: number; worstOf: string } & Spread)[];
  pagings: ({ name: string } & Spread)[];
  all: { queries: number } & Spread;
}

/** The fastest of `latencyRounds` runs of one query, in ms. */
async function fastest(engine: Pick<SearchEngine, 'listBooks'>, query: BookListQuery): Promise<number> {
  let best = Infinity;
  for (let round = 0; round < latencyRounds; round++) {
    const started = performance.now();
    await engine.listBooks(query);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** Every filter x view x order x direction x paging, each query's fastest run. */
async function listingLatency(engine: Pick<SearchEngine, 'listBooks'>, books: number, views: [string, SearchView][]): Promise<ListingLatency> {
  const all: number[] = [];
  const byPaging = new Map<string, number[]>(latencyPagings.map((p) => [p.name, []]));
  const filters: ListingLatency['filters'] = [];
  for (const [name, partial] of latencyFilters) {
    const filter = { tags: [], categories: [], ...partial };
    const times: number[] = [];
    let worst = { ms: 0, of: '' };
    for (const paging of latencyPagings) {
      for (const [who, view] of views) {
        for (const order of ['date', 'name', 'pages'] as const) {
          for (const descending of [false, true]) {
            const ms = await fastest(engine, { view, order, descending, limit: paging.limit, offset: paging.offset, filter });
            times.push(ms);
            byPaging.get(paging.name)!.push(ms);
            if (ms > worst.ms) worst = { ms, of: `${who}, ${order} ${descending ? 'desc' : 'asc'}, ${paging.name}` };
          }
        }
      }
    }
    all.push(...times);
    const { total: matches } = await engine.listBooks({ view: { kind: 'all' }, order: 'date', descending: false, limit: 1, offset: 0, filter });
    filters.push({ name, matches, worstOf: worst.of, ...spread(times) });
  }
  return {
    books,
    rounds: latencyRounds,
    views: views.map(([who]) => who),
    filters,
    pagings: [...byPaging].map(([name, times]) => ({ name, ...spread(times) })),
    all: { queries: all.length, ...spread(all) },
  };
}

// ---------------------------------------------------------------------------------------------

export interface SizeReport {
  books: number;
  public: number;
  private: number;
  memberPrivate: number;
  memberPublic: number;
  itemsWritten: number;
  /** Both stores seeded side by side: the table's items and the index's entries. */
  seedMs: number;
  itemsPerSecond: number;
  booksPerSecond: number;
  /** Entries put in the search index's listing (every book seeded: the check below). */
  listed: number;
  /** The time spent in putBook (synchronous SQLite work, run between the table's writes). */
  indexMs: number;
}

export interface Measure {
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Median time spent in listBooks. */
  listingMs: number;
  meter: Meter;
  /** The counts differed between runs (they should not). */
  countsVaried: boolean;
  total: number;
  returned: number;
  right: boolean;
  /** The right page's own reads (budget's allowance). */
  page: PageReads;
  /** Calls and items read beyond the page's own: the budgeted quantities. */
  beyond: { calls: number; items: number };
}

export interface Row {
  variant: string;
  caller: CallerName;
  /** Not in docs/benchmarks.md's table of 2026-11-23 ("The catalogue"). */
  added: boolean;
  /** Keyed by catalogue size. */
  sizes: Record<number, Measure>;
  /** Beyond-the-page calls and items at the large size within budgetFactor times the small size's. */
  withinBudget: boolean;
}

export interface CatalogueReport {
  sizes: SizeReport[];
  runs: number;
  withFiles: boolean;
  budgetFactor: number;
  rows: Row[];
  checks: { name: string; expected: unknown; got: unknown; ok: boolean }[];
  /** Untimed answers checked against the seeded data (every sort, caller and filter), per size. */
  sweep: Record<number, { checked: number; wrong: number }>;
  latency: ListingLatency;
  problems: string[];
  setupMs: number;
  ok: boolean;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The stores and the domain, imported once the bench's environment is set (modules read it at load). */
async function loadModules() {
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
  return {
    DynamoDBClient,
    DynamoDBDocumentClient,
    ensureTable,
    keys,
    entities,
    dynamoCatalogueStore,
    batchPut,
    dynamoUserStore,
    listCatalogue,
    dynamoBookTextStore,
    sqliteSearchEngine,
    indexedBook,
  };
}
type Modules = Awaited<ReturnType<typeof loadModules>>;
type Db = { client: DynamoDBDocumentClient; tableName: string };
type Log = (line: string) => void;

/** Writes items in `seedLanes` lanes of batchPut (1,000 items a call), logging progress every 5%. */
async function writeItems(m: Modules, db: Db, items: Record<string, unknown>[], label: string, log: Log): Promise<void> {
  const started = performance.now();
  const chunk = 1000;
  let written = 0;
  let nextReport = 0.05;
  let nextChunk = 0;
  const lane = async () => {
    for (let c = nextChunk++; c * chunk < items.length; c = nextChunk++) {
      const part = items.slice(c * chunk, (c + 1) * chunk);
      await m.batchPut(db, part);
      written += part.length;
      if (written / items.length >= nextReport || written === items.length) {
        const s = (performance.now() - started) / 1000;
        const rate = written / s;
        log(`  ${label}: ${written}/${items.length} items in ${s.toFixed(0)} s, ${rate.toFixed(0)} items/s, about ${((items.length - written) / rate).toFixed(0)} s left`);
        while (nextReport <= written / items.length) nextReport += 0.05;
      }
    }
  };
  await Promise.all(Array.from({ length: seedLanes }, lane));
}

/** Books put into the index between two turns of the event loop (0.1 to 0.2 s of SQLite work at 100,000 books). */
const indexSlice = 200;

/**
 * Puts every book's listing entry, as the indexer builds it (`indexedBook`). The engine writes one
 * transaction per putBook and has no batch put (about 0.2 ms each at 20,000 books, 0.7 to 1 ms at 100,000,
 * synchronous), so the entries go in slices with the event loop let through between them: seeded
 * beside the table, this work fills the time the process otherwise waits on DynamoDB Local (another
 * process). Returns how many books were listed and the time spent in putBook.
 */
async function seedIndex(m: Modules, engine: SqliteSearchEngine, books: readonly BookText[]): Promise<{ listed: number; ms: number }> {
  let listed = 0;
  let ms = 0;
  for (let start = 0; start < books.length; start += indexSlice) {
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    for (const book of books.slice(start, start + indexSlice)) {
      const entry = m.indexedBook(book);
      if (!entry) continue;
      await engine.putBook(entry);
      listed++;
    }
    ms += performance.now() - started;
  }
  return { listed, ms };
}

interface Seeded {
  db: Db;
  cat: Catalogue;
  oracle: Oracle;
  engine: SqliteSearchEngine;
  report: SizeReport;
}

/**
 * One catalogue: its table (users, BookTexts, Files, then the counters as seeded, as create() keeps
 * them) and its search-index listing, written side by side. `opened` receives the engine at once, so
 * that it is closed even if seeding fails.
 */
async function seedSize(m: Modules, client: DynamoDBDocumentClient, size: number, salt: number, users: User[], opened: (engine: SqliteSearchEngine) => void, log: Log): Promise<Seeded> {
  const tableName = `${names.tableName}-catalogue-${size}`;
  await m.ensureTable(client, tableName);
  const db = { client, tableName };
  const cat = seedCatalogue(size, users, salt);
  const privateByOwner = new Map<string, number>();
  for (const b of cat.books) if (b.visibility === 'private') privateByOwner.set(b.userId, (privateByOwner.get(b.userId) ?? 0) + 1);
  const publicCount = cat.books.filter((b) => b.visibility === 'public').length;
  const items: Record<string, unknown>[] = [
    ...users.map((u) => m.entities.user.item(u)),
    ...cat.books.flatMap((b, n) => [m.entities.bookText.item(b), ...(withFiles ? [m.entities.file.item(cat.files[n]!)] : [])]),
  ];
  const engine = m.sqliteSearchEngine(':memory:');
  opened(engine);
  log(`seeding ${size} books (${items.length} items, files ${withFiles ? 'included' : 'left out'}) into ${tableName}, and the search index's listing (in memory)`);
  const started = performance.now();
  const [, index] = await Promise.all([writeItems(m, db, items, String(size), log), seedIndex(m, engine, cat.books)]);
  await m.batchPut(db, [
    { ...m.keys.catalogueCounts, public: publicCount, private: size - publicCount },
    ...[...privateByOwner].map(([userId, n]) => ({ ...m.keys.ownerCatalogueCounts(userId), private: n })),
  ]);
  const seedMs = performance.now() - started;
  log(`seeded ${size} books in ${(seedMs / 1000).toFixed(1)} s (${((items.length / seedMs) * 1000).toFixed(0)} items/s; ${(index.ms / 1000).toFixed(1)} s of it in putBook)`);
  const memberOwn = cat.books.filter((b) => b.userId === users[0]!.userId);
  const report: SizeReport = {
    books: size,
    public: publicCount,
    private: size - publicCount,
    memberPrivate: memberOwn.filter((b) => b.visibility === 'private').length,
    memberPublic: memberOwn.filter((b) => b.visibility === 'public').length,
    itemsWritten: items.length + 1 + privateByOwner.size,
    seedMs,
    itemsPerSecond: (items.length / seedMs) * 1000,
    booksPerSecond: (size / seedMs) * 1000,
    listed: index.listed,
    indexMs: index.ms,
  };
  return { db, cat, oracle: oracleOf(cat.books), engine, report };
}

interface Bench {
  m: Modules;
  metering: Metering;
  member: User;
  callers: Record<CallerName, Caller>;
}

/** listCatalogue's dependencies on one catalogue, the listing metered. */
const depsOf = (b: Bench, s: Seeded) => ({
  catalogue: b.m.dynamoCatalogueStore(s.db),
  listing: meteredListing(s.engine, b.metering),
  bookTexts: b.m.dynamoBookTextStore(s.db),
  users: b.m.dynamoUserStore(s.db),
});

/** One variant for one caller on one catalogue: `runs` metered runs after a warm-up, the answer checked. */
async function measure(b: Bench, s: Seeded, caller: CallerName, query: Record<string, string>): Promise<Measure & { problem?: string }> {
  const deps = depsOf(b, s);
  const parsed = listing(query);
  const times: number[] = [];
  const meters: Meter[] = [];
  let answer: Awaited<ReturnType<Modules['listCatalogue']>> | undefined;
  for (let run = 0; run <= runs; run++) {
    const meter = newMeter();
    b.metering.current = meter;
    const started = performance.now();
    try {
      answer = await b.m.listCatalogue(deps, b.callers[caller], parsed);
    } finally {
      b.metering.current = undefined;
    }
    if (run > 0) {
      times.push(performance.now() - started);
      meters.push(meter);
    }
  }
  const want = expected(s.oracle, b.member, caller, parsed);
  const got = { total: answer!.total, ids: answer!.books.map((book) => book.bookTextId) };
  const problem = wrongness(want, got);
  const page = pageReads(want.ids, s.oracle.byId);
  return {
    medianMs: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    listingMs: median(meters.map((meter) => meter.listingMs)),
    meter: meters[0]!,
    countsVaried: meters.some((meter) => !sameMeter(meter, meters[0]!)),
    total: got.total,
    returned: got.ids.length,
    right: problem === undefined,
    page,
    beyond: beyondPage(meters[0]!, page),
    problem,
  };
}

/** The sweep's queries: every sort at three depths, filters in several orders and depths, unknown values. */
const sweepQueries: Record<string, string>[] = [
  ...Object.keys(sortOf).flatMap((sort): Record<string, string>[] => [{ sort }, { sort, offset: '37', limit: '50' }, { sort, offset: '1234', limit: '7' }]),
  { status: 'failed' },
  { language: 'ur', sort: 'name_desc' },
  { tags: 'quran,calligraphy', offset: '25' },
  { tags: rareTag, sort: 'pages_asc' },
  { categories: 'law,children', sort: 'date_asc' },
  { tags: commonTag, categories: 'history,law', sort: 'pages_desc', offset: '150', limit: '100' },
  combination,
  { status: 'bogus' },
  { sort: 'bogus', limit: '100', offset: '100' },
];

/** Every sweep query for every caller, untimed, each answer checked. */
async function sweep(b: Bench, s: Seeded, problems: string[]): Promise<{ checked: number; wrong: number }> {
  const deps = depsOf(b, s);
  const result = { checked: 0, wrong: 0 };
  for (const query of sweepQueries) {
    for (const caller of ['anonymous', 'member', 'editor'] as const) {
      const parsed = listing(query);
      const answer = await b.m.listCatalogue(deps, b.callers[caller], parsed);
      const problem = wrongness(expected(s.oracle, b.member, caller, parsed), { total: answer.total, ids: answer.books.map((book) => book.bookTextId) });
      result.checked++;
      if (problem) {
        result.wrong++;
        problems.push(`sweep ${variantName(query)} (${caller}, ${s.cat.size} books): ${problem}`);
      }
    }
  }
  return result;
}

/** The named checks on the large catalogue, beside the oracle's (which checked every answer at both sizes). */
async function namedChecks(b: Bench, large: Seeded, rows: Row[]): Promise<CatalogueReport['checks']> {
  const size = large.cat.size;
  const r = large.report;
  const rowOf = (variant: string, caller: CallerName) => rows.find((row) => row.variant === variant && row.caller === caller)!.sizes[size]!;
  const newest = variantName({});
  const newestPublic = large.cat.books
    .filter((book) => book.visibility === 'public')
    .sort((x, y) => (x.createdAt < y.createdAt ? 1 : -1))
    .slice(0, 20)
    .map((book) => book.bookTextId);
  const firstPage = (await b.m.listCatalogue(depsOf(b, large), b.callers.anonymous, listing({}))).books.map((book) => book.bookTextId);
  const publicEn = large.cat.books.filter((book) => book.visibility === 'public' && book.language === 'en').length;
  return [
    { name: `every seeded book is in the search index's listing (${size})`, expected: size, got: r.listed },
    { name: `anonymous total = public books seeded (${size})`, expected: r.public, got: rowOf(newest, 'anonymous').total },
    { name: `member total = public + the member's private books (${size})`, expected: r.public + r.memberPrivate, got: rowOf(newest, 'member').total },
    { name: `editor total = every book seeded (${size})`, expected: size, got: rowOf(newest, 'editor').total },
    { name: `anonymous first page = the 20 newest public books seeded (${size})`, expected: newestPublic.join(','), got: firstPage.join(',') },
    { name: `anonymous language=en total = every public en book, exactly (${size})`, expected: publicEn, got: rowOf('language=en', 'anonymous').total },
  ].map((c) => ({ ...c, ok: c.expected === c.got }));
}

export async function catalogueBench(): Promise<CatalogueReport> {
  const setupStart = performance.now();
  const stack = await openBenchStack('catalogue');
  let client: DynamoDBDocumentClient | undefined;
  const engines: SqliteSearchEngine[] = [];
  const log: Log = (line) => process.stderr.write(`catalogue: ${line}\n`);
  try {
    const m = await loadModules();
    // The stores' client, as lib/adapters/aws/clients.ts makes it (from the environment just set), but
    // our own, so that the meter goes away with it.
    const base = new m.DynamoDBClient({});
    client = m.DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } });
    const metering: Metering = {};
    addMeter(client, metering);

    const users = seedUsers();
    const member = users[0]!;
    const editor = users[1]!;
    const bench: Bench = { m, metering, member, callers: { anonymous: { kind: 'anonymous' }, member: { kind: 'user', user: member }, editor: { kind: 'user', user: editor } } };
    const setupMs = performance.now() - setupStart;

    const sizes = [smallSize, largeSize];
    const seeded = new Map<number, Seeded>();
    for (const [i, size] of sizes.entries()) seeded.set(size, await seedSize(m, client, size, i + 1, users, (engine) => engines.push(engine), log));

    // The variants, each against the small then the large catalogue.
    const rows: Row[] = [];
    const problems: string[] = [];
    for (const variant of variants) {
      for (const caller of variant.callers) {
        const row: Row = { variant: variantName(variant.query), caller, added: variant.added === true, sizes: {}, withinBudget: true };
        for (const size of sizes) {
          const { problem, ...measured } = await measure(bench, seeded.get(size)!, caller, variant.query);
          row.sizes[size] = measured;
          if (problem) problems.push(`${row.variant} (${caller}, ${size} books): ${problem}`);
          if (measured.countsVaried) problems.push(`${row.variant} (${caller}, ${size} books): counts varied between runs`);
          if (measured.beyond.calls < 0 || measured.beyond.items < 0) {
            problems.push(`${row.variant} (${caller}, ${size} books): read less than the page's own records (${callsText(measured.meter)}, ${itemsRead(measured.meter)} items): the bench's allowance is wrong`);
          }
          const meter = measured.meter;
          log(
            `${row.variant} | ${caller} | ${size}: ${measured.medianMs.toFixed(1)} ms (listing ${measured.listingMs.toFixed(1)} ms), ${callsText(meter)} calls, ${itemsText(meter)} items read, ` +
              `beyond the page ${measured.beyond.calls} calls ${measured.beyond.items} items, slowest call ${meter.slowest.command} ${meter.slowest.ms.toFixed(0)} ms${measured.right ? '' : ' WRONG'}`,
          );
        }
        const [small, large] = [row.sizes[smallSize]!.beyond, row.sizes[largeSize]!.beyond];
        row.withinBudget = withinBudget(small.calls, large.calls) && withinBudget(small.items, large.items);
        if (!row.withinBudget) {
          problems.push(
            `over budget: ${row.variant} (${caller}): beyond the page, ${small.calls} calls and ${small.items} items read at ${smallSize} books, ` +
              `${large.calls} calls and ${large.items} items at ${largeSize} (at most ${budgetFactor}x)`,
          );
        }
        rows.push(row);
      }
    }

    const sweeps: CatalogueReport['sweep'] = {};
    for (const size of sizes) {
      sweeps[size] = await sweep(bench, seeded.get(size)!, problems);
      log(`sweep at ${size}: ${sweeps[size].checked} answers checked, ${sweeps[size].wrong} wrong`);
    }

    const large = seeded.get(largeSize)!;
    const checks = await namedChecks(bench, large, rows);
    for (const c of checks) if (!c.ok) problems.push(`check failed: ${c.name}: expected ${c.expected}, got ${c.got}`);

    // A member owning few books (the bench's member: 50 at every size) and one owning many (every other
    // owner rotates over the 199 others: about 500 at 100,000 books).
    const reader = users[2]!;
    const readerOwns = large.cat.books.filter((book) => book.userId === reader.userId).length;
    log(`timing the SQLite listing alone at ${largeSize} books`);
    const latency = await listingLatency(large.engine, largeSize, [
      ['anonymous', { kind: 'public' }],
      [`member (${large.report.memberPublic + large.report.memberPrivate} own)`, { kind: 'publicAndOwn', ownerId: member.userId }],
      [`member (${readerOwns} own)`, { kind: 'publicAndOwn', ownerId: reader.userId }],
      ['editor', { kind: 'all' }],
    ]);

    return {
      sizes: sizes.map((size) => seeded.get(size)!.report),
      runs,
      withFiles,
      budgetFactor,
      rows,
      checks,
      sweep: sweeps,
      latency,
      problems,
      setupMs,
      ok: problems.length === 0,
    };
  } finally {
    for (const engine of engines) engine.close();
    client?.destroy();
    await stack.close();
  }
}

function printTable(header: string[], lines: string[][], leftColumns: number): void {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => `| ${cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  console.log(format(header));
  console.log(`|${widths.map((w, i) => (i < leftColumns ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const line of lines) console.log(format(line));
}

function printLatency(l: ListingLatency): void {
  const ms = (s: Spread) => `${s.p50.toFixed(2)} / ${s.p95.toFixed(2)} / ${s.max.toFixed(2)}`;
  console.log(
    `\nthe SQLite listing alone at ${l.books} books (in memory, listBooks called directly): each filter for ${l.views.join(', ')}; ` +
      `3 orders x 2 directions; at ${latencyPagings.map((p) => `${p.name} (limit ${p.limit})`).join(' and ')}; each query the fastest of ${l.rounds} runs`,
  );
  printTable(
    ['filter', 'matches', 'p50 / p95 / max ms', 'slowest'],
    l.filters.map((f) => [f.name, `${f.matches} (${((f.matches / l.books) * 100).toFixed(1)}%)`, ms(f), f.worstOf]),
    1,
  );
  for (const p of l.pagings) console.log(`${p.name}: p50 / p95 / max ${ms(p)} ms`);
  console.log(`all ${l.all.queries} queries: p50 ${l.all.p50.toFixed(2)} ms, p95 ${l.all.p95.toFixed(2)} ms, max ${l.all.max.toFixed(2)} ms`);
}

export function printCatalogue(report: CatalogueReport): void {
  const [small, large] = report.sizes as [SizeReport, SizeReport];
  for (const s of report.sizes) {
    console.log(
      `${s.books} books seeded (${s.public} public, ${s.private} private; member owns ${s.memberPublic} public + ${s.memberPrivate} private): ` +
        `${s.itemsWritten} items in ${(s.seedMs / 1000).toFixed(1)} s, ${s.itemsPerSecond.toFixed(0)} items/s (${s.booksPerSecond.toFixed(0)} books/s${report.withFiles ? ' with their Files' : ', no Files'}); ` +
        `${s.listed} listing entries put beside them, ${(s.indexMs / 1000).toFixed(1)} s in putBook (${((s.indexMs / Math.max(1, s.listed)) * 1000).toFixed(0)} µs each)`,
    );
  }
  console.log(`listCatalogue called directly (no HTTP, no token lookup), median of ${report.runs} runs after 1 warm-up; ms (the listing call's ms);`);
  console.log('calls: Q Query, G GetItem, B BatchGetItem, L the search index\'s listBooks; items read: DynamoDB\'s, as total (Query ScannedCount + GetItem + BatchGetItem);');
  console.log(
    `beyond the page: calls and items read less the page's own records (3 BatchGetItems returning each listed book's BookText${report.withFiles ? ' and File' : ''} and each owner once; none for an empty page), small -> large`,
  );
  const header = ['variant', 'caller', `${small.books}: ms`, 'calls', 'items read', `${large.books}: ms`, 'calls', 'items read', 'total', 'beyond: calls', 'items', 'budget', 'right'];
  const lines = report.rows.map((row) => {
    const a = row.sizes[small.books]!;
    const b = row.sizes[large.books]!;
    return [
      `${row.variant}${row.added ? ' (new)' : ''}`,
      row.caller,
      `${a.medianMs.toFixed(1)} (${a.listingMs.toFixed(1)})`,
      callsText(a.meter),
      itemsText(a.meter),
      `${b.medianMs.toFixed(1)} (${b.listingMs.toFixed(1)})`,
      callsText(b.meter),
      itemsText(b.meter),
      `${a.total} / ${b.total}`,
      `${a.beyond.calls} -> ${b.beyond.calls}`,
      `${a.beyond.items} -> ${b.beyond.items}`,
      row.withinBudget ? 'ok' : 'OVER',
      a.right && b.right ? 'yes' : 'NO',
    ];
  });
  printTable(header, lines, 2);
  for (const [size, s] of Object.entries(report.sweep)) {
    console.log(`correctness sweep at ${size} books: ${s.checked} more answers (each of 3 callers: 6 sorts x 3 depths, 7 filters, an unknown status and an unknown sort) checked against the seeded data, ${s.wrong} wrong`);
  }
  for (const c of report.checks) console.log(`${c.ok ? 'ok' : 'FAILED'}: ${c.name}${c.ok ? '' : ` (expected ${c.expected}, got ${c.got})`}`);
  console.log(
    `budget: every row's calls and items read beyond the page's own records at ${large.books} books at most ${report.budgetFactor}x those at ${small.books}; every answer right (exact total and page). ` +
      'No latency budget: DynamoDB Local is a stand-in.',
  );
  printLatency(report.latency);
  for (const problem of report.problems) console.log(`PROBLEM: ${problem}`);
  console.log(report.ok ? 'ok' : 'OVER BUDGET');
  console.log(JSON.stringify({ bench: 'catalogue', ...report }));
}

await runIfMain(import.meta.url, catalogueBench, printCatalogue);
