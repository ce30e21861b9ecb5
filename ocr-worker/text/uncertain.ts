import { maxUncertainRanges, type UncertainRange } from '../../lib/ocr/pages/page.ts';
import type { Word } from '../contract.ts';

/**
 * The words of a page a proofreader should look at (issue 33): those the engine read under
 * `uncertainBelow`, as `[start, end)` ranges of the page's FINAL text (after the Arabic clean-up), each
 * a whole whitespace-separated word. The engine's words come in the order of its text (its TSV and its
 * text list the same words in the same order), but the clean-up changes, and drops, some of them, so
 * each word is matched to a word of the final text by a key the clean-up does not change (its letters
 * and digits), skipping the words it dropped. A range is always a whole word of the text it indexes,
 * whatever the matching finds.
 */

/**
 * Below this a word is uncertain. On the Arabic evaluation set (36 pages, 1,529 words, 12.9% wrong;
 * `npx tsx ocr-worker/text/evaluate-uncertain.ts`, 2026-11-27) a bar of 70 marks 13.7% of the words,
 * two thirds of them wrong, and 69% of the wrong words; the unmarked are 4.6% wrong. 60 marked 55% of
 * the wrong words, 80 marked one word in five with under 54% of them wrong.
 */
export const uncertainBelow = 70;

/** Marks the reader never prints (bidi controls) and what the clean-up rewrites (punctuation, digit forms, the ya before hamza). */
const invisible = /[\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069]/gu;
const notLetterOrDigit = /[^\p{L}\p{M}\p{N}]/gu;

/** A word's letters and digits, in one digit form: what the clean-up leaves of it. */
export function wordKey(word: string): string {
  return word
    .replace(invisible, '')
    .replace(notLetterOrDigit, '')
    .replace(/[\u0660-\u0669]/gu, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06F0-\u06F9]/gu, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/\u0649/gu, '\u064A');
}

/** The whitespace-separated words of a text, with where each starts and ends. */
export function textWords(text: string): { start: number; end: number; key: string }[] {
  return [...text.matchAll(/\S+/gu)].map((m) => ({ start: m.index, end: m.index + m[0].length, key: wordKey(m[0]) }));
}

/** How far ahead a dropped or added word is looked for. */
const lookahead = 4;

/** Each engine word's matching word of the text (an index into `tokens`), or -1 when it has none (the clean-up dropped it). */
export function matchWords(words: readonly Word[], tokens: readonly { key: string }[]): number[] {
  const matched = Array.from({ length: words.length }, () => -1);
  const keys = words.map((w) => wordKey(w.text));
  let i = 0;
  let j = 0;
  const ahead = (from: number, until: number, is: (n: number) => boolean) => {
    for (let n = from; n < until; n++) if (is(n)) return n;
    return -1;
  };
  while (i < words.length && j < tokens.length) {
    if (keys[i] === tokens[j]!.key) {
      matched[i++] = j++;
      continue;
    }
    const word = ahead(i + 1, Math.min(words.length, i + 1 + lookahead), (n) => keys[n] === tokens[j]!.key);
    const token = ahead(j + 1, Math.min(tokens.length, j + 1 + lookahead), (n) => tokens[n]!.key === keys[i]);
    if (word >= 0 && (token < 0 || word - i <= token - j)) i = word; // the words between were dropped
    else if (token >= 0) j = token; // the text has words the engine's list has not: left unmarked
    else matched[i++] = j++; // the same word, changed by the clean-up
  }
  return matched;
}

/**
 * The uncertain words of `text` as ranges, in text order: each a whole word of `text` matched to an
 * engine word under `below`, at most `cap` of them (the least confident kept).
 */
export function uncertainRanges(text: string, words: readonly Word[], below = uncertainBelow, cap = maxUncertainRanges): UncertainRange[] {
  const tokens = textWords(text);
  const matched = matchWords(words, tokens);
  const lowest = new Map<number, number>();
  matched.forEach((t, i) => {
    const confidence = words[i]!.confidence;
    if (t >= 0 && confidence < below) lowest.set(t, Math.min(confidence, lowest.get(t) ?? Infinity));
  });
  const kept = [...lowest.entries()].sort((a, b) => a[1] - b[1] || a[0] - b[0]).slice(0, cap);
  return kept.map(([t]) => t).sort((a, b) => a - b).map((t) => [tokens[t]!.start, tokens[t]!.end]);
}

/** The ranges that still fit a text cut to `length` characters. */
export const rangesWithin = (ranges: readonly UncertainRange[], length: number): UncertainRange[] => ranges.filter(([, end]) => end <= length);
