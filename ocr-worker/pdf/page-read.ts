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
export function readPdfPage(pdf: OpenedPdf, pageNumber: number, options: PageReadOptions): Promise<RawPage> {
  return withPage(pdf, pageNumber, async (page) => {
    const layer = await layerOf(pdf, page);
    const rendered = await Promise.race([
      renderPage(page, pageNumber, {
        canvasFactory: pdf.doc.canvasFactory as CanvasFactory,
        dpi: options.dpi,
        maxPixels: options.maxPixels,
        timeoutMs: Math.max(0, options.deadline - Date.now()),
        limitMs: options.limitMs,
      }),
      pdf.failed,
    ]).catch((error: unknown) => {
      throw pageError(pdf, error, `Page ${pageNumber} could not be rendered`);
    });
    return { ...rendered, layer };
  });
}

/**
 * One page's raw text layer alone, neither drawn nor its pictures decoded (pdfjs's text content skips
 * them): what the text-layer decision looks at first, since a scan's pages have none.
 */
export function readPdfLayer(pdf: OpenedPdf, pageNumber: number): Promise<string> {
  return withPage(pdf, pageNumber, (page) => layerOf(pdf, page));
}

type PdfPage = Awaited<ReturnType<OpenedPdf['doc']['getPage']>>;

async function withPage<T>(pdf: OpenedPdf, pageNumber: number, use: (page: PdfPage) => Promise<T>): Promise<T> {
  const page = await Promise.race([pdf.doc.getPage(pageNumber), pdf.failed]).catch((error: unknown) => {
    throw pageError(pdf, error, `Page ${pageNumber} could not be read`);
  });
  try {
    return await use(page);
  } finally {
    page.cleanup(); // pdfjs keeps a page's fonts and images until told
  }
}

async function layerOf(pdf: OpenedPdf, page: PdfPage): Promise<string> {
  const content = await Promise.race([page.getTextContent(), pdf.failed]).catch(() => ({ items: [] }));
  return textFromItems(layerItems(content.items));
}

/** A file read failure stays what it is (the job may retry); anything else is this page's error. */
function pageError(pdf: OpenedPdf, error: unknown, message: string): Error {
  if (error instanceof PageError) return error;
  if (pdf.failedWith !== undefined) return pdf.failedWith as Error;
  return new PageError(`${message}: ${(error as Error)?.message ?? String(error)}`);
}
