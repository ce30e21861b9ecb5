import { PageError, PageOverLimit, UnreadableFile, type FileBytes } from '../contract.ts';
import { openDocument, type OpenedPdf } from './open.ts';
import { readPdfLayer, readPdfPage } from './page-read.ts';
import type { FromReader, ToReader } from './reader-protocol.ts';

/**
 * The PDF reader process: pdfjs parses and renders the worker's hostile input here, one document,
 * one page at a time, with no credentials and no network of its own (it asks its parent for byte
 * ranges). Its parent kills it when a page runs past its time or memory limit (pdf/reader-process.ts).
 */
const send = (message: FromReader) => process.send!(message);
const reads = new Map<number, { resolve(data: Uint8Array): void; reject(error: Error): void }>();
let nextRead = 0;
let pdf: OpenedPdf | undefined;

const parentBytes = (size: number): FileBytes => ({
  size,
  read: (start, end) =>
    new Promise((resolve, reject) => {
      const id = nextRead++;
      reads.set(id, { resolve, reject });
      send({ type: 'read', id, start, end });
    }),
});

async function handle(message: ToReader): Promise<void> {
  if (message.type === 'bytes') {
    const pending = reads.get(message.id);
    reads.delete(message.id);
    if (message.data) pending?.resolve(message.data);
    else pending?.reject(new Error('read failed'));
    return;
  }
  try {
    if (message.type === 'open') {
      pdf = await openDocument(parentBytes(message.size), { maxPages: message.maxPages, rangeChunkSize: message.rangeChunkSize });
      send({ type: 'opened', pageCount: pdf.doc.numPages });
    } else if (message.type === 'layer') {
      send({ type: 'layer', layer: await readPdfLayer(pdf!, message.pageNumber) });
    } else {
      send({ type: 'page', page: await readPdfPage(pdf!, message.pageNumber, message.options) });
    }
  } catch (error) {
    if (error instanceof UnreadableFile || error instanceof PageError) {
      send({ type: 'refused', message: error.message, ...(error instanceof PageOverLimit && { overLimit: true }) });
    }
    else send({ type: 'readFailed' });
  }
}

process.on('message', (message: ToReader) => void handle(message));
// The worker is gone (ended or killed): nothing is left to read for.
process.on('disconnect', () => process.exit(0));
