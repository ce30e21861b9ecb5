import type { FileBytes } from '../contract.ts';
import { pdfjs } from './pdfjs.ts';

/**
 * Feeds pdfjs byte ranges of the file on demand (S3 range GETs on AWS) instead of the whole file:
 * with `disableAutoFetch` and `disableStream` pdfjs asks only for the ranges it needs (the trailer,
 * the xref, the page tree, one page's objects).
 *
 * pdfjs keeps the chunks it received in a buffer the size of the file, allocated up front but
 * written only where chunks land (untouched pages of it cost no memory), so memory follows what was
 * read, not the file's size.
 */
export class FileBytesTransport extends pdfjs.PDFDataRangeTransport {
  /** Bytes read so far (tests and logs). */
  bytesRead = 0;

  constructor(
    private readonly bytes: FileBytes,
    initialData: Uint8Array,
    /** A failed read: pdfjs has no error path for range transports, so the owner fails the document. */
    private readonly onError: (error: unknown) => void,
  ) {
    super(bytes.size, initialData);
    this.bytesRead = initialData.length;
  }

  override requestDataRange(begin: number, end: number): void {
    const stop = Math.min(end, this.bytes.size);
    this.bytes.read(begin, stop).then(
      (chunk) => {
        this.bytesRead += chunk.length;
        this.onDataRange(begin, chunk);
      },
      (error: unknown) => this.onError(error),
    );
  }
}
