// Stands in for node-fetch in the OCR worker's bundle: tesseract.js falls back to it only where
// there is no global fetch, and every Node this project runs on has one.
module.exports = globalThis.fetch;
