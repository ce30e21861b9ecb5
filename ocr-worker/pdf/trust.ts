import type { OcrEngine, OcrModel } from '../contract.ts';
import { characterErrorRate } from './compare.ts';

/**
 * When a PDF's text layer may stand in for OCR. Per page, without OCR: present, no presentation
 * forms left after NFKC, no mass of unreadable characters, Arabic in logical order. Per document,
 * once: the repaired layer of a sample page against OCR of that page.
 */
export const textLayerRules = {
  /** Fewer letters than this and the page is read by OCR (a scan, a title page, a figure). */
  minLetters: 20,
  /** Share of characters that may be presentation forms, replacement, control or private-use characters, or letters of other scripts. */
  maxBadShare: 0.01,
  /**
   * The sample page's layer is trusted when OCR of the page differs from it by at most this
   * character error rate. OCR of a clean 300-dpi rendering errs by 0-10% (0.00 on the test's
   * Amiri page; about 0.11 on real printed book lines); a layer in the wrong order differs by far
   * more (test/ocr-worker/pdf-tesseract.test.ts: words reversed 0.71, characters reversed 0.76).
   */
  maxSampleCer: 0.25,
} as const;

/**
 * The text after the repairs that need no layout: NFKC folds presentation forms and ligatures; bidi
 * marks go; no space before a combining mark (pdfjs puts one where a vowelled word's marks are
 * positioned apart from their letters: `تَم َّ`: on the OCR bench's vowelled born-digital pages CER 3.43% → 0.80%).
 */
export function normalizeLayer(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/g, '')
    .replace(/[^\S\n]+(?=\p{M})/gu, '')
    .replace(/[^\S\n]+/g, ' ')
    .trim();
}

// Letters a book in the supported languages is written in; others in bulk mean a broken font mapping.
const expectedLetter = /[\p{Script=Arabic}\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Hebrew}]/u;
const presentationForm = /[\uFB50-\uFDFF\uFE70-\uFEFF]/u;
// U+FFFD, controls other than line breaks and tabs (\p{Cc}), the private use areas (\p{Co}).
const unreadable = /[\uFFFD\p{Co}]|(?![\n\t])\p{Cc}/u;

/** Why a page's (normalized) text layer cannot stand in for OCR, or undefined when it can. */
export function textLayerProblem(text: string): string | undefined {
  const chars = [...text];
  const letters = chars.filter((ch) => /\p{L}/u.test(ch)).length;
  if (letters < textLayerRules.minLetters) return 'no text layer';
  const bad = chars.filter((ch) => presentationForm.test(ch) || unreadable.test(ch) || (/\p{L}/u.test(ch) && !expectedLetter.test(ch))).length;
  if (bad > textLayerRules.maxBadShare * chars.length) return 'unreadable characters';
  if (looksReversed(text)) return 'Arabic in visual order';
  return undefined;
}

/**
 * Arabic read backwards gives itself away: the article ال opens a quarter of the words and ة, ى
 * only end them; reversed, words end in لا and open with ة or ى.
 */
function looksReversed(text: string): boolean {
  const words = text.split(/[^\p{Script=Arabic}]+/u).filter((w) => w.length >= 3);
  let logical = 0;
  let reversed = 0;
  for (const w of words) {
    if (w.startsWith('ال')) logical++;
    if (/[ةى]$/u.test(w)) logical++;
    if (w.endsWith('لا')) reversed++;
    if (/^[ةى]/u.test(w)) reversed++;
  }
  return reversed >= 3 && reversed > logical;
}

export interface SampleVerdict {
  trusted: boolean;
  /** The sample page, and the character error rate between its layer and OCR of it. */
  pageNumber: number;
  cer: number;
}

/** The per-document check: one page's text layer against OCR of the same page. */
export async function checkSampleAgainstOcr(
  sample: { pageNumber: number; image: Buffer; textLayer: string },
  engine: OcrEngine,
  model: OcrModel,
): Promise<SampleVerdict> {
  const { text } = await engine.recognize(sample.image, model);
  const cer = characterErrorRate(sample.textLayer, text);
  return { trusted: cer <= textLayerRules.maxSampleCer, pageNumber: sample.pageNumber, cer };
}
