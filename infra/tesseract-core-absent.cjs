// Stands in, in the OCR worker's Lambda bundle, for the tesseract.js cores it does not ship
// (infra/ocr-worker-bundle.ts): the bundle holds the one core its runtime loads.
throw new Error(
  'This OCR worker bundle ships one tesseract.js core, and this runtime asked for another: rebuild it for this runtime (infra/ocr-worker-bundle.ts)',
);
