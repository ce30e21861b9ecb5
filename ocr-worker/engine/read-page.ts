import type { UncertainRange } from '../../lib/ocr/pages/page.ts';
import type { OcrEngine, OcrModel, Recognized, RecognizeOptions } from '../contract.ts';
import { uncertainRanges } from '../text/uncertain.ts';
import { otherScriptModel } from '../text/language.ts';
import { cleanArabic } from '../text/cleanup.ts';
import { modelScript } from './models.ts';

/**
 * One page read as a user expects: with the job's model, and when that reads it with low confidence
 * (an English page in an Arabic book, or the reverse), again with the other script's model, keeping
 * the more confident reading. Measured on fixtures: the right model reads a clean page at 79–95
 * mean word confidence, the wrong one at 31–45, so below `retryBelowConfidence` the second reading
 * is worth its time. Noisy vowelled Arabic book pages (the OCR bench) read at 64–79 with the right
 * model: a bar of 70 read 6 of its 18 again with `eng`, never kept (Arabic scans 10.5 → 16.1
 * pages/min/core at 50, CER unchanged). `ara+eng` in one pass is not used: it doubled the error on
 * Arabic pages.
 * Arabic-script text then gets the Arabic clean-up, and the words read under the threshold are
 * marked in the cleaned text (text/uncertain.ts). `image` is the page image the engine reads faster
 * (`imageFor`, OcrEngine.reads), read once or twice.
 */
export const retryBelowConfidence = 50;

export interface PageReading extends Recognized {
  model: OcrModel;
  /** The uncertain words of the final `text`. */
  uncertain: UncertainRange[];
}

export async function readPage(engine: OcrEngine, image: Buffer, model: OcrModel, options?: RecognizeOptions): Promise<PageReading> {
  let best: Recognized & { model: OcrModel } = { ...(await engine.recognize(image, model, options)), model };
  if (best.confidence < retryBelowConfidence) {
    const other = otherScriptModel(model);
    const second = await engine.recognize(image, other, options);
    if (second.confidence > best.confidence) best = { ...second, model: other };
  }
  const text = modelScript[best.model] === 'arabic' ? cleanArabic(best.text, best.model) : best.text;
  return { ...best, text, uncertain: uncertainRanges(text, best.words ?? []) };
}
