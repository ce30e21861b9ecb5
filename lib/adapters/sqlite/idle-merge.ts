/**
 * Merging the index's segments when writes pause. FTS5 writes each transaction's pages as a new
 * segment and merges segments only as they pile up (automerge: four of a level), and a search reads
 * each of its terms in every segment: a bulk build of 20,000 pages left 10 segments in `exact`, and
 * the phrase and near-phrase statements of a forgiving search in one book cost with them (in-book
 * p95 4.1 to 5.1 ms against 2.6 once merged). Merged during the writes instead (a merge command
 * after each), the build took 1.8 times as long.
 *
 * So once no write has come for `quietMs`, each table is merged in steps of FTS5's `merge` command
 * (`usermerge` 2: a level's segments are merged once it holds two, so each level keeps one at most,
 * and a page is rewritten about once per level, never the whole index for a small write), each step
 * writing about `stepPages` pages of the index in its own statement (tens of milliseconds), with the
 * event loop let through between steps. A write puts the merging off again; FTS5 keeps a merge's
 * progress, so nothing is lost. A step that did nothing (total_changes() moved by less than two, as
 * FTS5 documents) ends that table's merging. Merging frees the pages of the segments merged away;
 * once it ends they are given back to the file system (`incremental_vacuum`: the index is created
 * with `auto_vacuum = INCREMENTAL`), so the file stays the size of what it holds.
 */
export interface IdleMerge {
  /** A write committed: merging waits for the next pause. */
  wrote(): void;
  /** Resolves once writes have paused and nothing is left to merge (keeps the process alive meanwhile). */
  merged(): Promise<void>;
  /** No more merging (the database is closing). */
  stop(): void;
}

export interface MergedTables {
  exec(sql: string): void;
  totalChanges(): number;
  tables: readonly string[];
}

/** The merging's settings: the pause it waits for, and the index pages a step writes. */
export const idleMergeSettings = { quietMs: 1_000, stepPages: 64, usermerge: 2 } as const;

export function idleMerge(db: MergedTables, settings: { quietMs: number; stepPages: number } = idleMergeSettings): IdleMerge {
  let timer: NodeJS.Timeout | undefined;
  let left: string[] = [];
  let worked = false;
  let stopped = false;
  let waiting: (() => void)[] = [];

  const idle = () => timer === undefined && left.length === 0;
  const settle = () => {
    for (const resolve of waiting) resolve();
    waiting = [];
  };
  const schedule = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(step, ms);
    // Merging alone never keeps a process alive; someone waiting for it does.
    if (waiting.length === 0) timer.unref();
  };

  function step(): void {
    timer = undefined;
    const table = left[0];
    if (stopped || table === undefined) return settle();
    try {
      const before = db.totalChanges();
      db.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ${settings.stepPages})`);
      if (db.totalChanges() - before < 2) left.shift();
      else worked = true;
      if (left.length === 0 && worked) db.exec('PRAGMA incremental_vacuum');
    } catch {
      // The index stays as it is, searchable; the next write tries again.
      left = [];
    }
    if (left.length === 0) {
      worked = false;
      return settle();
    }
    schedule(0);
  }

  return {
    wrote() {
      if (stopped) return;
      left = [...db.tables];
      schedule(settings.quietMs);
    },
    merged() {
      if (stopped || idle()) return Promise.resolve();
      timer?.ref();
      return new Promise((resolve) => waiting.push(resolve));
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      left = [];
      settle();
    },
  };
}
