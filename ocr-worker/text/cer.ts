/**
 * Character error rate: the Levenshtein distance between reference and hypothesis, over Unicode code
 * points, divided by the reference's length. Both sides are NFC-normalized and their whitespace
 * runs (line breaks included) folded to one space first: layout is not what the rate measures.
 * The bench reports it with and without diacritics (`ignoreDiacritics`).
 */
export interface CerOptions {
  /** Drop Arabic diacritics (harakat, tanwin, shadda, sukun, superscript alef) from both sides first. */
  ignoreDiacritics?: boolean;
}

const arabicDiacritics = /[\u064B-\u065F\u0670]/gu;

export function normalizeForCer(text: string, options: CerOptions = {}): string[] {
  let t = text.normalize('NFC');
  if (options.ignoreDiacritics) t = t.replace(arabicDiacritics, '');
  return [...t.replace(/\s+/gu, ' ').trim()];
}

/** Edit distance between two code-point arrays (two rows, O(n·m) time). */
export function editDistance(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Errors per reference character (0 = identical; can pass 1 when the hypothesis is much longer). */
export function cer(reference: string, hypothesis: string, options: CerOptions = {}): number {
  const ref = normalizeForCer(reference, options);
  const hyp = normalizeForCer(hypothesis, options);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  return editDistance(ref, hyp) / ref.length;
}

/** The rate over a set of pages: total errors over total reference characters (not a mean of rates). */
export function corpusCer(pairs: readonly { reference: string; hypothesis: string }[], options: CerOptions = {}): number {
  let errors = 0;
  let length = 0;
  for (const { reference, hypothesis } of pairs) {
    const ref = normalizeForCer(reference, options);
    errors += editDistance(ref, normalizeForCer(hypothesis, options));
    length += ref.length;
  }
  return length === 0 ? 0 : errors / length;
}
