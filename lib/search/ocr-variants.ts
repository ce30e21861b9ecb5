/**
 * What OCR makes of a printed word (issue 32): a reader types what the page says, the index holds what
 * the OCR read. A word's variants are the indexed terms a few OCR slips away from it: a letter
 * confused with one of its shape (dots: ب ت ث ن ي, ج ح خ, ع غ, ف ق, ...; hamza seats: و ؤ, ي ئ) costs
 * half an edit; any other letter wrong, missing, added, or two letters swapped, one edit. How much a
 * word may differ grows with its length (`allowance`).
 *
 * Finding them without reading the whole vocabulary: each indexed term is filed under keys made of its
 * *skeleton* (each letter replaced by its shape's class, so confused letters agree) and, for terms of
 * four letters or more, the skeleton with one letter left out. Two words within their allowance share a
 * key: at most one edit that is not a confusion apart means their skeletons are one edit apart, and one
 * edit apart strings share a one-letter-out string (a substitution or a swap: the same position left
 * out; a missing letter: the longer one's). So a query looks up its words' keys (one engine call), and
 * `ocrDistance` decides among what comes back.
 */

/** Letters of one shape, told apart by dots or the hamza's seat (normalized text: alef forms, ى and ة are folded already). */
const shapeClasses = ['بتثنيئ', 'جحخ', 'دذ', 'رز', 'سش', 'صض', 'طظ', 'عغ', 'فق', 'وؤ'];
const shapeOf = new Map<string, string>();
for (const letters of shapeClasses) for (const letter of letters) shapeOf.set(letter, letters[0]!);

/** A term's letters as shapes: confused letters become equal. */
export const skeleton = (term: string): string => [...term].map((c) => shapeOf.get(c) ?? c).join('');

/** Terms shorter than this have no variants: too many words are one letter from a two-letter one. */
export const minVariantLength = 3;
/** Terms longer than this are not filed: an OCR run of letters no reader types. */
export const maxFiledLength = 24;

const hasLetter = /\p{L}/u;

/** Whether an indexed term is filed under keys (lib/search/engine.ts `similarTerms`): three to 24 characters, a letter among them. */
export function isFiled(term: string): boolean {
  const length = [...term].length;
  return length >= minVariantLength && length <= maxFiledLength && hasLetter.test(term);
}

/** The keys a term is filed under, and looked up by: its skeleton, and from four letters on, each skeleton with one letter left out. */
export function variantKeys(term: string): readonly string[] {
  let keys = knownKeys.get(term);
  if (keys) return keys;
  keys = Object.freeze(keysOf(term));
  // A search works out the keys of up to 2,000 candidate terms, twice (engine and planner): most of
  // its planning, and the same few thousand terms search after search.
  if (knownKeys.size >= maxKnownKeys) knownKeys.clear();
  knownKeys.set(term, keys);
  return keys;
}

const knownKeys = new Map<string, readonly string[]>();
const maxKnownKeys = 65_536;

function keysOf(term: string): string[] {
  if (!isFiled(term)) return [];
  const shape = [...skeleton(term)];
  const keys = new Set([shape.join('')]);
  if (shape.length > minVariantLength) for (let i = 0; i < shape.length; i++) keys.add([...shape.slice(0, i), ...shape.slice(i + 1)].join(''));
  return [...keys];
}

/** How far a variant may be from a typed word of this many letters: none under 3, a confusion at 3, an edit at 4 and 5, an edit and a confusion from 6. */
export function allowance(term: string): number {
  const length = [...term].length;
  if (length < minVariantLength) return 0;
  if (length === 3) return 0.5;
  return length <= 5 ? 1 : 1.5;
}

const substitutionCost = (a: string, b: string): number => (a === b ? 0 : (shapeOf.get(a) ?? a) === (shapeOf.get(b) ?? b) ? 0.5 : 1);

/**
 * The OCR distance of two terms: optimal string alignment (edits, and swaps of neighbours, no letter
 * edited twice), a confusion of shape costing 0.5, every other edit 1. Stops early past `limit`
 * (answering Infinity), as a variant's search needs no more.
 */
export function ocrDistance(a: string, b: string, limit = Infinity): number {
  const x = [...a];
  const y = [...b];
  if (Math.abs(x.length - y.length) > limit) return Infinity;
  let before = new Array<number>(y.length + 1).fill(0);
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = new Array<number>(y.length + 1);
    current[0] = i;
    let best = i;
    for (let j = 1; j <= y.length; j++) {
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + substitutionCost(x[i - 1]!, y[j - 1]!));
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1] && x[i - 1] !== x[i - 2]) d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      if (d < best) best = d;
    }
    if (best > limit) return Infinity;
    before = previous;
    previous = current;
  }
  const distance = previous[y.length]!;
  return distance > limit ? Infinity : distance;
}

/** At most this many variants of a word are searched (each is a term more in every clause of the query). */
export const maxVariants = 4;

/** UTF-8 byte order, as the engines order terms. */
const byUtf8 = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The variants of a typed term among candidate terms: those within its allowance, nearest first (then
 * in UTF-8 byte order, so every engine's candidates give the same ones), at most `maxVariants`.
 */
export function variantsOf(term: string, candidates: Iterable<string>): string[] {
  const limit = allowance(term);
  if (limit === 0) return [];
  const found: { term: string; distance: number }[] = [];
  for (const candidate of candidates) {
    if (candidate === term) continue;
    const distance = ocrDistance(term, candidate, limit);
    if (distance <= limit) found.push({ term: candidate, distance });
  }
  found.sort((p, q) => p.distance - q.distance || byUtf8(p.term, q.term));
  return found.slice(0, maxVariants).map((v) => v.term);
}
