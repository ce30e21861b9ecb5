// pdfjs-dist ships no types for its worker module; the worker only needs to be loaded.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
