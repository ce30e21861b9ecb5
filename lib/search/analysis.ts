import { stemArabic } from './arabic-stemmer.ts';
import { maxTermLength } from './rules.ts';
import { stemEnglish } from './english-stemmer.ts';

/**
 * The one text analysis (issue 17): what an index stores for a page and what a query is turned
 * into go through the same functions here, so a word matches however it was typed or OCR'd.
 *
 * Normalization follows Lucene's ArabicNormalizer and PersianNormalizer (what OpenSearch's
 * `arabic` and `persian` analyzers apply), widened where our texts need it:
 * - NFKC first: PDFs and OCR give Arabic presentation forms (U+FB50–U+FDFF, U+FE70–U+FEFF) and
 *   ligatures (ﻻ → لا, ﷲ → الله; ﷺ becomes four words, see tokens()).
 * - Removed: harakat U+064B–U+065F (hamza above/below included, as Lucene's Persian normalizer
 *   deletes a loose hamza above), superscript alef U+0670, Quranic annotation marks
 *   (U+0610–U+061A, U+06D6–U+06DC, U+06DF–U+06E8, U+06EA–U+06ED) and tatweel U+0640.
 * - Folded: alef forms أ إ آ ٱ → ا; ى → ي; ة → ه (Lucene); Persian/Urdu/Kurdish letters as
 *   Lucene's PersianNormalizer does (ک → ك; ی ے → ي; ۀ ہ → ه) plus the forms it leaves out
 *   (ې ۍ ۓ → ي; ھ ە ۂ ۃ → ه), so an Urdu or Persian spelling finds the Arabic one.
 * - Kept, as Lucene keeps them: hamza on waw and yeh (ؤ ئ) and bare hamza (ء). They tell words
 *   apart (سؤال, رئيس); the price is that spelling variants such as مسؤول/مسئول do not meet.
 *   NFKC composes a decomposed و + U+0654 into ؤ before marks are removed, so both encodings agree.
 * - Digits: Arabic-Indic ٠–٩ and Extended ۰–۹ → 0–9.
 * - Latin: lowercase, and accents removed (é → e) by decomposing Latin letters only; other
 *   scripts keep their marks (they can be letters' parts there, e.g. Indic vowel signs).
 */

/** Per code unit in U+0600–U+06FF: '' removes it, a string replaces it, undefined keeps it. */
const arabicTable: (string | undefined)[] = new Array(0x100);
function setRange(from: number, to: number, value: string): void {
  for (let c = from; c <= to; c++) arabicTable[c - 0x600] = value;
}
setRange(0x0610, 0x061a, ''); // Quranic honorifics and small letters
setRange(0x064b, 0x065f, ''); // harakat
setRange(0x0670, 0x0670, ''); // superscript alef
setRange(0x06d6, 0x06dc, ''); // Quranic annotation
setRange(0x06df, 0x06e8, '');
setRange(0x06ea, 0x06ed, '');
setRange(0x0640, 0x0640, ''); // tatweel
for (const c of [0x0622, 0x0623, 0x0625, 0x0671]) setRange(c, c, 'ا');
for (const c of [0x0649, 0x06cc, 0x06cd, 0x06d0, 0x06d2, 0x06d3]) setRange(c, c, 'ي');
for (const c of [0x0629, 0x06be, 0x06c0, 0x06c1, 0x06c2, 0x06c3, 0x06d5]) setRange(c, c, 'ه');
setRange(0x06a9, 0x06a9, 'ك');
for (let d = 0; d <= 9; d++) {
  setRange(0x0660 + d, 0x0660 + d, String(d));
  setRange(0x06f0 + d, 0x06f0 + d, String(d));
}

/**
 * What a character of a normalized term may have been written as, by this table: itself and the
 * forms folded into it (ا ← أ إ آ ٱ; 4 ← ٤ ۴); and what it drops (marks, tatweel). A cheap
 * search of a page's raw text reads these (lib/search/snippet.ts); folds outside the table
 * (presentation forms, upper case beyond ASCII, accents) it leaves to the full analysis.
 */
export const writtenAs = new Map<string, string[]>();
export const droppedMarks: string[] = [];
arabicTable.forEach((value, i) => {
  const raw = String.fromCharCode(0x600 + i);
  if (value === '') droppedMarks.push(raw);
  else if (value !== undefined) writtenAs.set(value, [...(writtenAs.get(value) ?? [value]), raw]);
});

/** A Latin letter with marks after it, or a precomposed non-ASCII Latin letter (é, ñ, ǻ). */
const accentedLatin = /\p{Script=Latin}\p{M}+|[^\p{ASCII}\P{Script=Latin}]/gu;
const stripAccents = (letter: string): string => letter.normalize('NFD').replace(/\p{M}/gu, '');

/**
 * Lower case, then case folding where lowering is not enough (ς → σ, µ → μ, ſ → s: a letter whose
 * upper case lowers to another), so every term is an index term (lib/search/rules.ts `isIndexTerm`).
 */
function foldCase(text: string): string {
  const lower = text.toLowerCase();
  if (!/[^\p{ASCII}]/u.test(lower)) return lower;
  let out = '';
  for (const char of lower) {
    const upper = char.toUpperCase();
    out += [...upper].length === 1 && upper.toLowerCase() !== char ? upper.toLowerCase() : char;
  }
  return out;
}

/** The normalized form of a term (or of any text: spacing and punctuation pass through). */
export function normalize(text: string): string {
  let s = foldCase(text.normalize('NFKC'));
  let out = '';
  let changed = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const mapped = c >= 0x0600 && c <= 0x06ff ? arabicTable[c - 0x600] : undefined;
    if (mapped === undefined) out += s[i];
    else {
      out += mapped;
      changed = true;
    }
  }
  if (changed) s = out;
  if (/[^\p{ASCII}]/u.test(s)) {
    s = s.replace(accentedLatin, stripAccents);
    // Removing a tatweel or a mark can leave two characters that compose (Hangul jamo, say): compose
    // again so normalize(normalize(x)) = normalize(x). No Arabic mark that composes is left by now.
    s = s.normalize('NFKC');
  }
  return s;
}

/** A word of the text, as the index stores it: its normalized term, its stem, and where it stands. */
export interface Token {
  /** The normalized word (normalize()), at most maxTermLength characters (code points). */
  term: string;
  /** The term's light stem: Light10 for Arabic script, Porter for a–z, else the term. */
  stem: string;
  /** UTF-16 offsets of the word in the original text: text.slice(start, end) is what was written. */
  start: number;
  end: number;
}

/**
 * Terms are cut to maxTermLength code points (lib/search/rules.ts, what every engine accepts): an index
 * entry (and a query) stays bounded whatever a page holds, e.g. an OCR run of letters with no spaces.
 */
export { maxTermLength };

/** A word: a maximal run of letters, marks and digits (tatweel is a letter, Lm). Global: use with matchAll. */
export const wordPattern = /[\p{L}\p{M}\p{N}]+/gu;
/** What separates the words a normalized word can turn into (ﷺ → four words). */
const nonWord = /[^\p{L}\p{M}\p{N}]+/u;

function truncate(term: string): string {
  if (term.length <= maxTermLength) return term;
  const chars = [...term];
  return chars.length <= maxTermLength ? term : chars.slice(0, maxTermLength).join('');
}

const arabicScript = /\p{Script=Arabic}/u;
const lowercaseAscii = /^[a-z]+$/;

/** The stem of a normalized term, by its script: Arabic → Light10, a–z → Porter, anything else as is. */
export function stem(term: string): string {
  if (arabicScript.test(term)) return stemArabic(term);
  if (lowercaseAscii.test(term)) return stemEnglish(term);
  return term;
}

/**
 * The words of a text in order. Each word is normalized on its own so its offsets stay exact;
 * a word that normalizes to several (ﷺ) gives one token each, all with the word's offsets, and
 * one that normalizes to nothing (a lone diacritic) gives none.
 */
export function tokens(text: string): Token[] {
  const result: Token[] = [];
  for (const match of text.matchAll(wordPattern)) {
    const start = match.index;
    const end = start + match[0].length;
    const normalized = normalize(match[0]);
    const parts = nonWord.test(normalized) ? normalized.split(nonWord) : [normalized];
    for (const part of parts) {
      if (part === '') continue;
      const term = truncate(part);
      result.push({ term, stem: stem(term), start, end });
    }
  }
  return result;
}

/** What an index stores for a text and what a query is turned into: position i of each is the i-th word. */
export interface Analysis {
  /** Normalized, unstemmed terms (exact-word search). */
  exact: string[];
  /** Their stems (the default, looser search). */
  stemmed: string[];
}

export function analyze(text: string): Analysis {
  const all = tokens(text);
  return { exact: all.map((t) => t.term), stemmed: all.map((t) => t.stem) };
}
