import { PageError } from '../contract.ts';
import type { OpenedPdf } from './open.ts';
import { renderPage, type CanvasFactory, type RenderedPage } from './render.ts';
import { layerItems, textFromItems } from './text-layer.ts';

export interface PageReadOptions {
  dpi: number;
  maxPixels: number;
  /** When the page must be read by (epoch ms): rendering is cancelled at it; the sandbox kills past it. */
  deadline: number;
  /** The page's time limit, for the error users read. */
  limitMs: number;
}

/** One page as read inside the sandbox: its image and its raw text layer (not yet normalized). */
export interface RawPage extends RenderedPage {
  layer: string;
}

/**
 * One page's text layer and image, in the process that parses the file (pdf/reader-child.ts). A page
 * pdfjs cannot parse or render is a PageError; a failed range read rejects with the document's `failed`.
 */
export async function readPdfPage(pdf: OpenedPdf, pageNumber: number, options: PageReadOptions): Promise<RawPage> {
  const { doc, failed } = pdf;
  const page = await Promise.race([doc.getPage(pageNumber), failed]).catch((error: unknown) => {
    throw pageError(pdf, error, `Page ${pageNumber} could not be read`);
  });
  try {
    const content = await Promise.race([page.getTextContent(), failed]).catch(() => ({ items: [] }));
    const layer = textFromItems(layerItems(content.items));
    const rendered = await Promise.race([
      renderPage(page, pageNumber, {
        canvasFactory: doc.canvasFactory as CanvasFactory,
        dpi: options.dpi,
        maxPixels: options.maxPixels,
        timeoutMs: Math.max(0, options.deadline - Date.now()),
        limitMs: options.limitMs,
      }),
      failed,
    ]).catch((error: unknown) => {
      throw pageError(pdf, error, `Page ${pageNumber} could not be rendered`);
    });
    return { ...rendered, layer };
  } finally {
    page.cleanup(); // pdfjs keeps a page's fonts and images until told
  }
}

/** A file read failure stays what it is (the job may retry); anything else is this page's error. */
function pageError(pdf: OpenedPdf, error: unknown, message: string): Error {
  if (error instanceof PageError) return error;
  if (pdf.failedWith !== undefined) return pdf.failedWith as Error;
  return new PageError(`${message}: ${(error as Error)?.message ?? String(error)}`);
}
