import type { OcrEngine } from '../contract.ts';
import { createNativeEngine, nativeTesseract } from './native-engine.ts';
import { createTesseractEngine, type TesseractEngineOptions } from './tesseract-engine.ts';

/** The engines a worker may read with: native tesseract (the `tesseract` 5 command) or tesseract.js (WebAssembly). */
export type EngineKind = 'native' | 'tesseract.js';

/**
 * Which engine reads the pages (issue 33): `OCR_ENGINE` when set (`native` or `tesseract.js`), else
 * native tesseract when the machine has version 5 or later on its PATH (faster on the same models),
 * else tesseract.js, which needs nothing installed.
 */
export function chosenEngine(setting = process.env.OCR_ENGINE): { kind: 'native'; version: string } | { kind: 'tesseract.js' } {
  if (setting !== undefined && setting !== '' && setting !== 'native' && setting !== 'tesseract.js') {
    throw new Error(`OCR_ENGINE is "native" or "tesseract.js", not "${setting}"`);
  }
  if (setting === 'tesseract.js') return { kind: 'tesseract.js' };
  const native = nativeTesseract();
  if (native) return { kind: 'native', version: native.version };
  if (setting === 'native') throw new Error('OCR_ENGINE=native, but no tesseract 5 is on the PATH (Debian: apt-get install tesseract-ocr)');
  return { kind: 'tesseract.js' };
}

/** What `npm start` and the logs say of an engine. */
export const engineName = (chosen: ReturnType<typeof chosenEngine>): string =>
  chosen.kind === 'native' ? `native tesseract ${chosen.version}` : 'tesseract.js (WebAssembly)';

/**
 * A folder holding the native engine's models gunzipped already (`<model>.traineddata`): the container
 * image's, baked at build so that a cold start skips the gunzip (ocr-worker/image/Dockerfile). A model
 * missing there is gunzipped into it. Unset: a folder of the temporary directory.
 */
export const tessdataDirVariable = 'OCR_TESSDATA_DIR';

/** The chosen engine, made. */
export function createOcrEngine(options: TesseractEngineOptions = {}, chosen = chosenEngine()): OcrEngine {
  if (chosen.kind === 'tesseract.js') return createTesseractEngine(options);
  const tessdataDir = process.env[tessdataDirVariable];
  return createNativeEngine({ ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }), ...(tessdataDir && { tessdataDir }) });
}
