/**
 * The banner of the worker's ESM bundles (the Lambda handlers, the PDF reader): CommonJS dependencies
 * inside an ESM bundle still call `require`, and tesseract.js reads `__dirname` at load (its default
 * worker path, which the engine replaces).
 */
export const commonJsShim =
  "import { createRequire as __bundleCreateRequire } from 'node:module';" +
  "import { dirname as __bundleDirname } from 'node:path';" +
  "import { fileURLToPath as __bundleFileURLToPath } from 'node:url';" +
  'const require = __bundleCreateRequire(import.meta.url);' +
  'const __filename = __bundleFileURLToPath(import.meta.url);' +
  'const __dirname = __bundleDirname(__filename);';

/** The PDF reader process's entry (pdf/reader-child.ts) and its bundle's name beside the handlers. */
export const pdfReaderBundle = { entry: 'ocr-worker/pdf/reader-child.ts', file: 'pdf-reader.mjs' } as const;
