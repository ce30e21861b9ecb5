import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowance, isFiled, maxVariants, ocrDistance, skeleton, variantKeys, variantsOf } from '../../../lib/search/ocr-variants.ts';

/** A word's OCR variants (lib/search/ocr-variants.ts): the distance, the keys that find them, the choice. */

/** Letters OCR confuses and letters it does not, so random words meet both. */
const letters = ['ب', 'ت', 'ث', 'ن', 'ي', 'ج', 'ح', 'خ', 'ع', 'غ', 'ف', 'ق', 'س', 'ش', 'ا', 'ل', 'م', 'ك', 'ه', 'و', 'ؤ', 'ء', 'ر', 'ز'];
const word = (min = 1, max = 9) => fc.array(fc.constantFrom(...letters), { minLength: min, maxLength: max }).map((cs) => cs.join(''));

/** Optimal string alignment with every edit costing 1, written plainly: the reference the weighted one must not exceed. */
function plainOsa(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const d = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[x.length]![y.length]!;
}

/** One OCR slip: a letter of another shape, one missing, one added, or two swapped. */
const slip = (w: string) =>
  fc.record({ kind: fc.constantFrom('sub', 'del', 'ins', 'swap'), at: fc.nat(20), letter: fc.constantFrom(...letters) }).map(({ kind, at, letter }) => {
    const cs = [...w];
    const i = at % (cs.length + (kind === 'ins' ? 1 : 0));
    if (kind === 'sub') cs[i] = letter;
    if (kind === 'del') cs.splice(i, 1);
    if (kind === 'ins') cs.splice(i, 0, letter);
    if (kind === 'swap' && i + 1 < cs.length) [cs[i], cs[i + 1]] = [cs[i + 1]!, cs[i]!];
    return cs.join('');
  });
/** Letters replaced by others of their shape (dots, hamza seats). */
const confusions = (w: string) =>
  fc.array(fc.nat(20), { maxLength: 3 }).map((at) => {
    const cs = [...w];
    const same: Record<string, string> = { ب: 'ت', ت: 'ث', ث: 'ن', ن: 'ي', ي: 'ب', ج: 'خ', ح: 'ج', خ: 'ح', ع: 'غ', غ: 'ع', ف: 'ق', ق: 'ف', س: 'ش', ش: 'س', و: 'ؤ', ؤ: 'و', ر: 'ز', ز: 'ر' };
    for (const i of at) if (cs.length > 0) cs[i % cs.length] = same[cs[i % cs.length]!] ?? cs[i % cs.length]!;
    return cs.join('');
  });

describe('ocrDistance', () => {
  it('is 0 for equal words, symmetric, and between half and all of the plain edit distance', () => {
    fc.assert(
      fc.property(word(0), word(0), (a, b) => {
        const d = ocrDistance(a, b);
        expect(ocrDistance(a, a)).toBe(0);
        expect(ocrDistance(b, a)).toBe(d);
        expect(d).toBeLessThanOrEqual(plainOsa(a, b));
        expect(d).toBeGreaterThanOrEqual(plainOsa(a, b) / 2);
        expect(d === 0).toBe(a === b);
      }),
    );
  });

  it('costs a confusion of shape half an edit: the issue’s misreads', () => {
    expect(ocrDistance('المغضوب', 'المعضوب')).toBe(0.5); // غ for ع: dots
    expect(ocrDistance('يمشي', 'يمثي')).toBe(1); // ش for ث: another shape
    expect(ocrDistance('تكفونا', 'تكفوناء')).toBe(1); // a comma read as ء
    expect(ocrDistance('دمعته', 'معدته')).toBe(2);
    expect(ocrDistance('سؤال', 'سوال')).toBe(0.5); // hamza seat
  });

  it('stops past its limit, answering Infinity, and otherwise the distance', () => {
    fc.assert(
      fc.property(word(0), word(0), fc.constantFrom(0, 0.5, 1, 1.5, 2), (a, b, limit) => {
        const d = ocrDistance(a, b);
        expect(ocrDistance(a, b, limit)).toBe(d <= limit ? d : Infinity);
      }),
    );
  });
});

describe('variantKeys', () => {
  it('finds every word within a typed word’s allowance: the two share a key', () => {
    const slipped = word(3, 10).chain((typed) => confusions(typed).chain((c) => fc.oneof(fc.constant(c), slip(c)).chain((s) => confusions(s).map((found) => ({ typed, found })))));
    fc.assert(
      fc.property(slipped, ({ typed, found }) => {
        fc.pre(isFiled(found) && ocrDistance(typed, found) <= allowance(typed));
        const keys = new Set(variantKeys(typed));
        expect(variantKeys(found).some((k) => keys.has(k)), `${typed} / ${found}`).toBe(true);
      }),
      { numRuns: 3_000 },
    );
  });

  it('files no word under three letters or over 24, nor one without a letter; keys are the skeleton and its one-letter-out forms from four letters', () => {
    expect(variantKeys('في')).toEqual([]);
    expect(variantKeys('1234')).toEqual([]);
    expect(variantKeys('ب'.repeat(25))).toEqual([]);
    expect(variantKeys('قال')).toEqual([skeleton('قال')]);
    expect(skeleton('قال')).toBe(skeleton('فال'));
    expect(variantKeys('كتاب')).toEqual([skeleton('كتاب'), ...new Set(['تاب', 'كاب', 'كتب', 'كتا'].map(skeleton))]);
  });
});

describe('variantsOf', () => {
  it('keeps the candidates within the allowance, nearest first then in UTF-8 order, at most maxVariants, never the word itself', () => {
    fc.assert(
      fc.property(word(1), fc.array(word(1), { maxLength: 30 }), (typed, candidates) => {
        const found = variantsOf(typed, [...candidates, typed]);
        expect(found).not.toContain(typed);
        expect(found.length).toBeLessThanOrEqual(maxVariants);
        const distances = found.map((f) => ocrDistance(typed, f));
        for (const d of distances) expect(d).toBeLessThanOrEqual(allowance(typed));
        expect(distances).toEqual([...distances].sort((a, b) => a - b));
        const within = new Set(candidates.filter((c) => c !== typed && ocrDistance(typed, c) <= allowance(typed)));
        expect(found.length).toBe(Math.min(maxVariants, within.size));
      }),
    );
    expect(variantsOf('المغضوب', ['المعضوب', 'المغضوبة', 'الغضوب', 'كتاب'])).toEqual(['المعضوب', 'الغضوب', 'المغضوبة']);
    expect(variantsOf('في', ['فى', 'قي'])).toEqual([]);
  });
});
