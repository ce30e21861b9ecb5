import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sqliteSearchEngine } from '../lib/adapters/sqlite/search-engine.ts';
import type { IndexedPage, PageQuery, SearchView } from '../lib/search/engine.ts';
import { arabicProse } from '../test/support/arabic-pages.ts';

/**
 * `npx tsx bench/search-sqlite-probe.ts [pages...]` (default 2000 20000): the SQLite search engine
 * (issue 17) on made-up Arabic books of 200 pages of 300 words (arabicProse's skewed vocabulary of
 * 5,000 words; stems its first four letters): index size on disk against the pages' text (UTF-8),
 * build time (one putPages per book, as books are indexed), and search latency p50/p95 for whole-
 * index and in-book searches with a view filter. A probe, not a budgeted bench: it prints numbers.
 * Issue 17's targets: index about 0.6x the text, queries well under 1 ms at 2,000 pages, p95 about
 * 6 ms at 20,000.
 */

const pagesPerBook = 200;
const wordsPerPage = 300;
const users = 20;
const queriesPerKind = Number(process.env.PROBE_QUERIES ?? 300);
const rounds = 3;

export const probeStem = (word: string): string => word.slice(0, 4);

/** Book `b` of the probe corpus: every other book public, owners and seeds fixed. */
export function probeBook(b: number): IndexedPage[] {
  const fields = { userId: `user-${b % users}`, visibility: b % 2 === 0 ? ('public' as const) : ('private' as const), status: 'completed', language: 'ar' };
  return Array.from({ length: pagesPerBook }, (_, n) => {
    const exact = arabicProse(b * 100_003 + n + 1, wordsPerPage * 9).split(' ').slice(0, wordsPerPage);
    return { ...fields, bookTextId: `book-${String(b).padStart(5, '0')}`, pageNumber: n, exact, stemmed: exact.map(probeStem) };
  });
}

/** A small deterministic generator (a 32-bit LCG) for the queries. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
}

export interface QueryKind {
  name: string;
  make: (random: () => number) => PageQuery;
}

/**
 * The query kinds measured, their terms taken from the corpus's own pages (so they are found):
 * drawn from a page's words, a term is often one of the few words on nearly every page; drawn from
 * the distinct stems, it is mostly rare.
 */
export function probeQueries(books: number, pageOf: (b: number, n: number) => IndexedPage): QueryKind[] {
  const pick = <T>(random: () => number, values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const somePage = (random: () => number) => pageOf(Math.floor(random() * books), Math.floor(random() * pagesPerBook));
  const member = (random: () => number): SearchView => ({ kind: 'publicAndOwn', ownerId: `user-${Math.floor(random() * users)}` });
  const base = { limit: 20, offset: 0 };
  /** Every stem of the corpus once: drawn from these, a term is as likely rare as common. */
  const distinctStems = [...new Set(Array.from({ length: books }, (_, b) => Array.from({ length: pagesPerBook }, (_, n) => pageOf(b, n).stemmed).flat()).flat())];
  return [
    { name: 'whole index, 1 rare stemmed term, member', make: (r) => ({ ...base, mode: 'all', field: 'stemmed', terms: [pick(r, distinctStems)], view: member(r) }) },
    { name: 'whole index, 1 stemmed term, member', make: (r) => ({ ...base, mode: 'all', field: 'stemmed', terms: [pick(r, somePage(r).stemmed)], view: member(r) }) },
    { name: 'whole index, 2 terms (all), anonymous', make: (r) => ({ ...base, mode: 'all', field: 'stemmed', terms: [pick(r, somePage(r).stemmed), pick(r, somePage(r).stemmed)], view: { kind: 'public' } }) },
    {
      name: 'whole index, 2-word exact phrase, member',
      make: (r) => {
        const { exact } = somePage(r);
        const at = Math.floor(r() * (exact.length - 1));
        return { ...base, mode: 'phrase', field: 'exact', terms: exact.slice(at, at + 2), view: member(r) };
      },
    },
    { name: 'whole index, 3 terms (any), staff', make: (r) => ({ ...base, mode: 'any', field: 'stemmed', terms: [1, 2, 3].map(() => pick(r, somePage(r).stemmed)), view: { kind: 'all' } }) },
    {
      name: 'in one book, 1 stemmed term, member',
      make: (r) => {
        const b = Math.floor(r() * books);
        return { ...base, mode: 'all', field: 'stemmed', terms: [pick(r, somePage(r).stemmed)], bookTextId: `book-${String(b).padStart(5, '0')}`, view: member(r) };
      },
    },
  ];
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

export async function searchProbe(pageCount: number): Promise<void> {
  const books = Math.ceil(pageCount / pagesPerBook);
  const dir = mkdtempSync(join(tmpdir(), 'search-probe-'));
  const path = join(dir, 'search.sqlite');
  const engine = sqliteSearchEngine(path);
  try {
    const corpus = new Map<number, IndexedPage[]>();
    const bookOf = (b: number) => corpus.get(b) ?? corpus.set(b, probeBook(b)).get(b)!;
    let textBytes = 0;
    let buildMs = 0;
    for (let b = 0; b < books; b++) {
      const pages = bookOf(b);
      for (const page of pages) textBytes += Buffer.byteLength(page.exact.join(' '));
      const start = performance.now();
      await engine.putPages(pages);
      buildMs += performance.now() - start;
    }
    const indexBytes = statSync(path).size;
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
    console.log(`\n${books * pagesPerBook} pages (${books} books of ${pagesPerBook}, ${wordsPerPage} words a page)`);
    console.log(`  text ${mb(textBytes)}, index ${mb(indexBytes)} (${(indexBytes / textBytes).toFixed(2)}x the text), built in ${(buildMs / 1000).toFixed(1)} s (${((buildMs / (books * pagesPerBook)) * 1000).toFixed(0)} µs a page)`);

    // Each query runs `rounds` times and counts its fastest run: other work on this machine (a
    // shared 2-core box) shows as noise in single runs, not as the engine's cost.
    for (const kind of probeQueries(books, (b, n) => bookOf(b)[n]!)) {
      const random = lcg(17);
      const queries = Array.from({ length: queriesPerKind }, () => kind.make(random));
      const best = queries.map(() => Infinity);
      const totals: number[] = [];
      for (let round = 0; round < rounds; round++) {
        for (const [i, query] of queries.entries()) {
          const start = performance.now();
          const { total } = await engine.search(query);
          best[i] = Math.min(best[i]!, performance.now() - start);
          if (round === 0) totals.push(total);
        }
      }
      best.sort((x, y) => x - y);
      totals.sort((x, y) => x - y);
      console.log(`  ${kind.name.padEnd(42)} p50 ${percentile(best, 50).toFixed(2)} ms, p95 ${percentile(best, 95).toFixed(2)} ms (median total ${percentile(totals, 50)}, p95 ${percentile(totals, 95)})`);
    }

    const median = async (runs: number, run: (i: number) => Promise<void>) => {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const start = performance.now();
        await run(i);
        times.push(performance.now() - start);
      }
      return percentile(times.sort((x, y) => x - y), 50).toFixed(2);
    };
    const bookId = (b: number) => bookOf(b)[0]!.bookTextId;
    const fields = (b: number, visibility: 'public' | 'private') => ({ userId: `user-${b % users}`, visibility, status: 'completed', language: 'ar' });
    console.log(`  setBookFields (one book) median ${await median(9, (i) => engine.setBookFields(bookId(i % books), fields(i % books, i % 2 ? 'public' : 'private')))} ms`);
    const removed = Math.min(5, books);
    console.log(`  removeBook (${pagesPerBook} pages) median ${await median(removed, (i) => engine.removeBook(bookId(i)))} ms`);
    console.log(`  putPages (a ${pagesPerBook}-page book, new) median ${await median(removed, (i) => engine.putPages(bookOf(i)))} ms`);
    console.log(`  putPages (a ${pagesPerBook}-page book, replaced) median ${await median(removed, (i) => engine.putPages(bookOf(i)))} ms`);
  } finally {
    engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = process.argv.slice(2).map(Number);
  for (const size of sizes.length > 0 ? sizes : [2_000, 20_000]) await searchProbe(size);
}
