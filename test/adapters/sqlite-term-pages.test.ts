import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { termPagesCache, type TermPagesSource, type WrittenPage } from '../../lib/adapters/sqlite/term-pages.ts';

const pageSpan = 2 ** 20;
const words = ['a', 'b', 'c', 'd', 'e'];

/** The index as a source reads it: every page's terms by rowid. */
class Index implements TermPagesSource {
  readonly pages = new Map<number, string[]>();
  reads = 0;
  *postings(term: string): Iterable<[number, number]> {
    this.reads++;
    for (const rowid of [...this.pages.keys()].sort((x, y) => x - y)) {
      const count = this.pages.get(rowid)!.filter((t) => t === term).length;
      if (count > 0) yield [rowid, count];
    }
  }
  *lengths(): Iterable<[number, number]> {
    for (const [rowid, terms] of this.pages) yield [rowid, terms.length];
  }
}

type Op = { kind: 'put'; pages: { seq: number; pageNumber: number; terms: string[] }[] } | { kind: 'remove'; seq: number } | { kind: 'search'; term: string };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('put' as const), pages: fc.array(fc.record({ seq: fc.nat(3), pageNumber: fc.nat(6), terms: fc.array(fc.constantFrom(...words), { maxLength: 6 }) }), { minLength: 1, maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), seq: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('search' as const), term: fc.constantFrom(...words) }) },
);

describe('the pages of terms kept in memory (SQLite engine)', () => {
  it('answers each term as the index holds it while pages are put, replaced and removed, letting terms go past its limits', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const index = new Index();
        const cache = termPagesCache(index, pageSpan, { postings: 12, terms: 3 });
        for (const step of ops) {
          if (step.kind === 'put') {
            // As the engine does: the write committed, then the cache told.
            const written: WrittenPage[] = step.pages.map((p) => {
              const rowid = p.seq * pageSpan + p.pageNumber;
              const replaced = index.pages.has(rowid);
              index.pages.set(rowid, p.terms);
              return { ...p, replaced };
            });
            cache.written(written);
          } else if (step.kind === 'remove') {
            for (const rowid of [...index.pages.keys()]) if (Math.floor(rowid / pageSpan) === step.seq) index.pages.delete(rowid);
            cache.removedBook(step.seq);
          }
          for (const term of words) {
            const found = cache.pagesOf(term);
            const expected = [...index.postings(term)];
            const held = [...found.books].flatMap(([seq, book]) => book.pages.map((pageNumber, k) => [seq * pageSpan + pageNumber, book.counts[k]!] as [number, number]));
            expect(held.sort((x, y) => x[0] - y[0])).toEqual(expected);
            expect(found.pageCount).toBe(expected.length);
          }
          const { rowids, lengths, pages, averageLength } = cache.slots();
          expect(pages).toBe(index.pages.size);
          const total = [...index.pages.values()].reduce((sum, terms) => sum + terms.length, 0);
          expect(averageLength).toBeCloseTo(pages === 0 ? 0 : total / pages, 9);
          for (const [rowid, terms] of index.pages) expect(lengths[rowids.indexOf(rowid)]).toBe(terms.length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads a term from the index once while it is kept, and again after it was let go', () => {
    const index = new Index();
    index.pages.set(1, ['a', 'b']);
    index.pages.set(2, ['a', 'c']);
    const cache = termPagesCache(index, pageSpan, { postings: 100, terms: 2 });
    cache.pagesOf('a');
    cache.pagesOf('a');
    expect(index.reads).toBe(1);
    cache.pagesOf('b');
    cache.pagesOf('c');
    expect(index.reads).toBe(3);
    cache.pagesOf('a');
    expect(index.reads).toBe(4);
  });
});
