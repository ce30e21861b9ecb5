import { tooManyPagesMessage } from '../limits.ts';
import type { FileBytes } from '../contract.ts';
import { UnreadableFile } from '../contract.ts';
import { pdfLimits } from './limits.ts';
import { pdfjs, pdfjsOptions } from './pdfjs.ts';
import { FileBytesTransport } from './range-transport.ts';

/** What users read when a PDF cannot be opened (one place). */
export const pdfErrors = {
  password: 'The PDF is password-protected',
  damaged: 'The PDF is damaged or is not a PDF, and could not be opened',
  tooManyPages: tooManyPagesMessage,
} as const;

export interface OpenedPdf {
  doc: pdfjs.PDFDocumentProxy;
  transport: FileBytesTransport;
  /** Rejects when a range read fails; every later pdfjs call races it (pdfjs itself would wait forever). */
  failed: Promise<never>;
  /** The failed read's error, once one failed. */
  readonly failedWith: unknown;
}

/** Opens the PDF through range reads; a file that cannot be opened is an UnreadableFile with a message for users. */
export async function openDocument(
  bytes: FileBytes,
  { maxPages = pdfLimits.maxPages, rangeChunkSize = pdfLimits.rangeChunkSize }: { maxPages?: number; rangeChunkSize?: number } = {},
): Promise<OpenedPdf> {
  let fail!: (error: unknown) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => {}); // observed by whoever races it
  const initial = await bytes.read(0, Math.min(bytes.size, rangeChunkSize));
  let readError: { error: unknown } | undefined;
  const transport = new FileBytesTransport(bytes, initial, (error) => {
    readError ??= { error };
    fail(error);
  });
  const task = pdfjs.getDocument({
    ...pdfjsOptions,
    range: transport,
    length: bytes.size,
    rangeChunkSize,
    disableAutoFetch: true, // else pdfjs reads the rest of the file in the background
    disableStream: true,
  });
  let doc: pdfjs.PDFDocumentProxy;
  try {
    doc = await Promise.race([task.promise, failed]);
  } catch (error) {
    await task.destroy();
    // A failed read (the bucket, the network) is not the file's fault: it stays an error the job may retry.
    if (readError) throw readError.error;
    throw (error as Error).name === 'PasswordException' ? new UnreadableFile(pdfErrors.password) : new UnreadableFile(pdfErrors.damaged);
  }
  if (doc.numPages > maxPages) {
    await task.destroy();
    throw new UnreadableFile(pdfErrors.tooManyPages(doc.numPages, maxPages));
  }
  return {
    doc,
    transport,
    failed,
    get failedWith() {
      return readError?.error;
    },
  };
}
