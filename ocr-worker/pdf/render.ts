import type { Canvas } from '@napi-rs/canvas';
import { PageError, PageOverLimit, type SourcePage } from '../contract.ts';
import { pageImages } from '../files/page-image.ts';
import { pdfjs } from './pdfjs.ts';
import { scanImages } from './scan-image.ts';

type PdfPage = Awaited<ReturnType<pdfjs.PDFDocumentProxy['getPage']>>;
type DomCanvas = Parameters<PdfPage['render']>[0]['canvas'];

/** pdfjs's canvas factory (typed `Object` by pdfjs). */
export interface CanvasFactory {
  create(width: number, height: number): { canvas: unknown };
  destroy(canvasAndContext: { canvas: unknown; context: unknown }): void;
}

export interface RenderOptions {
  /**
   * pdfjs's own canvas factory: pdfjs-dist depends on its own copy of @napi-rs/canvas, and its
   * drawing (Path2D, ImageData) only works on canvases of that copy.
   */
  canvasFactory: CanvasFactory;
  dpi: number;
  maxPixels: number;
  /** Time left for the render; past it the render is cancelled. */
  timeoutMs: number;
  /** The page's whole time limit, as users read it in the page's error (default `timeoutMs`). */
  limitMs?: number;
}

export interface RenderedPage extends Pick<SourcePage, 'png' | 'grey' | 'readPng' | 'width' | 'height'> {
  /** The resolution used: `dpi`, or lower when the page at `dpi` would pass `maxPixels`. */
  dpi: number;
}

/** The dpi that renders a page of `widthPt` × `heightPt` points within `maxPixels`. */
export function dpiWithin(widthPt: number, heightPt: number, dpi: number, maxPixels: number): number {
  const pixelsAt = (d: number) => ((widthPt * d) / 72) * ((heightPt * d) / 72);
  return pixelsAt(dpi) <= maxPixels ? dpi : Math.floor(dpi * Math.sqrt(maxPixels / pixelsAt(dpi)) * 100) / 100;
}

/**
 * One page on white as its PNG and grey images (files/page-image.ts): a scan's page from its one picture when
 * it is nothing more (pdf/scan-image.ts), else drawn through @napi-rs/canvas (the canvas pdfjs itself uses in Node).
 * The time limit cancels the render task: pdfjs checks for cancellation between slices of drawing
 * operations, so a slow page stops at the next slice; a single operation that never returns (one
 * pathological image decode) is bounded by the job runner's process, not here.
 */
export async function renderPage(page: PdfPage, pageNumber: number, options: RenderOptions): Promise<RenderedPage> {
  const base = page.getViewport({ scale: 1 });
  const dpi = dpiWithin(base.width, base.height, options.dpi, options.maxPixels);
  const viewport = page.getViewport({ scale: dpi / 72 });
  const width = Math.floor(viewport.width);
  const height = Math.floor(viewport.height);
  if (!(width >= 1 && height >= 1)) throw new PageError(`Page ${pageNumber} has no area to render`);

  const started = Date.now();
  const overTime = () => new PageOverLimit(`Page ${pageNumber} took longer than ${(options.limitMs ?? options.timeoutMs) / 1000} s to render`);
  let stop: NodeJS.Timeout | undefined;
  const scan = await Promise.race([
    scanImages(page, { width, height }),
    new Promise<never>((_, failed) => {
      stop = setTimeout(() => failed(overTime()), options.timeoutMs);
    }),
  ])
    .catch((error: unknown) => {
      if (error instanceof PageError) throw error;
      throw new PageError(`Page ${pageNumber} could not be rendered: ${(error as Error).message}`);
    })
    .finally(() => clearTimeout(stop));
  if (scan) return { ...scan, dpi };

  const { canvas } = options.canvasFactory.create(width, height);
  const task = page.render({ canvas: canvas as DomCanvas, viewport, background: 'white' });
  const timer = setTimeout(() => task.cancel(), Math.max(0, options.timeoutMs - (Date.now() - started)));
  try {
    await task.promise;
    // A render whose last slice ran past the limit before the timer could cancel it is over it too.
    if (Date.now() - started > options.timeoutMs) throw overTime();
  } catch (error) {
    if (error instanceof PageError) throw error;
    if (error instanceof pdfjs.RenderingCancelledException) throw overTime();
    throw new PageError(`Page ${pageNumber} could not be rendered: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
  // pdfjs types its canvas as the DOM's; in Node it is an @napi-rs/canvas Canvas.
  const images = pageImages(canvas as unknown as Canvas);
  options.canvasFactory.destroy({ canvas, context: null }); // frees the pixels now, not at the next GC
  return { ...images, dpi };
}
