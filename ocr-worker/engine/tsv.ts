import type { PageLayout, Word } from '../contract.ts';

/**
 * Tesseract's TSV output, which both engines give: its words (level 5, text not blank) with their
 * confidences, in the order of its text output.
 */
export function tsvWords(tsv: string): Word[] {
  const words: Word[] = [];
  // The command's TSV opens with a header, tesseract.js's does not: only level-5 rows are read.
  for (const line of tsv.split('\n')) {
    const cells = line.split('\t');
    if (cells[0] !== '5' || cells.length < 12 || cells[11]!.trim() === '') continue;
    const confidence = Number(cells[10]);
    if (!Number.isFinite(confidence) || confidence < 0) continue;
    words.push({ text: cells[11]!.trim(), confidence });
  }
  return words;
}

/** A page's confidence: the mean of its words', as tesseract's own MeanTextConf and tesseract.js's `confidence` take it; 0 for a page with no words. */
export const meanConfidence = (words: readonly Word[]): number => (words.length === 0 ? 0 : words.reduce((sum, w) => sum + w.confidence, 0) / words.length);

/** Tesseract's page segmentation mode for a layout: automatic (3), or the page as one block of text (6). */
export const psmOf = (layout: PageLayout = 'auto'): '3' | '6' => (layout === 'single-block' ? '6' : '3');
