import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendJournal, readQueueState, writeSavedQueues } from '../../infra/local/embedded/sqs-ledger.ts';

/** The local queue's state after a crash: its last snapshot with the journal's later changes applied (issue 29). */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const files = () => {
  const dir = mkdtempSync(join(tmpdir(), 'maktaba-journal-'));
  dirs.push(dir);
  return { snapshot: join(dir, 'sqs.json'), journal: join(dir, 'sqs.journal') };
};

describe('replaying the local queue journal', () => {
  it('applies sends, moves, deletes and purges in order over the snapshot', () => {
    const { snapshot, journal } = files();
    writeSavedQueues(snapshot, { jobs: [{ id: 'a', body: 'A', receiveCount: 2 }], 'jobs-dlq': [], pages: [{ id: 'p', body: 'P', receiveCount: 0 }] });
    appendJournal(journal, { op: 'put', queue: 'jobs', id: 'b', body: 'B' });
    appendJournal(journal, { op: 'put', queue: 'jobs', id: 'c', body: 'C' });
    appendJournal(journal, { op: 'put', queue: 'jobs-dlq', id: 'a', body: 'A' }); // a redrive keeps the id
    appendJournal(journal, { op: 'delete', id: 'c' });
    appendJournal(journal, { op: 'clear', queue: 'pages' });
    expect(readQueueState(snapshot, journal)).toEqual({
      jobs: [{ id: 'b', body: 'B', receiveCount: 0 }],
      'jobs-dlq': [{ id: 'a', body: 'A', receiveCount: 2 }],
    });
  });

  it('lands a line the snapshot already holds where it is, and skips a last line cut short by the crash', () => {
    const { snapshot, journal } = files();
    writeSavedQueues(snapshot, { jobs: [{ id: 'a', body: 'A', receiveCount: 1 }] });
    writeFileSync(journal, `${JSON.stringify({ op: 'put', queue: 'jobs', id: 'a', body: 'A' })}\n{"op":"put","queue":"jobs","id":"z","bo`);
    expect(readQueueState(snapshot, journal)).toEqual({ jobs: [{ id: 'a', body: 'A', receiveCount: 1 }] });
  });

  it('reads no journal as none', () => {
    const { snapshot, journal } = files();
    expect(readQueueState(snapshot, journal)).toEqual({});
  });
});
