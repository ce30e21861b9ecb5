import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import * as pdfjsWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import { pdfLimits } from './limits.ts';

/**
 * pdfjs in Node: the legacy build (Node 20), with no worker thread. In Node pdfjs runs its "fake
 * worker" in this thread and would `import('./pdf.worker.mjs')` by path at first use; handing it the
 * module here keeps that import visible to the Lambda bundler. Parsing and rendering therefore share
 * this thread: the job runner's pool gives parallelism, and its process or thread bounds a runaway page.
 */
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = pdfjsWorker;

export { pdfjs };

const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const folder = (name: string) => join(root, name) + '/';

/**
 * Everything pdfjs could fetch, from the npm package's own folders (never the network): the 14
 * standard fonts, CMaps for CJK fonts, the wasm decoders (JPEG 2000, colour profiles).
 * No system fonts (a Lambda has none, and results must not depend on the machine); no eval.
 */
export const pdfjsOptions = {
  standardFontDataUrl: folder('standard_fonts'),
  cMapUrl: folder('cmaps'),
  cMapPacked: true,
  wasmUrl: folder('wasm'),
  iccUrl: folder('iccs'),
  useSystemFonts: false,
  isEvalSupported: false,
  // An image that declares more pixels than a page may have is left out before it is decoded.
  maxImageSize: pdfLimits.maxImagePixels,
  verbosity: 0, // errors only: a malformed file's warnings are not the worker's news
} as const;
