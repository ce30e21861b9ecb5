import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keys } from '../lib/adapters/dynamo/keys.ts';
import { sqliteSearchEngine } from '../lib/adapters/sqlite/search-engine.ts';
import type { BookListQuery, IndexedBook, SearchView } from '../lib/search/engine.ts';

/**
 * `npx tsx bench/catalogue-sqlite-probe.ts [books...]` (default 100000): the SQLite engine's
 * catalogue listing (GET /ocr/books filtered, issue 17) on made-up books in a database file, as the
 * local runtime keeps it: build time (one putBook per book), file size, and the time of every
 * filter, view and order, at offset 0 (limit 20) and at the deepest page (offset 10,000, limit
 * 100). A probe, not a budgeted bench: it prints numbers. Each query's time is its fastest of
 * `rounds` runs (a shared 2-core machine's noise is not the engine's cost). With PROBE_DB=<file>, the
 * database is kept there (built if missing, else reused as it is: same book count and seed only).
 *
 * The books: 70% public; 2,000 owners, skewed (the busiest owns about 3%); statuses 80% completed,
 * 8% processing, 5% pending, 5% failed, 2% submission_failed; languages 60% ar, 20% en, 8% fa, 5%
 * ur, and 20 rare ones (0.35% each); 0 to 4 tags of 2,000, skewed (tag0 on about 6% of books, the
 * rarest on about 30); 1 or 2 categories of 40, skewed (cat0 on about 26%).
 */

const rounds = Number(process.env.PROBE_ROUNDS ?? 3);

function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
}

/** A skewed pick of 0..n-1: rank r about as likely as n / r. */
const skewed = (random: () => number, n: number) => Math.min(n - 1, Math.floor(random() ** 2.2 * n));
const weighted = <T>(random: () => number, choices: [T, number][]): T => {
  let x = random();
  for (const [value, weight] of choices) if ((x -= weight) < 0) return value;
  return choices.at(-1)![0];
};
const statuses: [string, number][] = [['completed', 0.8], ['processing', 0.08], ['pending', 0.05], ['failed', 0.05], ['submission_failed', 0.02]];
const languages: [string, number][] = [['ar', 0.6], ['en', 0.2], ['fa', 0.08], ['ur', 0.05], ...Array.from({ length: 20 }, (_, i): [string, number] => [`l${i}`, 0.0035])];
const letters = 'abcdefghijklmnopqrstuvwxyzابتثجحخدذرزسشصضطظعغفقكلمنهوي ';

export function probeBooks(count: number): IndexedBook[] {
  const random = lcg(1);
  return Array.from({ length: count }, (_, n) => {
    const bookTextId = (n.toString(16).padStart(8, '0') + Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0')).padEnd(24, '0');
    const fileName = Array.from({ length: 5 + Math.floor(random() * 30) }, () => letters[Math.floor(random() * letters.length)]).join('');
    const createdAt = new Date(Date.UTC(2020, 0, 1) + Math.floor(random() * 5 * 365 * 86_400_000)).toISOString();
    return {
      bookTextId,
      userId: `user-${skewed(random, 2_000)}`,
      visibility: random() < 0.7 ? 'public' : 'private',
      status: weighted(random, statuses),
      language: weighted(random, languages),
      tags: [...new Set(Array.from({ length: Math.floor(random() * 5) }, () => `tag${skewed(random, 2_000)}`))],
      categories: [...new Set(Array.from({ length: 1 + Math.floor(random() * 2) }, () => `cat${skewed(random, 40)}`))],
      ...keys.catalogueSort({ bookTextId, createdAt, fileName, pageCount: Math.floor(random() * 1_200) }),
    };
  });
}

const filters: [string, Partial<BookListQuery['filter']>][] = [
  ['no filter', {}],
  ['status completed (80%)', { status: 'completed' }],
  ['status failed (5%)', { status: 'failed' }],
  ['language ar (60%)', { language: 'ar' }],
  ['language l7 (0.35%)', { language: 'l7' }],
  ['status + language', { status: 'completed', language: 'ar' }],
  ['tag0 (6%)', { tags: ['tag0'] }],
  ['a rare tag (0.03%)', { tags: ['tag1999'] }],
  ['3 tags (any)', { tags: ['tag0', 'tag1', 'tag2'] }],
  ['12 tags (any)', { tags: Array.from({ length: 12 }, (_, i) => `tag${i}`) }],
  ['cat0 (26%)', { categories: ['cat0'] }],
  ['cat0 or cat1 (36%)', { categories: ['cat0', 'cat1'] }],
  ['tag0 + cat0', { tags: ['tag0'], categories: ['cat0'] }],
  ['3 tags + 2 categories', { tags: ['tag0', 'tag1', 'tag2'], categories: ['cat0', 'cat1'] }],
  ['status + language + tag0 + cat0', { status: 'completed', language: 'ar', tags: ['tag0'], categories: ['cat0'] }],
  ['rare tag + status failed', { tags: ['tag5'], status: 'failed' }],
];
const views: [string, SearchView][] = [
  ['anonymous', { kind: 'public' }],
  ['member (3% own)', { kind: 'publicAndOwn', ownerId: 'user-0' }],
  ['member (few own)', { kind: 'publicAndOwn', ownerId: 'user-1500' }],
  ['staff', { kind: 'all' }],
];
const orders = ['date', 'name', 'pages'] as const;
const pagings = [
  { name: 'offset 0', limit: 20, offset: 0 },
  { name: 'offset 10,000', limit: 100, offset: 10_000 },
];

export async function catalogueProbe(count: number): Promise<void> {
  const kept = process.env.PROBE_DB;
  const dir = kept ? undefined : mkdtempSync(join(tmpdir(), 'catalogue-probe-'));
  const path = kept ?? join(dir!, 'search.sqlite');
  const built = existsSync(path);
  const engine = sqliteSearchEngine(path);
  try {
    const books = probeBooks(count);
    let start = performance.now();
    if (!built) for (const book of books) await engine.putBook(book);
    const buildMs = performance.now() - start;
    const how = built ? 'reused' : `built in ${(buildMs / 1000).toFixed(1)} s (${((buildMs / count) * 1000).toFixed(0)} µs a putBook)`;
    console.log(`\n${count} books: ${how}, file ${(statSync(path).size / 1e6).toFixed(1)} MB`);

    const all: number[] = [];
    console.log(`  ${'filter'.padEnd(34)} ${pagings.map((p) => `${p.name}: median / worst (ms)`.padEnd(36)).join('')}worst of`);
    for (const [name, filter] of filters) {
      const cells: string[] = [];
      let worstOf = '';
      let worstMs = 0;
      for (const paging of pagings) {
        const times: number[] = [];
        for (const [who, view] of views) {
          for (const order of orders) {
            for (const descending of [false, true]) {
              const query: BookListQuery = { view, order, descending, ...paging, filter: { tags: [], categories: [], ...filter } };
              let best = Infinity;
              for (let round = 0; round < rounds; round++) {
                start = performance.now();
                await engine.listBooks(query);
                best = Math.min(best, performance.now() - start);
              }
              times.push(best);
              all.push(best);
              if (best > worstMs) [worstMs, worstOf] = [best, `${who}, ${order} ${descending ? 'desc' : 'asc'}, ${paging.name}`];
            }
          }
        }
        times.sort((x, y) => x - y);
        cells.push(`${times[Math.floor(times.length / 2)]!.toFixed(2)} / ${times.at(-1)!.toFixed(2)}`.padEnd(36));
      }
      const { total } = await engine.listBooks({ view: { kind: 'all' }, order: 'date', descending: false, limit: 1, offset: 0, filter: { tags: [], categories: [], ...filter } });
      console.log(`  ${`${name} [${total}]`.padEnd(34)} ${cells.join('')}${worstOf}`);
    }
    all.sort((x, y) => x - y);
    const at = (p: number) => all[Math.min(all.length - 1, Math.floor((all.length * p) / 100))]!.toFixed(2);
    console.log(`  all ${all.length} queries: p50 ${at(50)} ms, p95 ${at(95)} ms, max ${at(100)} ms`);

    const median = async (runs: number, run: (i: number) => Promise<void>) => {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        await run(i);
        times.push(performance.now() - t);
      }
      return times.sort((x, y) => x - y)[Math.floor(runs / 2)]!.toFixed(2);
    };
    if (kept) return;
    console.log(`  putBook (changed: status and a tag) median ${await median(21, (i) => engine.putBook({ ...books[i]!, status: 'failed', tags: [...books[i]!.tags, 'new'] }))} ms`);
    console.log(`  putBook (unchanged) median ${await median(21, (i) => engine.putBook({ ...books[i]!, status: 'failed', tags: [...books[i]!.tags, 'new'] }))} ms`);
    console.log(`  removeBook median ${await median(21, (i) => engine.removeBook(books[i]!.bookTextId))} ms`);
  } finally {
    engine.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = process.argv.slice(2).map(Number);
  for (const size of sizes.length > 0 ? sizes : [100_000]) await catalogueProbe(size);
}
