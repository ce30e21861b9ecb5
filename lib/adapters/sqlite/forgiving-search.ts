import { bm25Part, idf, lengthNorm } from '../../search/bm25.ts';
import type { PageHit, SearchView } from '../../search/engine.ts';
import type { TermPagesCache } from './term-pages.ts';

/** What a forgiving search reads of a book: its id and the fields that filter. */
export interface SearchedBook {
  bookTextId: string;
  userId: string;
  visibility: string;
  language: string;
}

export interface ForgivingSearch {
  /** The query's words, each its alternatives (rules.ts `forgivingTerms`), and how many a page must hold. */
  words: readonly (readonly string[])[];
  minimumWords: number;
  /** The words as typed (PageQuery `terms`). */
  typed: readonly string[];
  /** The rowids of the phrase hits (null: no phrase), and of the near-phrase hits. */
  phraseHits: ReadonlySet<number> | null;
  nearHits: ReadonlySet<number>;
  /** Only this book's pages. */
  seq?: number;
  view: SearchView;
  language?: string;
  offset: number;
  limit: number;
}

/** The groups of engine.ts `forgiving`, best first, and the rest after them. */
const groupCount = 5;
/** The last group ranked by the typed terms' BM25 (2: the pages holding every typed term). */
const typedGroups = 2;

const visible = (view: SearchView, book: SearchedBook): boolean =>
  view.kind === 'all' || book.visibility === 'public' || (view.kind === 'publicAndOwn' && book.userId === view.ownerId);

/**
 * A forgiving search (engine.ts `forgiving`) over the terms' pages in memory: each page's words held
 * and BM25 score in one pass over the postings of the words' alternatives (each term once, in the
 * order of the words; the typed terms' parts also apart), then the matches filtered by their books,
 * grouped, and only the groups the window reaches sorted. The score sums the same parts in the same order as the in-memory engine, N
 * and the average length being the pages indexed now.
 */
export function forgivingSearch(
  pages: TermPagesCache,
  booksOf: (seqs: readonly number[]) => Map<number, SearchedBook>,
  search: ForgivingSearch,
  pageSpan: number,
): { total: number; hits: PageHit[] } {
  const scored = [...new Set(search.words.flat())];
  const typedAt = search.typed.map((term) => scored.indexOf(term));
  const { rowids, lengths, pages: indexed, averageLength } = pages.slots();

  // What a search learns of each page it meets, by slot; `met` lists the slots in the order met.
  const size = rowids.length;
  const seen = new Uint8Array(size);
  const held = new Int32Array(size);
  const typedHeld = new Int32Array(size);
  const allScores = new Float64Array(size);
  const typedScores = new Float64Array(size);
  const norms = new Float64Array(size);
  const met: number[] = [];

  for (const [j, term] of scored.entries()) {
    const entry = pages.pagesOf(term);
    let wordBits = 0;
    for (const [i, alternatives] of search.words.entries()) if (alternatives.includes(term)) wordBits |= 1 << i;
    let typedBits = 0;
    for (const [i, at] of typedAt.entries()) if (at === j) typedBits |= 1 << i;
    const typed = typedBits !== 0;
    const termIdf = idf(indexed, entry.pageCount);
    const books = search.seq === undefined ? entry.books.values() : [entry.books.get(search.seq)];
    for (const book of books) {
      if (!book) continue;
      const { slots, counts } = book;
      for (let k = 0; k < slots.length; k++) {
        const at = slots[k]!;
        if (seen[at] === 0) {
          seen[at] = 1;
          met.push(at);
          norms[at] = lengthNorm(lengths[at]!, averageLength);
        }
        held[at]! |= wordBits;
        typedHeld[at]! |= typedBits;
        const part = bm25Part(termIdf, counts[k]!, norms[at]!);
        allScores[at]! += part;
        if (typed) typedScores[at]! += part;
      }
    }
  }

  const everyWord = search.words.length === 32 ? -1 : (1 << search.words.length) - 1;
  const everyTyped = search.typed.length === 32 ? -1 : (1 << search.typed.length) - 1;
  const typedPossible = typedAt.every((at) => at >= 0);
  const matched = met.filter((at) => bitCount(held[at]!) >= search.minimumWords);
  const seqOf = (at: number): number => Math.floor(rowids[at]! / pageSpan);
  const books = booksOf([...new Set(matched.map(seqOf))]);

  const groups: number[][] = Array.from({ length: groupCount }, () => []);
  for (const at of matched) {
    const rowid = rowids[at]!;
    const book = books.get(seqOf(at));
    if (!book || !visible(search.view, book) || (search.language !== undefined && book.language !== search.language)) continue;
    const group = search.phraseHits?.has(rowid) ? 0 : search.nearHits.has(rowid) ? 1 : typedPossible && typedHeld[at] === everyTyped ? 2 : held[at] === everyWord ? 3 : 4;
    groups[group]!.push(at);
  }
  const total = groups.reduce((sum, group) => sum + group.length, 0);

  const idOf = (at: number): string => books.get(seqOf(at))!.bookTextId;
  const hits: PageHit[] = [];
  let skip = search.offset;
  for (const [g, group] of groups.entries()) {
    if (hits.length === search.limit) break;
    // The phrase, near-phrase and typed-words groups rank by the typed terms' BM25 (engine.ts `forgiving`).
    const scores = g <= typedGroups ? typedScores : allScores;
    if (skip >= group.length) {
      skip -= group.length;
      continue;
    }
    // Only the pages that can be in the window are sorted: those scoring at least the k-th best.
    const wanted = skip + search.limit - hits.length;
    const ranked = group.length > 2 * wanted ? best(group, scores, wanted) : group;
    // Ties by book id (ASCII, so UTF-16 order is byte order), then page number.
    ranked.sort((x, y) => {
      const byScore = scores[y]! - scores[x]!;
      if (byScore !== 0) return byScore;
      const a = idOf(x);
      const b = idOf(y);
      return a < b ? -1 : a > b ? 1 : (rowids[x]! % pageSpan) - (rowids[y]! % pageSpan);
    });
    for (const at of ranked.slice(skip, skip + search.limit - hits.length)) hits.push({ bookTextId: idOf(at), pageNumber: rowids[at]! % pageSpan });
    skip = 0;
  }
  return { total, hits };
}

/** The slots of `group` scoring at least its `k`-th best score (ties with it all kept). */
function best(group: readonly number[], scores: Float64Array, k: number): number[] {
  const values = Float64Array.from(group, (at) => scores[at]!).sort();
  const least = values[values.length - k]!;
  return group.filter((at) => scores[at]! >= least);
}

/** The number of bits set in a 32-bit integer. */
function bitCount(bits: number): number {
  let n = bits - ((bits >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
