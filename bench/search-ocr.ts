import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCanvas } from '@napi-rs/canvas';
import { sqliteSearchEngine } from '../lib/adapters/sqlite/search-engine.ts';
import { maxPageTextLength } from '../lib/ocr/pages/page.ts';
import { analyze } from '../lib/search/analysis.ts';
import type { IndexedBookFields, IndexedPage, MatchMode, PageHit, SearchEngine } from '../lib/search/engine.ts';
import { indexedPage } from '../lib/search/indexing.ts';
import { defaultSearchMode, planSearch, searchModes } from '../lib/search/query.ts';
import { imageFor, PageError, type OcrEngine, type OcrModel } from '../ocr-worker/contract.ts';
import { readPage } from '../ocr-worker/engine/read-page.ts';
import { modelData } from '../ocr-worker/engine/models.ts';
import { createTesseractEngine } from '../ocr-worker/engine/tesseract-engine.ts';
import { fontFamily, type FixtureFont } from '../ocr-worker/fixtures/fonts.ts';
import { seeded } from '../ocr-worker/fixtures/random.ts';
import { renderTextPage, type Noise } from '../ocr-worker/fixtures/render.ts';
import { bytesOf } from '../ocr-worker/files/open-image.ts';
import { pageTimeoutMs } from '../ocr-worker/job/runner.ts';
import { openSource } from '../ocr-worker/open-source.ts';
import { modelFor } from '../ocr-worker/text/language.ts';
import { openSearchOverFake } from '../test/support/fake-opensearch.ts';
import { typed, wordsOf } from './corpus/generate.ts';
import { realBooks } from './corpus/real-text.ts';
import { runIfMain } from './report.ts';

/**
 * "OCR'd print": search as a reader meets it. A reader types what the printed page says; the index
 * holds what OCR read of it. Part of `npm run bench -- search`, and alone `npm run bench -- search-ocr`.
 *
 * 1. Printed pages: `BENCH_SEARCH_OCR_PAGES` (24) A4 pages of real Arabic running text (the Quran,
 *    bench/corpus/real-text.ts, in reading order from a seeded place in it), in a few books, set in
 *    lines that fill the page's measure and in paragraphs of 40 to 90 words, in the fixture book faces
 *    (Amiri, Noto Naskh Arabic) at 13 or 14 pt, rendered at 300 dpi with a scan's damage varied page
 *    to page (blur, specks, skew, grey paper; seeded), printed as prose is: the Uthmani spelling
 *    without diacritics or Quranic marks. `BENCH_SEARCH_OCR_VOWELLED=n` prints every n-th page fully
 *    vowelled, marks and all, as the Uthmani text is (measured on 2026-11-27: OCR reads about 58% of
 *    such words exactly, against 91% on plain pages), reported apart.
 * 2. Each page read as the worker reads an uploaded page image: openSource → page → readPage (the
 *    `ara` model, a second reading with `eng` below its confidence bar, cleanArabic), the text cut to
 *    the page limit. The engine's readings are cached on disk (under os.tmpdir(), or
 *    `BENCH_SEARCH_OCR_CACHE`; `off` for none), keyed by the page image's hash, the model, the model
 *    data and the engine's source: a second run does not OCR again, and the reading and clean-up
 *    around the engine still run.
 * 3. The OCR'd pages indexed as the indexer does (lib/search/indexing.ts `indexedPage`) into a fresh
 *    SQLite engine file and the OpenSearch adapter over its in-memory fake; public books, language `ar`.
 * 4. Fragments: `BENCH_SEARCH_OCR_FRAGMENTS` (50) runs of 2, 3, 4 and 5 consecutive printed words
 *    each, at seeded places, typed as printed without diacritics, each one's stems found once in the
 *    whole printed set (so one page is the right answer).
 * 5. Each fragment searched by `findPages` (the one place the query is made) as staff, over the whole
 *    catalogue, 10 hits, in each mode and engine: its page first, in the 10, and no hit at all. Beside
 *    them, the fragments whose every word OCR read exactly on their page, and the OCR word accuracy.
 *
 * Targets, reported, not failed on: in the default mode, over 2–5 word fragments, the page first for
 * at least 90% and no hit for under 5%.
 */

/** Pages printed and read (0: the search bench leaves this section out). */
export const ocrPrintPages = Number(process.env.BENCH_SEARCH_OCR_PAGES ?? 24);
const perLength = Number(process.env.BENCH_SEARCH_OCR_FRAGMENTS ?? 50);
const cacheSetting = process.env.BENCH_SEARCH_OCR_CACHE ?? join(tmpdir(), 'maktaba-search-ocr-cache');
export const fragmentLengths = [2, 3, 4, 5] as const;
const limit = 10;
const pagesPerBook = 6;
const maxBooks = 5;
/** `BENCH_SEARCH_OCR_VOWELLED=n`: every n-th page printed fully vowelled, as the Uthmani text is (default none). */
const vowelledEvery = Number(process.env.BENCH_SEARCH_OCR_VOWELLED ?? 0);
const language = 'ar';
const model: OcrModel = modelFor(language);

export const ocrPrintTargets = { first: 0.9, noHit: 0.05 } as const;

/**
 * The search a reader makes with `q` in `mode`, as staff over the whole catalogue, planned as search-api
 * plans it (lib/search/query.ts `planSearch`: the words' OCR variants, all but one word): the one place
 * the bench makes a query.
 */
export async function findPages(engine: SearchEngine, q: string, mode: MatchMode, size = limit): Promise<{ total: number; hits: PageHit[] }> {
  const { words: _words, ...match } = await planSearch(engine, q, mode);
  return engine.search({ ...match, view: { kind: 'all' }, limit: size, offset: 0 });
}

// ---------------------------------------------------------------------------------------------
// Printed pages

interface PrintedPage {
  bookTextId: string;
  /** From 1, as the worker numbers a file's pages. */
  pageNumber: number;
  font: FixtureFont;
  sizePt: number;
  vowelled: boolean;
  noise: Noise;
  lines: string[];
  /** What the page says: its lines, one a line. */
  text: string;
}

const fonts: readonly FixtureFont[] = ['amiri', 'noto-naskh'];

/** renderTextPage's geometry (ocr-worker/fixtures/render.ts): A4 at 300 dpi, 0.8 in margins, lines 1.7 × the type size apart. */
const dpi = 300;
const measurePx = Math.round(8.27 * dpi) - 2 * Math.round(0.8 * dpi);
const pxOf = (sizePt: number) => (sizePt / 72) * dpi;
function linesPerPage(sizePt: number): number {
  const px = pxOf(sizePt);
  return Math.floor(((11.69 - 1.6) * dpi - px) / Math.round(px * 1.7)) + 1;
}

/** A scan's damage, varied page to page: from a clean office scan to a tired one. */
const scanNoise = (random: () => number, seed: number): Noise => ({
  blur: 0.5 + 0.5 * random(),
  speckles: 20 + 60 * random(),
  rotate: (random() - 0.5) * 1.6,
  paper: 0.05 + 0.13 * random(),
  seed,
});

/**
 * Words set into the lines of one page: as many as fit the measure (2% spare, so renderTextPage
 * never squeezes a line), a paragraph's last line ended short; `paragraphLeft` carries over pages.
 */
function setPage(words: string[], font: FixtureFont, sizePt: number, state: { paragraphLeft: number }, random: () => number): { lines: string[]; used: number } {
  const g = createCanvas(16, 16).getContext('2d');
  g.font = `${pxOf(sizePt)}px ${fontFamily(font)}`;
  g.direction = 'rtl';
  const fits = (line: string) => g.measureText(line).width <= measurePx * 0.98;
  const lines: string[] = [];
  let used = 0;
  while (lines.length < linesPerPage(sizePt) && used < words.length) {
    let line = words[used++]!;
    state.paragraphLeft--;
    while (used < words.length && state.paragraphLeft > 0 && fits(`${line} ${words[used]}`)) {
      line += ` ${words[used++]}`;
      state.paragraphLeft--;
    }
    if (state.paragraphLeft <= 0) state.paragraphLeft = 40 + Math.floor(random() * 51);
    lines.push(line);
  }
  return { lines, used };
}

/** The pages, in books of about `pagesPerBook`, each book's text from its own seeded place in the Quran. */
export function printedPages(pageCount: number): PrintedPage[] {
  const random = seeded(1806);
  // Printed words, as the text spaces them; none that is marks alone (a pause sign standing by itself).
  const stream = realBooks(language)
    .flatMap((b) => b.pages.join(' ').split(/\s+/))
    .filter((w) => typed(w) !== '' && wordsOf(w).length > 0);
  const bookCount = Math.max(1, Math.min(maxBooks, Math.round(pageCount / pagesPerBook)));
  const pages: PrintedPage[] = [];
  for (let b = 0; b < bookCount; b++) {
    const share = Math.floor(stream.length / bookCount);
    let at = b * share + Math.floor(random() * share * 0.5);
    const count = Math.floor(pageCount / bookCount) + (b < pageCount % bookCount ? 1 : 0);
    const state = { paragraphLeft: 40 + Math.floor(random() * 51) };
    for (let n = 1; n <= count; n++) {
      const g = pages.length;
      // Faces alternate (shifted every `vowelledEvery` pages, so vowelled pages get both); sizes at random.
      const font = fonts[(g + (vowelledEvery > 0 ? Math.floor(g / vowelledEvery) : 0)) % fonts.length]!;
      const sizePt = random() < 0.5 ? 13 : 14;
      const vowelled = vowelledEvery > 0 && g % vowelledEvery === vowelledEvery - 1;
      const words = stream.slice(at, at + 900).map((w) => (vowelled ? w : typed(w)));
      const { lines, used } = setPage(words, font, sizePt, state, random);
      at += used;
      pages.push({ bookTextId: `ocr-print-${b + 1}`, pageNumber: n, font, sizePt, vowelled, noise: scanNoise(random, 1806 + g), lines, text: lines.join('\n') });
    }
  }
  return pages;
}

// ---------------------------------------------------------------------------------------------
// OCR, as the worker reads a page image, its engine's readings cached on disk

interface OcrStats {
  /** Engine readings made, and found in the cache. */
  read: number;
  cached: number;
  readMs: number;
  failedPages: number;
}

const require = createRequire(import.meta.url);

/** What a cached reading depends on besides the image and the model: the model data, tesseract.js, and the engine's source (its settings). */
function engineVersion(): string {
  const version = (require('tesseract.js/package.json') as { version: string }).version;
  const source = readFileSync(fileURLToPath(new URL('../ocr-worker/engine/tesseract-engine.ts', import.meta.url)));
  return `${modelData} tesseract.js@${version} ${createHash('sha256').update(source).digest('hex')}`;
}

/** The engine with its readings kept in `dir` (none when undefined), keyed by image, model and engineVersion. */
function cachedEngine(inner: OcrEngine, dir: string | undefined, stats: OcrStats): OcrEngine {
  const version = engineVersion();
  if (dir) mkdirSync(dir, { recursive: true });
  return {
    reads: inner.reads,
    async recognize(image, m, options) {
      const key = createHash('sha256').update(version).update('\0').update(m).update('\0').update(image).digest('hex');
      const file = dir && join(dir, `${key}.json`);
      if (file && existsSync(file)) {
        stats.cached++;
        return JSON.parse(readFileSync(file, 'utf8')) as { text: string; confidence: number };
      }
      const start = performance.now();
      const { text, confidence } = await inner.recognize(image, m, options);
      stats.readMs += performance.now() - start;
      stats.read++;
      if (file) {
        writeFileSync(`${file}.${process.pid}`, JSON.stringify({ text, confidence }));
        renameSync(`${file}.${process.pid}`, file);
      }
      return { text, confidence };
    },
    close: () => inner.close(),
  };
}

const log = (line: string) => console.log(`[search-ocr] ${line}`);

/** Each page rendered, then read as the worker reads an uploaded image (ocr-worker/job/runner.ts): its text, or '' for a page that failed. */
async function ocrPages(pages: PrintedPage[], stats: OcrStats): Promise<{ texts: string[]; renderMs: number; ocrMs: number }> {
  const cacheDir = cacheSetting === 'off' ? undefined : cacheSetting;
  const tesseract = createTesseractEngine();
  const engine = cachedEngine(tesseract, cacheDir, stats);
  const texts: string[] = [];
  let renderMs = 0;
  let ocrMs = 0;
  try {
    for (const [i, p] of pages.entries()) {
      let start = performance.now();
      const png = renderTextPage({ lines: p.lines, font: p.font, sizePt: p.sizePt, page: 'a4', noise: p.noise });
      renderMs += performance.now() - start;
      start = performance.now();
      const source = await openSource(bytesOf(png));
      let text = '';
      try {
        const page = await source.page(1);
        text = (await readPage(engine, imageFor(engine, page), model, { timeoutMs: pageTimeoutMs })).text.slice(0, maxPageTextLength);
      } catch (error) {
        if (!(error instanceof PageError)) throw error;
        stats.failedPages++;
        log(`page ${i + 1} failed: ${error.message}`);
      } finally {
        await source.close();
      }
      const ms = performance.now() - start;
      ocrMs += ms;
      texts.push(text);
      log(`page ${i + 1}/${pages.length} (${p.font} ${p.sizePt} pt${p.vowelled ? ', vowelled' : ''}): ${(ms / 1000).toFixed(1)} s`);
    }
  } finally {
    await engine.close();
  }
  return { texts, renderMs, ocrMs };
}

// ---------------------------------------------------------------------------------------------
// Fragments

interface Fragment {
  q: string;
  length: number;
  /** Index into the printed pages. */
  page: number;
  /** Every word's normalized term is on the OCR'd page. */
  survived: boolean;
  /** The fragment's terms not on its OCR'd page. */
  lost: string[];
}

const occurrences = (haystack: string[], needle: string[]): number => {
  let n = 0;
  for (let i = 0; i + needle.length <= haystack.length; i++) if (needle.every((t, j) => haystack[i + j] === t)) n++;
  return n;
};

/** `perLength` fragments of each length: consecutive printed words, typed, whose stems stand once in all the printed pages. */
function fragments(pages: PrintedPage[], ocrTerms: Set<string>[]): Fragment[] {
  const random = seeded(2027);
  const stemsOf = pages.map((p) => analyze(p.text).stemmed);
  const wordsOfPage = pages.map((p) => wordsOf(p.text));
  const result: Fragment[] = [];
  for (const length of fragmentLengths) {
    const seen = new Set<string>();
    for (let attempt = 0, found = 0; found < perLength && attempt < perLength * 50; attempt++) {
      const page = Math.floor(random() * pages.length);
      const words = wordsOfPage[page]!;
      if (words.length < length) continue;
      const at = Math.floor(random() * (words.length - length + 1));
      const q = words
        .slice(at, at + length)
        .map(typed)
        .join(' ');
      const { exact, stemmed } = analyze(q);
      if (exact.length !== length || seen.has(q)) continue;
      if (stemsOf.reduce((n, stems) => n + occurrences(stems, stemmed), 0) !== 1) continue;
      seen.add(q);
      found++;
      const lost = exact.filter((t) => !ocrTerms[page]!.has(t));
      result.push({ q, length, page, survived: lost.length === 0, lost });
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// The report

export interface Cell {
  fragments: number;
  /** The fragment's page is the first hit, among the first `limit`, and no page matched at all. */
  first: number;
  top10: number;
  noHit: number;
}

export interface ModeResult {
  engine: 'sqlite' | 'opensearch';
  mode: MatchMode;
  /** Per fragment length ('2' to '5'), and '2-5' all together. */
  byLength: Record<string, Cell>;
}

export interface SearchOcrReport {
  pages: number;
  books: { bookTextId: string; pages: number }[];
  printedWords: number;
  pageStyles: { font: FixtureFont; sizePt: number; vowelled: boolean; noise: Noise; words: number; readExactly: number }[];
  ocr: {
    /** Printed words whose normalized form is on the OCR'd page. */
    wordAccuracy: number;
    plain: number;
    /** Null without vowelled pages. */
    vowelled: number | null;
    byFont: Record<string, number>;
    readings: number;
    cachedReadings: number;
    failedPages: number;
    cacheDir: string | null;
  };
  /** Per length: fragments chosen, and those whose every word OCR read exactly. */
  fragments: Record<string, { chosen: number; survived: number }>;
  results: ModeResult[];
  /** The default mode on SQLite, plain and vowelled pages apart. */
  defaultByStyle: { plain: Cell; vowelled: Cell };
  /** Some fragments (3 a length at most) the default search (SQLite) did not put first. */
  misses: { q: string; length: number; rank: number; total: number; lost: string[] }[];
  targets: { name: string; ok: boolean; detail: string }[];
  timings: { renderS: number; ocrS: number; engineReadS: number; indexS: number; searchS: number; wallS: number };
  load: { before: number[]; after: number[] };
  /** Measured, not budgeted: always true. */
  ok: boolean;
}

const emptyCell = (): Cell => ({ fragments: 0, first: 0, top10: 0, noHit: 0 });
const same = (a: PageHit, b: PageHit) => a.bookTextId === b.bookTextId && a.pageNumber === b.pageNumber;
export const pct = (n: number, of: number) => (of === 0 ? '-' : `${((100 * n) / of).toFixed(1)}%`);

export async function searchOcrBench(pageCount = ocrPrintPages): Promise<SearchOcrReport> {
  const wallStart = performance.now();
  const loadBefore = loadavg();
  const pages = printedPages(pageCount);
  log(`${pages.length} pages in ${new Set(pages.map((p) => p.bookTextId)).size} books, ${pages.reduce((n, p) => n + wordsOf(p.text).length, 0)} printed words`);

  const stats: OcrStats = { read: 0, cached: 0, readMs: 0, failedPages: 0 };
  const { texts, renderMs, ocrMs } = await ocrPages(pages, stats);

  // OCR word accuracy: printed words whose normalized form OCR gave somewhere on their page.
  const ocrTerms = texts.map((t) => new Set(analyze(t).exact));
  const pageStyles = pages.map((p, i) => {
    const printed = analyze(p.text).exact;
    return { font: p.font, sizePt: p.sizePt, vowelled: p.vowelled, noise: p.noise, words: printed.length, readExactly: printed.filter((t) => ocrTerms[i]!.has(t)).length };
  });
  const share = (ps: typeof pageStyles) => ps.reduce((n, p) => n + p.readExactly, 0) / Math.max(1, ps.reduce((n, p) => n + p.words, 0));

  // Index as the indexer does: each stored page analyzed, with its book's fields.
  const dir = mkdtempSync(join(tmpdir(), 'search-ocr-bench-'));
  const sqlite = sqliteSearchEngine(join(dir, 'search-ocr.sqlite'));
  const openSearch = openSearchOverFake();
  const engines = { sqlite, opensearch: openSearch } as const;
  const fields: IndexedBookFields = { userId: 'user-00', visibility: 'public', status: 'completed', language, rev: 1 };
  const indexStart = performance.now();
  try {
    for (const bookTextId of new Set(pages.map((p) => p.bookTextId))) {
      const entries: IndexedPage[] = pages.flatMap((p, i) =>
        p.bookTextId !== bookTextId
          ? []
          : [indexedPage({ pageId: `${bookTextId}#${p.pageNumber}`, bookTextId, pageNumber: p.pageNumber, text: texts[i]!, storageKey: null, isAIGenerated: false, updatedAt: '2026-11-27T00:00:00.000Z' }, fields)],
      );
      await sqlite.putPages(entries);
      await openSearch.putPages(entries);
    }
    const indexMs = performance.now() - indexStart;

    const all = fragments(pages, ocrTerms);
    log(`${all.length} fragments; searching`);
    const searchStart = performance.now();
    const results: ModeResult[] = [];
    const defaultByStyle = { plain: emptyCell(), vowelled: emptyCell() };
    const misses: SearchOcrReport['misses'] = [];
    for (const [name, engine] of Object.entries(engines) as [ModeResult['engine'], SearchEngine][]) {
      for (const mode of searchModes) {
        const byLength: Record<string, Cell> = { '2-5': emptyCell() };
        for (const f of all) {
          const source: PageHit = { bookTextId: pages[f.page]!.bookTextId, pageNumber: pages[f.page]!.pageNumber };
          const { total, hits } = await findPages(engine, f.q, mode, limit);
          const rank = hits.findIndex((h) => same(h, source));
          const cells = [(byLength[String(f.length)] ??= emptyCell()), byLength['2-5']!];
          if (name === 'sqlite' && mode === defaultSearchMode) cells.push(defaultByStyle[pages[f.page]!.vowelled ? 'vowelled' : 'plain']);
          for (const cell of cells) {
            cell.fragments++;
            if (rank === 0) cell.first++;
            if (rank >= 0) cell.top10++;
            if (total === 0) cell.noHit++;
          }
          if (name === 'sqlite' && mode === defaultSearchMode && rank !== 0 && misses.filter((m) => m.length === f.length).length < 3) misses.push({ q: f.q, length: f.length, rank, total, lost: f.lost });
        }
        results.push({ engine: name, mode, byLength });
      }
    }
    const searchMs = performance.now() - searchStart;

    const fragmentCounts: SearchOcrReport['fragments'] = {};
    for (const f of all) {
      const c = (fragmentCounts[String(f.length)] ??= { chosen: 0, survived: 0 });
      c.chosen++;
      if (f.survived) c.survived++;
    }
    const targets: SearchOcrReport['targets'] = results
      .filter((r) => r.mode === defaultSearchMode)
      .flatMap((r) => {
        const c = r.byLength['2-5']!;
        return [
          { name: `${r.engine}, default mode (${r.mode}), 2-5 words: page first >= ${ocrPrintTargets.first * 100}%`, ok: c.first >= ocrPrintTargets.first * c.fragments, detail: `${c.first}/${c.fragments} ${pct(c.first, c.fragments)}` },
          { name: `${r.engine}, default mode (${r.mode}), 2-5 words: no hit < ${ocrPrintTargets.noHit * 100}%`, ok: c.noHit < ocrPrintTargets.noHit * c.fragments, detail: `${c.noHit}/${c.fragments} ${pct(c.noHit, c.fragments)}` },
        ];
      });
    const byFont: Record<string, number> = {};
    for (const font of fonts) byFont[font] = share(pageStyles.filter((p) => p.font === font));
    const bookIds = [...new Set(pages.map((p) => p.bookTextId))];
    return {
      pages: pages.length,
      books: bookIds.map((bookTextId) => ({ bookTextId, pages: pages.filter((p) => p.bookTextId === bookTextId).length })),
      printedWords: pageStyles.reduce((n, p) => n + p.words, 0),
      pageStyles,
      ocr: {
        wordAccuracy: share(pageStyles),
        plain: share(pageStyles.filter((p) => !p.vowelled)),
        vowelled: pageStyles.some((p) => p.vowelled) ? share(pageStyles.filter((p) => p.vowelled)) : null,
        byFont,
        readings: stats.read,
        cachedReadings: stats.cached,
        failedPages: stats.failedPages,
        cacheDir: cacheSetting === 'off' ? null : cacheSetting,
      },
      fragments: fragmentCounts,
      results,
      defaultByStyle,
      misses,
      targets,
      timings: { renderS: renderMs / 1000, ocrS: ocrMs / 1000, engineReadS: stats.readMs / 1000, indexS: indexMs / 1000, searchS: searchMs / 1000, wallS: (performance.now() - wallStart) / 1000 },
      load: { before: loadBefore, after: loadavg() },
      ok: true,
    };
  } finally {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Printing

/** The section's table and lines (printed by `npm run bench -- search` too). */
export function printOcrPrintSection(report: SearchOcrReport): void {
  const table = (header: string[], rows: string[][]) => {
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const r of [header, ...rows]) console.log(r.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  };
  const keys = [...fragmentLengths.map(String), '2-5'];
  const fr = report.fragments;
  const survived = keys.map((k) => {
    const c = k === '2-5' ? Object.values(fr).reduce((s, x) => ({ chosen: s.chosen + x.chosen, survived: s.survived + x.survived }), { chosen: 0, survived: 0 }) : fr[k];
    return c ? `${pct(c.survived, c.chosen)}` : '-';
  });
  const p = (f: (s: SearchOcrReport['pageStyles'][number]) => boolean) => report.pageStyles.filter(f).length;
  console.log(
    `OCR'd print: ${report.pages} A4 pages (${report.books.map((b) => `${b.bookTextId}: ${b.pages}`).join(', ')}), ${report.printedWords} printed words; ` +
      `Amiri ${p((s) => s.font === 'amiri')}, Noto Naskh ${p((s) => s.font === 'noto-naskh')} pages; ${p((s) => s.vowelled)} vowelled; 300 dpi, scan damage varied by page`,
  );
  console.log(
    `OCR word accuracy (printed words whose normalized form is on the OCR'd page): ${(report.ocr.wordAccuracy * 100).toFixed(1)}% ` +
      `(${report.ocr.vowelled === null ? '' : `plain ${(report.ocr.plain * 100).toFixed(1)}%, vowelled ${(report.ocr.vowelled * 100).toFixed(1)}%; `}` +
      `${Object.entries(report.ocr.byFont)
        .map(([font, a]) => `${font} ${(a * 100).toFixed(1)}%`)
        .join(', ')}); engine readings ${report.ocr.readings} made, ${report.ocr.cachedReadings} cached; ${report.ocr.failedPages} pages failed`,
  );
  const rows: string[][] = [['fragments', '', '', ...keys.map((k) => String(k === '2-5' ? Object.values(fr).reduce((n, c) => n + c.chosen, 0) : (fr[k]?.chosen ?? 0)))]];
  rows.push(['every word read exactly', '', '', ...survived]);
  for (const r of report.results) {
    const measures: [string, (c: Cell) => number][] = [
      ['page first', (c) => c.first],
      ['in top 10', (c) => c.top10],
      ['no hit', (c) => c.noHit],
    ];
    for (const [i, [measure, get]] of measures.entries()) {
      rows.push([i === 0 ? r.engine : '', i === 0 ? r.mode + (r.mode === defaultSearchMode ? ' (default)' : '') : '', measure, ...keys.map((k) => (r.byLength[k] ? pct(get(r.byLength[k]), r.byLength[k].fragments) : '-'))]);
    }
  }
  table(['', '', '', ...keys.map((k) => `${k} words`)], rows);
  const s = report.defaultByStyle;
  if (s.vowelled.fragments > 0) console.log(`  default mode on SQLite, page first: plain pages ${s.plain.first}/${s.plain.fragments} ${pct(s.plain.first, s.plain.fragments)}, vowelled ${s.vowelled.first}/${s.vowelled.fragments} ${pct(s.vowelled.first, s.vowelled.fragments)}`);
  for (const m of report.misses) console.log(`  missed (default, SQLite): "${m.q}": rank ${m.rank < 0 ? '-' : m.rank + 1}, ${m.total} pages matched, ${m.lost.length ? `not read exactly: ${m.lost.join(' ')}` : 'every word read exactly'}`);
  const t = report.timings;
  console.log(
    `time: render ${t.renderS.toFixed(1)} s, read (open + OCR + clean-up) ${t.ocrS.toFixed(1)} s of which the engine ${t.engineReadS.toFixed(1)} s, ` +
      `index ${t.indexS.toFixed(2)} s, search ${t.searchS.toFixed(2)} s; ${t.wallS.toFixed(0)} s in all; load ${report.load.before.map((l) => l.toFixed(2)).join(' ')} → ${report.load.after.map((l) => l.toFixed(2)).join(' ')}`,
  );
  for (const target of report.targets) console.log(`  target ${target.name}: ${target.detail} ${target.ok ? 'ok' : 'UNDER'}`);
}

export function printSearchOcr(report: SearchOcrReport): void {
  printOcrPrintSection(report);
  console.log('measured, not budgeted: ok');
  console.log(JSON.stringify({ bench: 'search-ocr', ...report }));
}

await runIfMain(import.meta.url, searchOcrBench, printSearchOcr);
