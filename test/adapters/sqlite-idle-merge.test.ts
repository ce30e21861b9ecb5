import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { idleMerge, type MergedTables } from '../../lib/adapters/sqlite/idle-merge.ts';

/** Tables whose merging takes `work` steps each (a step that merges moves total_changes by 2 or more). */
function tables(work: Record<string, number>, fail?: string): MergedTables & { statements: string[] } {
  let changes = 0;
  const statements: string[] = [];
  return {
    tables: Object.keys(work),
    statements,
    totalChanges: () => changes,
    exec(sql) {
      statements.push(sql);
      if (sql === 'PRAGMA incremental_vacuum') return;
      const table = /INSERT INTO (\w+)/.exec(sql)![1]!;
      if (table === fail) throw new Error('disk I/O error');
      changes += 1;
      if (work[table]! > 0) {
        work[table]!--;
        changes += 5;
      }
    },
  };
}

describe('merging segments when writes pause', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  const settings = { quietMs: 1_000, stepPages: 64 };

  it('waits for a pause in the writes, then merges each table in steps until a step does nothing', async () => {
    const db = tables({ exact: 3, stemmed: 1 });
    const merging = idleMerge(db, settings);
    merging.wrote();
    await vi.advanceTimersByTimeAsync(900);
    merging.wrote();
    await vi.advanceTimersByTimeAsync(900);
    // Each write put the merging off.
    expect(db.statements).toEqual([]);
    const done = merging.merged();
    await vi.advanceTimersByTimeAsync(200);
    await done;
    expect(db.statements).toEqual([
      ...Array.from({ length: 4 }, () => "INSERT INTO exact (exact, rank) VALUES ('merge', 64)"),
      ...Array.from({ length: 2 }, () => "INSERT INTO stemmed (stemmed, rank) VALUES ('merge', 64)"),
      // The pages merged away leave the file.
      'PRAGMA incremental_vacuum',
    ]);
    // Nothing left: merged() answers at once, and no step runs.
    await merging.merged();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(db.statements).toHaveLength(7);
  });

  it('lets a write in between two steps, and goes on after the next pause', async () => {
    const db = tables({ exact: 10, stemmed: 0 });
    const merging = idleMerge(db, settings);
    merging.wrote();
    await vi.advanceTimersByTimeAsync(1_000);
    const stepsBefore = db.statements.length;
    expect(stepsBefore).toBeGreaterThan(0);
    merging.wrote();
    await vi.advanceTimersByTimeAsync(500);
    expect(db.statements.length).toBe(stepsBefore);
    await vi.advanceTimersByTimeAsync(600);
    const done = merging.merged();
    await vi.runAllTimersAsync();
    await done;
    expect(db.statements.filter((s) => s.includes('exact'))).toHaveLength(11);
    expect(db.statements.at(-1)).toBe('PRAGMA incremental_vacuum');
  });

  it('stops on a failed step without throwing, and tries again after the next write; stop() ends it all', async () => {
    const db = tables({ exact: 2, stemmed: 2 }, 'exact');
    const merging = idleMerge(db, settings);
    merging.wrote();
    await vi.advanceTimersByTimeAsync(1_000);
    await merging.merged();
    expect(db.statements).toHaveLength(1);
    // The next write tries again.
    merging.wrote();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(db.statements).toHaveLength(2);
    merging.wrote();
    const waiting = merging.merged();
    merging.stop();
    await waiting;
    await vi.advanceTimersByTimeAsync(5_000);
    merging.wrote();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(db.statements).toHaveLength(2);
  });
});
