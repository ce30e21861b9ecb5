import { seeded } from '../../ocr-worker/fixtures/random.ts';
import { normalize, wordPattern } from '../../lib/search/analysis.ts';
import { fits, inflect, shapeOf, type Form, type Position } from './arabic-forms.ts';
import { arabicBody, arabicClassOf, arabicHead } from './arabic-words.ts';
import { englishBody, englishClassOf, englishHead } from './english-words.ts';
import { arabicSyntax, chainOf, englishSyntax, type Chain, type Model } from './syntax.ts';

/**
 * The search bench's corpus (bench/search.ts, issue 17): books of real Arabic and English words
 * (bench/corpus/*-words.ts), generated deterministically, so every run indexes the same pages and
 * any page can be made again on its own (each page has its own seed).
 *
 * - Books of 100 to 200 pages; 4 in 5 Arabic, 1 in 5 English (every fifth); every other book public; owners drawn
 *   from 20 users. `corpusBooks(n)` is the first books up to n pages (the last one cut short), so a
 *   smaller corpus is the start of a larger one.
 * - Pages of 250 to 350 words, in sentences of 6 to 20 words with the punctuation books print
 *   (، ؛ . ؟ and , ; . ?; a comma only where a phrase may end), a paragraph break every few
 *   sentences, and now and then a number (in place of a noun; Arabic-Indic digits in Arabic books).
 * - Each sentence is a sequence of syntactic classes drawn from a first-order Markov chain
 *   (syntax.ts: a preposition is followed by its noun, an article by its noun phrase, قد by a verb),
 *   then a word of each class: within its class, by a Zipf-Mandelbrot law over the word's rank in its
 *   list (weight 1 / (rank + 2.7), as in English text): the head words of the lists first, then the
 *   others in a seeded order. A book also has 30 topic words of its own, content words (nouns,
 *   adjectives, names, verbs), drawn for 14% of the words of their class (about 8% of an Arabic
 *   book's words, 7% of an English one's, as content words are fewer there; words cluster by book in
 *   real libraries).
 * - Each Arabic word drawn is written with the clitics and endings texts attach to a word of its kind
 *   where it stands (arabic-forms.ts: و ف ب ل ك ال, possessive pronouns, ة ات ون ين ان, س; none of
 *   و ف ب ل ك after a preposition, إنّ, قد ..., an iḍāfa's first noun without article, an adjective
 *   as definite as its noun), so a listed word is many surface forms; a word listed with a proclitic
 *   (وقد, بالكتاب) is not drawn where none can stand. English words are written as listed (the list
 *   holds their inflected forms).
 * - Arabic books are written as real ones are, each in its own style: fully vocalized (20%: the
 *   lists' diacritics kept), partly (45%: on about a third of the words) or not at all (35%);
 *   hamza on alef dropped (أ إ آ → ا) in 30% of books, final ي written ى in 10%, final ة written ه
 *   in 5%, and in 20% a tatweel in 3% of the words.
 */

export type CorpusLanguage = 'ar' | 'en';

export interface CorpusBook {
  index: number;
  bookTextId: string;
  language: CorpusLanguage;
  userId: string;
  visibility: 'public' | 'private';
  pageCount: number;
}

export const owners = 20;
export const userIdOf = (n: number) => `user-${String(n).padStart(2, '0')}`;

/** A seed from integers (a 32-bit mix), so that page (b, n) has its own stream. */
function mix(...values: number[]): number {
  let h = 0x811c9dc5;
  for (const v of values) {
    h = Math.imul(h ^ (v >>> 0), 0x01000193);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
  }
  return h >>> 0;
}

/** The books holding the first `totalPages` pages of the corpus. */
export function corpusBooks(totalPages: number): CorpusBook[] {
  const books: CorpusBook[] = [];
  let pages = 0;
  for (let b = 0; pages < totalPages; b++) {
    const random = seeded(mix(1, b));
    const pageCount = Math.min(100 + Math.floor(random() * 101), totalPages - pages);
    books.push({
      index: b,
      bookTextId: `book-${String(b).padStart(5, '0')}`,
      language: b % 5 === 2 ? 'en' : 'ar',
      userId: userIdOf(Math.floor(random() * owners)),
      visibility: b % 2 === 0 ? 'public' : 'private',
      pageCount,
    });
    pages += pageCount;
  }
  return books;
}

/** Words of a list once each (by their normalized form, the first spelling kept), ranked. */
function ranked<T extends { word: string }>(head: readonly T[], body: readonly T[], seed: number): T[] {
  const seen = new Set<string>();
  const once = (list: readonly T[]) =>
    list.filter(({ word }) => {
      const key = normalize(word);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const top = once(head);
  const rest = once(body);
  const random = seeded(seed);
  for (let i = rest.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rest[i], rest[j]] = [rest[j]!, rest[i]!];
  }
  return [...top, ...rest];
}

/** A listed word, its syntactic class, and the form a text writes it in each time it is drawn. */
interface Entry {
  word: string;
  syntax: string;
  /** It can stand at a position (arabic-forms.ts `fits`). */
  fits: (at: Position) => boolean;
  form: (random: () => number, at: Position) => Form;
}

/** Words of one class, with their cumulative Zipf-Mandelbrot weights (by their rank in the whole list), the last 1. */
interface ClassWords {
  words: Entry[];
  cumulative: Float64Array;
}

interface Vocabulary {
  /** All words in rank order. */
  words: Entry[];
  byClass: Map<string, ClassWords>;
  chain: Chain<string>;
  /** The classes of content words (a book's topic words are of these). */
  content: ReadonlySet<string>;
}

function vocabulary(words: Entry[], model: Model<string>, content: string[]): Vocabulary {
  const byClass = new Map<string, ClassWords>();
  const ranks = new Map<string, number[]>();
  for (const [r, entry] of words.entries()) {
    if (!(entry.syntax in model.next)) throw new Error(`no class in the syntax model for ${entry.word} (${entry.syntax})`);
    (ranks.get(entry.syntax) ?? ranks.set(entry.syntax, []).get(entry.syntax)!).push(r);
  }
  for (const [c, rs] of ranks) {
    const cumulative = new Float64Array(rs.length);
    let sum = 0;
    for (const [i, r] of rs.entries()) cumulative[i] = sum += 1 / (r + 1 + 2.7);
    for (let i = 0; i < rs.length; i++) cumulative[i]! /= sum;
    byClass.set(c, { words: rs.map((r) => words[r]!), cumulative });
  }
  for (const c of Object.keys(model.next)) if (!byClass.has(c)) throw new Error(`no word of class ${c}`);
  return { words, byClass, chain: chainOf(model), content: new Set(content) };
}

/** Arabic words take clitics and endings as their kind and position allow (arabic-forms.ts). */
function arabicEntries(): Entry[] {
  const words = ranked(arabicHead, arabicBody, 1701);
  const listed = new Set(words.map(({ word }) => normalize(word)));
  return words.map((entry) => {
    const shape = shapeOf(entry, listed);
    const syntax = arabicClassOf(entry);
    if (syntax === undefined) throw new Error(`no syntactic class for the particle ${entry.word} (arabic-words.ts)`);
    return { word: entry.word, syntax, fits: (at) => fits(shape, at), form: (random, at) => inflect(shape, random, at) };
  });
}

const asIs = (word: string): Entry => ({ word, syntax: englishClassOf(word), fits: () => true, form: () => ({ form: word, definite: false }) });

const vocabularies: Record<CorpusLanguage, Vocabulary> = {
  ar: vocabulary(arabicEntries(), arabicSyntax as Model<string>, ['noun', 'adjective', 'name', 'verb']),
  en: vocabulary(ranked(englishHead.map(asIs), englishBody.map(asIs), 1702), englishSyntax as Model<string>, ['content']),
};

/** The vocabulary's words in rank order (for reports). */
export const vocabularySize = (language: CorpusLanguage) => vocabularies[language].words.length;

function zipfIndex(cumulative: Float64Array, u: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Style {
  vocalization: 'full' | 'partial' | 'none';
  hamzaDropped: boolean;
  finalYehAsAlefMaqsura: boolean;
  finalTehAsHeh: boolean;
  tatweel: boolean;
  /** The book's topic words by class. */
  topic: Map<string, Entry[]>;
}

function styleOf(book: CorpusBook): Style {
  const random = seeded(mix(2, book.index));
  const v = random();
  const { words, content } = vocabularies[book.language];
  // Topic words: content words from past the first 100 ranks, the book's own subject, not its grammar.
  const topic = new Map<string, Entry[]>();
  for (let n = 0; n < 30; ) {
    const entry = words[100 + Math.floor(random() * (words.length - 100))]!;
    if (!content.has(entry.syntax)) continue;
    (topic.get(entry.syntax) ?? topic.set(entry.syntax, []).get(entry.syntax)!).push(entry);
    n++;
  }
  const arabic = book.language === 'ar';
  return {
    vocalization: !arabic ? 'none' : v < 0.2 ? 'full' : v < 0.65 ? 'partial' : 'none',
    hamzaDropped: arabic && random() < 0.3,
    finalYehAsAlefMaqsura: arabic && random() < 0.1,
    finalTehAsHeh: arabic && random() < 0.05,
    tatweel: arabic && random() < 0.2,
    topic,
  };
}

const harakat = /[\u064B-\u0652\u0670]/g;
/** Letters that join the next one (a tatweel may follow them). */
const joining = /[بتثجحخسشصضطظعغفقكلمنهيئ]/;

/** A tatweel after a joining letter in the middle of the word, if there is one. */
function withTatweel(word: string, random: () => number): string {
  const letters = [...word];
  const spots: number[] = [];
  for (let i = 0; i < letters.length; i++) {
    if (!joining.test(letters[i]!)) continue;
    let j = i + 1;
    while (j < letters.length && /[\u064B-\u0652\u0670]/.test(letters[j]!)) j++;
    if (j < letters.length && i > 0) spots.push(j);
  }
  if (spots.length === 0) return word;
  const at = spots[Math.floor(random() * spots.length)]!;
  return [...letters.slice(0, at), 'ـ'.repeat(1 + Math.floor(random() * 3)), ...letters.slice(at)].join('');
}

/** A word as this book writes it. */
function spell(word: string, style: Style, random: () => number): string {
  let w = word;
  if (style.vocalization === 'none' || (style.vocalization === 'partial' && random() >= 0.35)) w = w.replace(harakat, '');
  if (style.hamzaDropped) w = w.replace(/[أإآ]/g, 'ا');
  if (style.finalYehAsAlefMaqsura) w = w.replace(/ي([\u064B-\u0652]*)$/, 'ى$1');
  if (style.finalTehAsHeh) w = w.replace(/ة([\u064B-\u0652]*)$/, 'ه$1');
  if (style.tatweel && random() < 0.03) w = withTatweel(w, random);
  return w;
}

const arabicDigits = '٠١٢٣٤٥٦٧٨٩';
const punctuation: Record<CorpusLanguage, { comma: string; semicolon: string; stop: string; question: string }> = {
  ar: { comma: '،', semicolon: '؛', stop: '.', question: '؟' },
  en: { comma: ',', semicolon: ';', stop: '.', question: '?' },
};

/** Arabic classes that govern the word after them (arabic-forms.ts `Position`). */
const governing = new Set(['preposition', 'inna', 'demonstrative', 'negation', 'preverb', 'relative', 'subordinator']);

/** Where a word of class `c` stands, between the classes before and after it and the form before it. */
function positionOf(
  language: CorpusLanguage,
  before: string | undefined,
  c: string,
  after: string | undefined,
  link: { definiteBefore: boolean; coordinatedBefore: boolean; coordinatedAfter: boolean },
): Position {
  if (language !== 'ar') return {};
  const afterNoun = before === 'noun' || before === 'name';
  const at: Position = {};
  if ((before !== undefined && governing.has(before)) || (before === 'noun' && (c === 'noun' || c === 'name')) || (c === 'adjective' && afterNoun)) at.governed = true;
  if (link.coordinatedBefore) at.conjunction = true;
  else if (before === 'conjunction') at.conjunction = false;
  if (before === 'demonstrative' && c === 'noun') at.article = true;
  if (c === 'noun' && (after === 'noun' || after === 'name') && !link.coordinatedAfter) at.construct = true;
  if (c === 'adjective' && (afterNoun || before === 'adjective')) at.definite = link.definiteBefore;
  return at;
}

/** Draws of a word that cannot stand at its position before one is taken as it is. */
const tries = 20;

/** A word of class `c` that fits the position: a topic word for 14% of content words, otherwise by Zipf-Mandelbrot within the class. */
function drawWord(v: Vocabulary, style: Style, c: string, at: Position, random: () => number): Entry {
  const topic = style.topic.get(c);
  const { words, cumulative } = v.byClass.get(c)!;
  let entry: Entry;
  let n = 0;
  do entry = topic && random() < 0.14 ? topic[Math.floor(random() * topic.length)]! : words[zipfIndex(cumulative, random())]!;
  while (!entry.fits(at) && ++n < tries);
  return entry;
}

/** Page `pageNumber` (from 0) of a book: the same text on every run. */
export function pageText(book: CorpusBook, pageNumber: number): string {
  const style = styleOf(book);
  const random = seeded(mix(3, book.index, pageNumber));
  const v = vocabularies[book.language];
  const marks = punctuation[book.language];
  const ends = new Set((book.language === 'ar' ? arabicSyntax : englishSyntax).end as readonly string[]);
  const target = 250 + Math.floor(random() * 101);
  const sentences: string[] = [];
  let count = 0;
  while (count < target) {
    const length = Math.min(6 + Math.floor(random() * 15), target - count);
    const classes: string[] = [];
    for (let i = 0; i < length; i++) classes.push(v.chain.draw(classes[i - 1], i === length - 1, random));
    // A noun and the noun after it: an iḍāfa, or one time in three coordinated (العلم والعمل).
    const coordinated = classes.map((c, i) => i > 0 && classes[i - 1] === 'noun' && c === 'noun' && book.language === 'ar' && random() < 1 / 3);
    let sentence = '';
    let definite = false;
    for (let i = 0; i < length; i++) {
      const c = classes[i]!;
      let word: string;
      if ((c === 'noun' || c === 'content') && random() < 0.02) {
        const n = String(1 + Math.floor(random() * 999));
        word = book.language === 'ar' ? [...n].map((d) => arabicDigits[Number(d)]).join('') : n;
        definite = false;
      } else {
        const at = positionOf(book.language, classes[i - 1], c, classes[i + 1], {
          definiteBefore: definite,
          coordinatedBefore: coordinated[i]!,
          coordinatedAfter: coordinated[i + 1] ?? false,
        });
        const form = drawWord(v, style, c, at, random).form(random, at);
        word = spell(form.form, style, random);
        definite = form.definite;
      }
      if (i === 0 && book.language === 'en') word = word[0]!.toUpperCase() + word.slice(1);
      sentence += (i === 0 ? '' : ' ') + word;
      // A comma or semicolon where a phrase may end (not after an article, a preposition, قد ...).
      if (i < length - 1 && ends.has(c)) {
        const p = random();
        if (p < 0.1) sentence += marks.comma;
        else if (p < 0.11) sentence += marks.semicolon;
      }
    }
    sentence += random() < 0.9 ? marks.stop : marks.question;
    sentences.push(sentence);
    count += length;
  }
  let text = '';
  for (const [i, sentence] of sentences.entries()) text += (i === 0 ? '' : i % 5 === 0 ? '\n' : ' ') + sentence;
  return text;
}

/** The words of a text as the analysis splits them, as written. */
export const wordsOf = (text: string): string[] => [...text.matchAll(wordPattern)].map((m) => m[0]);

/**
 * A word as a reader types it: no diacritics, no tatweel, and none of the Quranic marks and small
 * letters of the Uthmani script (the real-text corpus, bench/corpus/real-text.ts); alef wasla as alef.
 */
export const typed = (word: string): string =>
  word.replace(/[\u0610-\u061A\u064B-\u065F\u0670\u06D6-\u06DC\u06DF-\u06E8\u06EA-\u06ED\u0640]/g, '').replace(/\u0671/g, '\u0627');
