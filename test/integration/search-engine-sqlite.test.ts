import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import sqlite3 from 'node-sqlite3-wasm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { keyHash, matchExpression, searchIndexOwnerFile, sqliteSearchEngine, type SqliteSearchEngine } from '../../lib/adapters/sqlite/search-engine.ts';
import type { IndexedPage, PageQuery, SearchEngine } from '../../lib/search/engine.ts';
import { variantKeys } from '../../lib/search/ocr-variants.ts';
import { FakeSearchEngine } from '../support/fakes/search-engine.ts';
import { describeSearchEngine, randomForgiving, randomHistory, type Step } from '../support/search-engine-contract.ts';
import { discardStaleSearchIndex, releaseSearchIndexLock } from '../../infra/local/search-index.ts';
import { removeStack, searchDbFile, streamCheckpointFile, writeStack } from '../../infra/local/state.ts';

/** SQLite FTS5 (node-sqlite3-wasm): the contract in memory, then what only a database file shows. */
const opened: SqliteSearchEngine[] = [];
const open = (path: string): SqliteSearchEngine => {
  const engine = sqliteSearchEngine(path);
  opened.push(engine);
  return engine;
};
afterEach(() => {
  for (const engine of opened.splice(0)) engine.close();
});

describeSearchEngine('SQLite FTS5', async () => open(':memory:'));

describe('SQLite FTS5 search engine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'maktaba-search-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const page = (pageNumber: number, text: string, visibility: 'public' | 'private' = 'public'): IndexedPage => {
    const exact = text.split(' ');
    return { bookTextId: 'book-1', userId: 'user-1', visibility, status: 'completed', language: 'ar', pageNumber, exact, stemmed: exact };
  };

  it('keeps its index in the file across reopening', async () => {
    const path = join(dir, 'kept.sqlite');
    const first = open(path);
    await first.putPages([page(0, 'نور على نور'), page(1, 'كتاب', 'private')]);
    await first.setBookFields('book-1', { userId: 'user-1', visibility: 'private', status: 'completed', language: 'ar' });
    first.close();
    opened.splice(opened.indexOf(first), 1);
    const again = open(path);
    expect(await again.search({ mode: 'all', field: 'exact', terms: ['نور'], view: { kind: 'public' }, limit: 10, offset: 0 })).toEqual({ total: 0, hits: [] });
    expect(await again.search({ mode: 'all', field: 'exact', terms: ['نور'], view: { kind: 'all' }, limit: 10, offset: 0 })).toEqual({ total: 1, hits: [{ bookTextId: 'book-1', pageNumber: 0 }] });
  });

  it('refuses a file of another layout', () => {
    const path = join(dir, 'other.sqlite');
    const other = new sqlite3.Database(path);
    other.exec('PRAGMA user_version = 99');
    other.close();
    expect(() => sqliteSearchEngine(path)).toThrow(/layout 99/);
  });

  it('npm start builds an index of an older layout again: the file and its stream position go, a current one stays', async () => {
    const local = mkdtempSync(join(dir, 'data-'));
    const [file, checkpoint] = [searchDbFile(local), streamCheckpointFile(local)];
    const older = new sqlite3.Database(file);
    older.exec('PRAGMA user_version = 2');
    older.close();
    writeFileSync(checkpoint, '{}');
    const lines: string[] = [];
    discardStaleSearchIndex(local, (line) => lines.push(line));
    expect([existsSync(file), existsSync(checkpoint), lines.length]).toEqual([false, false, 1]);

    const current = open(file);
    await current.putPages([page(0, 'نور')]);
    current.close();
    opened.splice(opened.indexOf(current), 1);
    writeFileSync(checkpoint, '{}');
    discardStaleSearchIndex(local, (line) => lines.push(line));
    expect([existsSync(file), existsSync(checkpoint), lines.length]).toEqual([true, true, 1]);
  });

  /** The pid of a process that has ended. */
  const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid!;

  it('keeps other connections out while open, naming the process that has it; what to do if a killed process left its lock', async () => {
    const path = join(dir, 'locked.sqlite');
    const first = open(path);
    expect(existsSync(searchIndexOwnerFile(path))).toBe(true);
    expect(() => sqliteSearchEngine(path)).toThrow(`The search index ${path} is open in process ${process.pid}, which is running: stop it, or use another DATA_DIR.`);
    first.close();
    expect([existsSync(`${path}.lock`), existsSync(searchIndexOwnerFile(path))]).toEqual([false, false]);
    await open(path).putPages([page(0, 'نور')]);

    const killed = join(dir, 'killed.sqlite');
    const pid = deadPid();
    mkdirSync(`${killed}.lock`);
    writeFileSync(searchIndexOwnerFile(killed), JSON.stringify({ pid }));
    expect(() => sqliteSearchEngine(killed)).toThrow(`was left locked by process ${pid}, which is no longer running (killed): delete ${killed}.lock`);
  });

  it('npm start removes at once a lock whose holder is no longer running, and names a running one', async () => {
    const local = mkdtempSync(join(dir, 'held-'));
    const file = searchDbFile(local);
    const lines: string[] = [];
    mkdirSync(`${file}.lock`);
    writeFileSync(searchIndexOwnerFile(file), JSON.stringify({ pid: process.pid }));
    await expect(releaseSearchIndexLock(local, 200, (line) => lines.push(line))).rejects.toThrow(`open in process ${process.pid}, which is running`);
    expect([existsSync(`${file}.lock`), lines]).toEqual([true, []]);

    const pid = deadPid();
    writeFileSync(searchIndexOwnerFile(file), JSON.stringify({ pid }));
    // A wait would outlast the test's own timeout: the lock of a process that is gone goes at once.
    await releaseSearchIndexLock(local, 600_000, (line) => lines.push(line));
    expect([existsSync(`${file}.lock`), lines]).toEqual([false, [`removed ${file}.lock, left by process ${pid}, which ended without closing the index (killed)`]]);
    await open(file).putPages([page(0, 'نور')]);
  });

  it('npm start removes a lock with no holder recorded when no stack runs, and names a running stack', async () => {
    const local = mkdtempSync(join(dir, 'locked-'));
    const lock = `${searchDbFile(local)}.lock`;
    mkdirSync(lock);
    writeStack(local, { pid: process.pid, url: 'http://127.0.0.1:1', tableName: 't', uploadsBucket: 'u', audioBucket: 'a', endpoints: { dynamodb: '', s3: '', sqs: '' }, queueUrls: {} });
    const lines: string[] = [];
    await expect(releaseSearchIndexLock(local, 200, (line) => lines.push(line))).rejects.toThrow(`held by the npm start of this DATA_DIR running as pid ${process.pid} (http://127.0.0.1:1)`);
    expect([existsSync(lock), lines]).toEqual([true, []]);
    removeStack(local);
    await releaseSearchIndexLock(local, 200, (line) => lines.push(line));
    expect([existsSync(lock), lines.length]).toEqual([false, 1]);
    const engine = open(searchDbFile(local));
    await engine.putPages([page(0, 'نور')]);
  });

  it('lets go of its file when the process exits without closing it', () => {
    const path = join(dir, 'exit.sqlite');
    const script = join(dir, 'exit-without-close.mts');
    const adapter = pathToFileURL(join(import.meta.dirname, '../../lib/adapters/sqlite/search-engine.ts')).href;
    writeFileSync(
      script,
      `import { sqliteSearchEngine } from ${JSON.stringify(adapter)};
       await sqliteSearchEngine(${JSON.stringify(path)}).putPages([${JSON.stringify(page(3, 'باقٍ'))}]);
       process.exit(0);`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(existsSync(`${path}.lock`)).toBe(false);
    return expect(open(path).search({ mode: 'all', field: 'exact', terms: ['باقٍ'], view: { kind: 'all' }, limit: 10, offset: 0 })).resolves.toEqual({
      total: 1,
      hits: [{ bookTextId: 'book-1', pageNumber: 3 }],
    });
  });

  it('quotes every term, so no term is FTS5 syntax', () => {
    expect(matchExpression({ mode: 'phrase', terms: ['near', 'or', 'b'] })).toBe('"near or b"');
    expect(matchExpression({ mode: 'all', terms: ['a', 'not'] })).toBe('"a" AND "not"');
    expect(matchExpression({ mode: 'any', terms: ['a', 'NEAR', '"', 'كتب'] })).toBe('"a" OR "كتب"');
    expect(matchExpression({ mode: 'all', terms: ['a', '*'] })).toBeNull();
    expect(matchExpression({ mode: 'phrase', terms: ['a', 'a"b'] })).toBeNull();
    expect(matchExpression({ mode: 'any', terms: ['OR'] })).toBeNull();
  });

  it('files vocabulary keys as 32-bit hashes, and leaves out of similarTerms a term whose key only shares a hash', async () => {
    // The first two three-letter terms (one key each: their skeleton, themselves) whose keys share a hash.
    const letters = Array.from({ length: 90 }, (_, i) => String.fromCodePoint(0x4e00 + i));
    const firstCollision = (): [string, string] => {
      const seen = new Map<number, string>();
      for (const a of letters) for (const b of letters) for (const c of letters) {
        const term = a + b + c;
        const other = seen.get(keyHash(term));
        if (other) return [other, term];
        seen.set(keyHash(term), term);
      }
      throw new Error('no collision');
    };
    const pair = firstCollision();
    const [first, second] = pair!;
    expect(keyHash(first)).toBe(keyHash(second));
    const engine = open(':memory:');
    await engine.putPages([page(0, `${first} ${second}`)]);
    expect(await engine.similarTerms([first])).toEqual([first]);
    expect(await engine.similarTerms([second])).toEqual([second]);
  });

  it('files a term once, whoever puts it again: the same engine, or one that opens the file later', async () => {
    const path = join(dir, 'vocabulary.sqlite');
    const first = open(path);
    await first.putPages([page(0, 'كتاب الكتاب')]);
    await first.putPages([page(1, 'كتاب')]);
    first.close();
    opened.splice(opened.indexOf(first), 1);
    const again = open(path);
    await again.putPages([page(2, 'كتاب كتب')]);
    // Found once each, though put three times by two engines.
    expect(await again.similarTerms(variantKeys('كتاب'))).toEqual(['كتاب', 'كتب']);
    again.close();
    opened.splice(opened.indexOf(again), 1);
    const reader = new sqlite3.Database(path, { readOnly: true });
    expect(reader.all("SELECT term, count(*) AS n FROM vocabulary GROUP BY term ORDER BY term")).toEqual([
      { term: 'الكتاب', n: 1 },
      { term: 'كتاب', n: 1 },
      { term: 'كتب', n: 1 },
    ]);
    reader.close();
  });

  it('finds the pages holding at least the minimum of many words', async () => {
    const twelve = Array.from({ length: 12 }, (_, i) => [`w${i}`]);
    const engine = open(':memory:');
    const pages = Array.from({ length: 40 }, (_, n) => page(n, Array.from({ length: 12 }, (_, i) => ((n * 31 + i * 17 + ((n * i) % 5)) % 11 < 6 ? `w${i}` : `x${i}`)).join(' ')));
    await engine.putPages(pages);
    const terms = twelve.map((w) => w[0]!);
    const found = await engine.search({ mode: 'all', field: 'stemmed', terms, forgiving: { words: twelve, minimumWords: 6, nearPhrases: [] }, view: { kind: 'all' }, limit: 100, offset: 0 });
    const expected = pages.filter((p) => terms.filter((t) => p.stemmed.includes(t)).length >= 6).map((p) => p.pageNumber);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(pages.length);
    expect(found.total).toBe(expected.length);
    expect(found.hits.map((h) => h.pageNumber).sort((a, b) => a - b)).toEqual(expected);
  });

  it('merges its segments once writes pause, and answers the same before and after', async () => {
    const path = join(dir, 'merged.sqlite');
    const engine = open(path);
    const words = ['sun', 'moon', 'star', 'rain', 'snow', 'wind', 'hill', 'sea'];
    const text = (n: number) => Array.from({ length: 30 }, (_, i) => words[(n * 7 + i * (n % 5 + 1)) % words.length]).join(' ');
    // Each putPages of a book is one transaction, one segment of each field.
    for (let book = 0; book < 12; book++) {
      await engine.putPages(Array.from({ length: 20 }, (_, n) => ({ ...page(n, text(book * 20 + n)), bookTextId: `book-${book}` })));
    }
    await engine.removeBook('book-3');
    const before = engine.segmentCounts();
    expect(before.exact).toBeGreaterThan(3);
    const queries: PageQuery[] = [
      { mode: 'phrase', field: 'exact', terms: ['sun', 'moon'], view: { kind: 'all' }, limit: 100, offset: 0 },
      { mode: 'all', field: 'stemmed', terms: ['rain', 'sea'], phraseFirst: ['rain', 'sea'], view: { kind: 'all' }, limit: 100, offset: 0 },
      { mode: 'all', field: 'stemmed', terms: ['hill', 'wind'], bookTextId: 'book-7', view: { kind: 'all' }, limit: 100, offset: 0 },
    ];
    const answers = await Promise.all(queries.map((q) => engine.search(q)));
    expect(answers.every((a) => a.total > 0)).toBe(true);
    const bytes = statSync(path).size;
    await engine.merged();
    const after = engine.segmentCounts();
    // The pages of the segments merged away leave the file (kept, it grew by 15% here).
    expect(statSync(path).size).toBeLessThanOrEqual(bytes * 1.1);
    // usermerge 2: at most one segment a level, fewer than the writes left.
    expect(after.exact).toBeLessThan(before.exact);
    expect(after.stemmed).toBeLessThanOrEqual(before.stemmed);
    expect(after.exact).toBeLessThanOrEqual(3);
    for (const [i, q] of queries.entries()) expect(await engine.search(q)).toEqual(answers[i]);
    // Reopened, the file holds the merged index.
    engine.close();
    const again = open(path);
    expect(again.segmentCounts()).toEqual(after);
    for (const [i, q] of queries.entries()) expect(await again.search(q)).toEqual(answers[i]);
    // A write puts merging off; closing with merging pending leaves nothing running.
    await again.putPages([{ ...page(0, 'late page'), bookTextId: 'book-99' }]);
    again.close();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
  });

  it('leaves alone a page put again as it is held (the stream repeating a write), and writes one whose terms changed at the same revision', async () => {
    const engine = open(join(dir, 'again.sqlite'));
    const pages = Array.from({ length: 20 }, (_, n) => ({ ...page(n, `sun moon ${n}`), rev: 4, pageRev: 4 }));
    await engine.putPages(pages);
    await engine.merged();
    const held = engine.segmentCounts();
    // A write of the index adds a segment to each field; putting the same pages again writes nothing.
    await engine.putPages(pages);
    expect(engine.segmentCounts()).toEqual(held);
    await engine.putPages([{ ...page(3, 'rain'), rev: 4, pageRev: 4 }]);
    expect(engine.segmentCounts().exact).toBe(held.exact + 1);
    const all = (word: string) => engine.search({ mode: 'all', field: 'exact', terms: [word], view: { kind: 'all' }, limit: 100, offset: 0 });
    expect(await all('rain')).toEqual({ total: 1, hits: [{ bookTextId: 'book-1', pageNumber: 3 }] });
    expect((await all('sun')).total).toBe(19);
  });

  /** One step of a history (search-engine-contract.ts), on one engine. */
  const apply = async (engine: SearchEngine, step: Step): Promise<void> => {
    if (step.kind === 'put') await engine.putPages(step.pages);
    else if (step.kind === 'fields') await engine.setBookFields(step.bookTextId, step.fields);
    else await engine.removeBook(step.bookTextId);
  };

  it('answers a forgiving search as the in-memory engine does, order and all, while pages are put, replaced and removed between searches', async () => {
    // The terms a search reads are kept in memory (term-pages.ts) and follow each write after it:
    // a search after every step reads what the step changed from memory, not from the index.
    await fc.assert(
      fc.asyncProperty(randomHistory, fc.array(randomForgiving, { minLength: 1, maxLength: 4 }), fc.nat(3), fc.integer({ min: 1, max: 4 }), async (history, queries, offset, limit) => {
        const engine = open(':memory:');
        const fake = new FakeSearchEngine();
        for (const [i, step] of history.entries()) {
          await apply(engine, step);
          await apply(fake, step);
          for (const q of [queries[i % queries.length]!, { ...queries[i % queries.length]!, offset, limit }]) expect(await engine.search(q)).toEqual(await fake.search(q));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('reads long pages\' lengths as FTS5 keeps them: of pages naming a word once, the shorter ranks first, also after the file is opened again', async () => {
    const path = join(dir, 'lengths.sqlite');
    const fake = new FakeSearchEngine();
    // Lengths of 1, 2 and 3 bytes as varints, put in no order.
    const lengths = [16_500, 150, 100, 17_000, 200];
    const pages: IndexedPage[] = lengths.map((n, pageNumber) => {
      const terms = ['sun', ...Array.from({ length: n - 1 }, (_, i) => `w${i % 50}`)];
      return { ...page(pageNumber, 'x'), exact: terms, stemmed: terms };
    });
    // Pages without the word, so its idf counts.
    for (let n = 5; n < 15; n++) pages.push(page(n, 'moon star'));
    const query: PageQuery = { mode: 'all', field: 'stemmed', terms: ['sun'], forgiving: { words: [['sun']], minimumWords: 1, nearPhrases: [] }, view: { kind: 'all' }, limit: 10, offset: 0 };
    const shortestFirst = [2, 1, 4, 0, 3];
    let engine = open(path);
    await engine.putPages(pages);
    await fake.putPages(pages);
    expect((await fake.search(query)).hits.map((h) => h.pageNumber)).toEqual(shortestFirst);
    expect((await engine.search(query)).hits.map((h) => h.pageNumber)).toEqual(shortestFirst);
    engine.close();
    engine = open(path);
    expect((await engine.search(query)).hits.map((h) => h.pageNumber)).toEqual(shortestFirst);
  });
});
