import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Word } from '../../ocr-worker/contract.ts';
import { cleanArabic } from '../../ocr-worker/text/cleanup.ts';
import { rangesWithin, uncertainBelow, uncertainRanges } from '../../ocr-worker/text/uncertain.ts';

/** The words of the engine's raw text, each with a confidence: what its TSV lists, in the text's order. */
const wordsOf = (raw: string, confidences: readonly number[]): Word[] => (raw.match(/\S+/gu) ?? []).map((text, i) => ({ text, confidence: confidences[i % confidences.length] ?? 90 }));
const marked = (text: string, ranges: [number, number][]) => ranges.map(([s, e]) => text.slice(s, e));

/** Every range lies within the text, on whole words (whitespace or an edge each side, none inside), in order and apart. */
function holdsToWords(text: string, ranges: [number, number][]) {
  let end = 0;
  for (const [s, e] of ranges) {
    expect(Number.isInteger(s) && Number.isInteger(e)).toBe(true);
    expect(s).toBeGreaterThanOrEqual(end);
    expect(e).toBeGreaterThan(s);
    expect(e).toBeLessThanOrEqual(text.length);
    expect(s === 0 || /\s/u.test(text[s - 1]!)).toBe(true);
    expect(e === text.length || /\s/u.test(text[e]!)).toBe(true);
    expect(/\s/u.test(text.slice(s, e))).toBe(false);
    end = e;
  }
}

describe('uncertain words', () => {
  it('marks the words read under the threshold, as ranges of the text', () => {
    const text = 'قال أبو عثمان الجاحظ: الكتاب وعاء';
    const words = wordsOf(text, [95, 95, 40, 90, 69.9, 70]);
    const ranges = uncertainRanges(text, words);
    expect(marked(text, ranges)).toEqual(['عثمان', 'الكتاب']);
    expect(uncertainBelow).toBe(70);
  });

  it('marks the words of the cleaned text: a comma restored, a speck dropped, digits folded, a ya rewritten', () => {
    const raw = '© كتبنا إليكم مرارًاء فلم يصلنا, شىء\nسنة ١3٧٤ ه. .';
    const text = cleanArabic(raw);
    expect(text).toBe('كتبنا إليكم مرارًا، فلم يصلنا، شيء\nسنة ١٣٧٤ ه.');
    // The engine doubted the specks (which the clean-up drops), مرارًاء, يصلنا, and the year.
    const confidence: Record<string, number> = { '©': 10, 'مرارًاء': 50, 'يصلنا,': 60, '١3٧٤': 30, '.': 5 };
    const words = (raw.match(/\S+/gu) ?? []).map((w) => ({ text: w, confidence: confidence[w] ?? 92 }));
    expect(marked(text, uncertainRanges(text, words))).toEqual(['مرارًا،', 'يصلنا،', '١٣٧٤']);
  });

  it('keeps the least confident words when there are more than the cap, in text order', () => {
    const text = 'a b c d e';
    const ranges = uncertainRanges(text, wordsOf(text, [50, 10, 60, 20, 30]), 70, 3);
    expect(marked(text, ranges)).toEqual(['b', 'd', 'e']);
  });

  it('drops the ranges a cut text no longer holds whole', () => {
    expect(rangesWithin([[0, 3], [4, 9], [10, 12]], 9)).toEqual([[0, 3], [4, 9]]);
  });

  it('marks nothing when the engine gave no words', () => {
    expect(uncertainRanges('some text', [])).toEqual([]);
  });
});

describe('uncertain words, for any text and any words (property)', () => {
  // Letters, marks, digits in both forms, the punctuation and specks the clean-up rewrites, spaces and line ends.
  const piece = fc.constantFrom(
    ...'ابتثجحخدرزسشصضطظعغفقكلمنهويىءأإآة'.split(''),
    '\u064B', '\u064E', '\u0650', '٣', '٧', '1', '9', ',', '»', '«', '.', '..', '©', '\u200F', '\u200E', '؟', ' ', ' ', ' ', '\n', '\t',
  );
  const rawText = fc.array(piece, { maxLength: 200 }).map((parts) => parts.join(''));
  const confidences = fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { minLength: 1, maxLength: 30 });

  it('every range lies within the final text, on word boundaries, in order and apart, however the clean-up changed it', () => {
    fc.assert(
      fc.property(rawText, confidences, (raw, conf) => {
        const text = cleanArabic(raw);
        holdsToWords(text, uncertainRanges(text, wordsOf(raw, conf)));
      }),
      { numRuns: 500 },
    );
  });

  it('holds for words that do not match the text at all (an engine whose words and text disagree)', () => {
    fc.assert(
      fc.property(rawText, rawText, confidences, (text, other, conf) => {
        holdsToWords(text, uncertainRanges(text, wordsOf(other, conf)));
      }),
      { numRuns: 300 },
    );
  });

  it('marks exactly the doubted words when the clean-up changed nothing, and never more than the cap', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[ا-ي]{1,6}$/u), { maxLength: 60 }), confidences, fc.integer({ min: 1, max: 10 }), (tokens, conf, cap) => {
        const text = tokens.join(' ');
        const words = wordsOf(text, conf);
        const ranges = uncertainRanges(text, words, uncertainBelow, cap);
        const doubted = words.filter((w) => w.confidence < uncertainBelow).length;
        expect(ranges.length).toBe(Math.min(doubted, cap));
        if (doubted <= cap) expect(marked(text, ranges)).toEqual(words.filter((w) => w.confidence < uncertainBelow).map((w) => w.text));
      }),
      { numRuns: 300 },
    );
  });
});
