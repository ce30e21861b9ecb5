import type { FileBytes, OcrEngine, OcrModel, PageSource } from './contract.ts';
import { formatOf, openImage } from './files/open-image.ts';
import { openPdf } from './pdf/page-source.ts';

/**
 * How a PDF's text layer is decided: checked once against OCR of a sample page (`{ engine, model }`),
 * or already decided by the job (`{ trusted }`, what the page tasks it fans out to carry).
 */
export type TextLayerPolicy = { engine: OcrEngine; model: OcrModel } | { trusted: boolean };

/**
 * A job's file as pages, by its content (magic bytes), never its declared type: a PDF through pdfjs
 * (range reads), any other format as an image. Rejects with UnreadableFile for a file no reader takes.
 */
export async function openSource(bytes: FileBytes, textLayer?: TextLayerPolicy): Promise<PageSource> {
  const format = await formatOf(bytes);
  return format === 'pdf' ? openPdf(bytes, textLayer ? { textLayer } : {}) : openImage(bytes, format);
}
