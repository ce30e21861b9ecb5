import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OcrModel } from '../contract.ts';

/**
 * Where each model's data lives: the `4.0.0_best_int` folder of its @tesseract.js-data npm package
 * (gzip traineddata, LSTM only; about 10.7% CER on printed Arabic book lines against 13.8% for
 * `4.0.0`). Resolved through the package, so it works from any working directory and in a bundle
 * that keeps node_modules.
 */
export const modelData = '4.0.0_best_int';

/** Each model's script: a page in the other script is read again with the other script's model. */
export const modelScript: Record<OcrModel, 'arabic' | 'latin'> = { ara: 'arabic', fas: 'arabic', urd: 'arabic', eng: 'latin' };

const require = createRequire(import.meta.url);

export function langPathOf(model: OcrModel): string {
  return join(dirname(require.resolve(`@tesseract.js-data/${model}/package.json`)), modelData);
}
