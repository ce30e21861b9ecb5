import type { FileBytes, OcrEngine, OcrModel, PageSource, SourcePage } from '../contract.ts';
import { PageError } from '../contract.ts';
import { pdfLimits } from './limits.ts';
import { openDocument, type OpenedPdf } from './open.ts';
import { renderPage, type CanvasFactory, type RenderedPage } from './render.ts';
import { layerItems, textFromItems } from './text-layer.ts';
import { checkSampleAgainstOcr, normalizeLayer, textLayerProblem, type SampleVerdict } from './trust.ts';

export interface PdfOptions {
  maxPages?: number;
  dpi?: number;
  maxPixels?: number;
  renderTimeoutMs?: number;
  /** Bytes per range read (default pdfLimits.rangeChunkSize). */
  rangeChunkSize?: number;
  /**
   * Whether pages may give their text layer instead of OCR. Absent: never (every page is OCRed).
   * `{ engine, model }`: decided once, on the first page read, by checking a sample page against OCR.
   * `{ trusted }`: decided already (by the job, for the page workers it fans out to).
   */
  textLayer?: { engine: OcrEngine; model: OcrModel } | { trusted: boolean };
}

/** One page read: its image and its repaired text layer, with what is wrong with that layer if anything. */
interface ReadPage extends RenderedPage {
  layer: string;
  problem: string | undefined;
}

/** How many leading pages may serve as the sample (a cover or a blank first page has no text). */
const samplePages = 3;

/** A PDF read page by page through range reads (see FileBytesTransport). */
export class PdfPageSource implements PageSource {
  readonly format = 'pdf' as const;
  readonly pageCount: number;
  #verdict: Promise<SampleVerdict | undefined> | undefined;
  readonly #cached = new Map<number, ReadPage>();

  constructor(
    private readonly pdf: OpenedPdf,
    private readonly options: PdfOptions,
  ) {
    this.pageCount = pdf.doc.numPages;
  }

  /** Bytes read from the file so far. */
  get bytesRead(): number {
    return this.pdf.transport.bytesRead;
  }

  async page(pageNumber: number): Promise<SourcePage> {
    const verdict = await this.textLayerVerdict();
    const read = this.#cached.get(pageNumber) ?? (await this.read(pageNumber));
    this.#cached.delete(pageNumber);
    const textLayer = verdict?.trusted && read.problem === undefined ? read.layer : undefined;
    return { png: read.png, grey: read.grey, width: read.width, height: read.height, ...(textLayer !== undefined && { textLayer }) };
  }

  /**
   * The document's text layer decision (undefined when no layer is to be used): the first of the
   * leading pages with a sound layer is checked against OCR, once; no sound layer there, no trust.
   */
  textLayerVerdict(): Promise<SampleVerdict | undefined> {
    this.#verdict ??= this.decide();
    return this.#verdict;
  }

  private async decide(): Promise<SampleVerdict | undefined> {
    const policy = this.options.textLayer;
    if (!policy) return undefined;
    if ('trusted' in policy) return { trusted: policy.trusted, pageNumber: 0, cer: Number.NaN };
    for (let n = 1; n <= Math.min(samplePages, this.pageCount); n++) {
      let read: ReadPage;
      try {
        read = await this.read(n);
      } catch (error) {
        if (error instanceof PageError) continue;
        throw error;
      }
      if (read.problem !== undefined) continue;
      this.#cached.set(n, read); // read once: the job asks for this page next
      return checkSampleAgainstOcr({ pageNumber: n, image: read.grey, textLayer: read.layer }, policy.engine, policy.model);
    }
    return { trusted: false, pageNumber: 0, cer: Number.NaN };
  }

  /** One page's image and text layer; a page pdfjs cannot parse or render is a PageError for that page only. */
  async read(pageNumber: number): Promise<ReadPage> {
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > this.pageCount) {
      throw new RangeError(`Page ${pageNumber} is not in 1..${this.pageCount}`);
    }
    const { doc, failed } = this.pdf;
    const page = await Promise.race([doc.getPage(pageNumber), failed]).catch((error: unknown) => {
      throw this.pageError(error, `Page ${pageNumber} could not be read`);
    });
    try {
      const content = await Promise.race([page.getTextContent(), failed]).catch(() => ({ items: [] }));
      const layer = normalizeLayer(textFromItems(layerItems(content.items)));
      const rendered = await Promise.race([
        renderPage(page, pageNumber, {
          canvasFactory: doc.canvasFactory as CanvasFactory,
          dpi: this.options.dpi ?? pdfLimits.dpi,
          maxPixels: this.options.maxPixels ?? pdfLimits.maxPixels,
          timeoutMs: this.options.renderTimeoutMs ?? pdfLimits.renderTimeoutMs,
        }),
        failed,
      ]).catch((error: unknown) => {
        throw this.pageError(error, `Page ${pageNumber} could not be rendered`);
      });
      return { ...rendered, layer, problem: textLayerProblem(layer) };
    } finally {
      page.cleanup(); // pdfjs keeps a page's fonts and images until told
    }
  }

  /** A file read failure stays what it is (the job may retry); anything else is this page's error. */
  private pageError(error: unknown, message: string): Error {
    if (error instanceof PageError) return error;
    if (this.pdf.failedWith !== undefined) return this.pdf.failedWith as Error;
    return new PageError(`${message}: ${(error as Error)?.message ?? String(error)}`);
  }

  async close(): Promise<void> {
    this.#cached.clear();
    await this.pdf.doc.loadingTask.destroy();
  }
}

/** Opens a PDF for reading page by page; an unreadable file (encrypted, damaged, over the page cap) is an UnreadableFile. */
export async function openPdf(bytes: FileBytes, options: PdfOptions = {}): Promise<PdfPageSource> {
  return new PdfPageSource(
    await openDocument(bytes, {
      ...(options.maxPages !== undefined && { maxPages: options.maxPages }),
      ...(options.rangeChunkSize !== undefined && { rangeChunkSize: options.rangeChunkSize }),
    }),
    options,
  );
}
