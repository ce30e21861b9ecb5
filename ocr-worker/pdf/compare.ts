/**
 * Text compared as a reader sees it: NFKC (presentation forms and ligatures to base letters),
 * no tashkeel or tatweel (optional in print, and OCR drops them), one space for any whitespace.
 */
export function comparable(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u064B-\u065F\u0670\u0640]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Character error rate of `text` against `reference`: edit distance over the reference's length (code points). */
export function characterErrorRate(reference: string, text: string): number {
  const a = [...comparable(reference)];
  const b = [...comparable(text)];
  if (a.length === 0) return b.length === 0 ? 0 : 1;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + cost));
    }
    row = next;
  }
  return row[b.length]! / a.length;
}
