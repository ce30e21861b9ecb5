/**
 * English stemming: the Porter stemmer (M. F. Porter, "An algorithm for suffix stripping",
 * Program 14(3), 1980) as Porter's own reference implementation gives it
 * (tartarus.org/martin/PorterStemmer), which is also what Lucene's PorterStemFilter and the
 * published test vocabulary (voc.txt → output.txt) follow. That implementation differs from the
 * paper in three documented places, kept here so our stems match every other Porter stemmer:
 * step 2 has BLI → BLE (the paper: ABLI → ABLE) and an extra LOGI → LOG, and words of one or two
 * letters are left alone. No dependency: no well-kept stemmer is installed, and the algorithm is short.
 *
 * Works on lowercase a–z only; the caller (analysis.ts) sends nothing else.
 */

/** A consonant is a letter other than a e i o u, and other than a y that follows a consonant. */
function isConsonant(word: string, i: number): boolean {
  switch (word[i]) {
    case 'a':
    case 'e':
    case 'i':
    case 'o':
    case 'u':
      return false;
    case 'y':
      return i === 0 || !isConsonant(word, i - 1);
    default:
      return true;
  }
}

/** m, the measure: how many vowel-consonant sequences the stem has ([C](VC)^m[V]). */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i++;
    m++;
  }
  return m;
}

/** *v*: the stem contains a vowel. */
function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** *d: the stem ends with a double consonant. */
function endsDoubleConsonant(stem: string): boolean {
  const n = stem.length;
  return n >= 2 && stem[n - 1] === stem[n - 2] && isConsonant(stem, n - 1);
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y (hop, not hoop or snow). */
function endsCvc(stem: string): boolean {
  const n = stem.length;
  if (n < 3) return false;
  if (!isConsonant(stem, n - 1) || isConsonant(stem, n - 2) || !isConsonant(stem, n - 3)) return false;
  const last = stem[n - 1];
  return last !== 'w' && last !== 'x' && last !== 'y';
}

type Rule = readonly [suffix: string, replacement: string];

/**
 * A step's rules: the longest suffix that matches is the one used, and when its condition fails
 * on the stem, the step does nothing (no shorter suffix is tried): so "cement" keeps its "ment".
 */
function applyLongest(word: string, rules: readonly Rule[], condition: (stem: string) => boolean): string {
  let best: Rule | undefined;
  for (const rule of rules) {
    if (word.endsWith(rule[0]) && (best === undefined || rule[0].length > best[0].length)) best = rule;
  }
  if (best === undefined) return word;
  const stem = word.slice(0, word.length - best[0].length);
  return condition(stem) ? stem + best[1] : word;
}

const step2Rules: readonly Rule[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'], // departure: the paper has abli → able
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'], // departure: not in the paper
];

const step3Rules: readonly Rule[] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];

const step4Suffixes = [
  ...['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment'],
  ...['ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'],
];
const step4Rules: readonly Rule[] = step4Suffixes.map((suffix) => [suffix, ''] as const);

const positiveMeasure = (stem: string): boolean => measure(stem) > 0;

function step1a(word: string): string {
  return applyLongest(
    word,
    [
      ['sses', 'ss'],
      ['ies', 'i'],
      ['ss', 'ss'],
      ['s', ''],
    ],
    () => true,
  );
}

function step1b(word: string): string {
  if (word.endsWith('eed')) return measure(word.slice(0, -3)) > 0 ? word.slice(0, -1) : word;
  let stem: string;
  if (word.endsWith('ed') && hasVowel(word.slice(0, -2))) stem = word.slice(0, -2);
  else if (word.endsWith('ing') && hasVowel(word.slice(0, -3))) stem = word.slice(0, -3);
  else return word;
  // Tidying after -ed/-ing: conflat(ed) → conflate, hopp(ing) → hop, fil(ing) → file.
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return stem + 'e';
  if (endsDoubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return stem + 'e';
  return stem;
}

function step1c(word: string): string {
  return word.endsWith('y') && hasVowel(word.slice(0, -1)) ? word.slice(0, -1) + 'i' : word;
}

function step4(word: string): string {
  return applyLongest(word, step4Rules, (stem) => {
    if (measure(stem) <= 1) return false;
    // -ion goes only after s or t (adoption → adopt, but not onion-like stems).
    return !word.endsWith('ion') || stem.endsWith('s') || stem.endsWith('t');
  });
}

function step5(word: string): string {
  let result = word;
  if (result.endsWith('e')) {
    const stem = result.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) result = stem;
  }
  if (result.endsWith('ll') && measure(result) > 1) result = result.slice(0, -1);
  return result;
}

/** The Porter stem of a lowercase a–z word (never longer than the word). */
export function stemEnglish(word: string): string {
  if (word.length <= 2) return word; // departure: the paper would make "as" into "a"
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = applyLongest(w, step2Rules, positiveMeasure);
  w = applyLongest(w, step3Rules, positiveMeasure);
  w = step4(w);
  return step5(w);
}
