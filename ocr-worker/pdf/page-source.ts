import type { FileBytes, OcrEngine, OcrModel, PageSource, SourcePage } from '../contract.ts';
import { imageFor, PageError, UnreadableFile } from '../contract.ts';
import { pdfLimits } from './limits.ts';
import type { RenderedPage } from './render.ts';
import { defaultSandboxLimits, PdfReaderProcess, type SandboxLimits } from './reader-process.ts';
import { checkSampleAgainstOcr, normalizeLayer, textLayerProblem, type SampleVerdict } from './trust.ts';

export interface PdfOptions {
  maxPages?: number;
  dpi?: number;
  maxPixels?: number;
  /** The reader process's limits (pdf/reader-process.ts); default pdfLimits'. */
  sandbox?: Partial<SandboxLimits>;
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

/**
 * A PDF read page by page through range reads, parsed and rendered in a reader process
 * (pdf/reader-process.ts): a page that runs past its time or memory is a page error, and the next
 * page is read by a new process.
 */
export class PdfPageSource implements PageSource {
  readonly format = 'pdf' as const;
  readonly pageCount: number;
  #verdict: Promise<SampleVerdict | undefined> | undefined;
  readonly #cached = new Map<number, ReadPage>();
  #reader: PdfReaderProcess | undefined;
  readonly #limits: SandboxLimits;
  #peakOfEnded = 0;
  #drawn = 0;

  constructor(
    /** The file, counting what the readers asked of it. */
    private readonly bytes: CountedBytes,
    reader: PdfReaderProcess,
    private readonly options: PdfOptions,
  ) {
    this.#reader = reader;
    this.pageCount = reader.pageCount;
    this.#limits = sandboxLimits(options);
  }

  /** The most memory a reader process of this file held, in MB (tests, the bench). */
  get peakReaderMemoryMb(): number {
    return Math.max(this.#peakOfEnded, this.#reader?.peakMemoryMb ?? 0);
  }

  /** Pages drawn so far (read with their image): each page of a job once, the text-layer decision's included (tests, the bench). */
  get pagesDrawn(): number {
    return this.#drawn;
  }

  /** Bytes read from the file so far (the reader asks this process for every byte). */
  get bytesRead(): number {
    return this.bytes.bytesRead;
  }

  async page(pageNumber: number): Promise<SourcePage> {
    const verdict = await this.textLayerVerdict();
    const read = this.#cached.get(pageNumber) ?? (await this.read(pageNumber));
    this.#cached.delete(pageNumber);
    const textLayer = verdict?.trusted && read.problem === undefined ? read.layer : undefined;
    return { png: read.png, grey: read.grey, ...(read.readPng && { readPng: read.readPng }), width: read.width, height: read.height, ...(textLayer !== undefined && { textLayer }) };
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
        // The layer alone first: a scan's pages have none, and drawing them here would only draw them twice.
        if (textLayerProblem(normalizeLayer(await (await this.reader(n)).layer(n, this.#limits))) !== undefined) continue;
        read = await this.read(n);
      } catch (error) {
        if (error instanceof PageError) continue;
        throw error;
      }
      if (read.problem !== undefined) continue;
      this.#cached.set(n, read); // read once: the job asks for this page next
      return checkSampleAgainstOcr({ pageNumber: n, image: imageFor(policy.engine, read), textLayer: read.layer }, policy.engine, policy.model);
    }
    return { trusted: false, pageNumber: 0, cer: Number.NaN };
  }

  /** One page's image and text layer; a page pdfjs cannot parse or render, or that runs past a limit, is a PageError for that page only. */
  async read(pageNumber: number): Promise<ReadPage> {
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > this.pageCount) {
      throw new RangeError(`Page ${pageNumber} is not in 1..${this.pageCount}`);
    }
    const reader = await this.reader(pageNumber);
    this.#drawn++;
    const raw = await reader.page(pageNumber, { dpi: this.options.dpi ?? pdfLimits.dpi, maxPixels: this.options.maxPixels ?? pdfLimits.maxPixels }, this.#limits);
    const layer = normalizeLayer(raw.layer);
    return { ...raw, layer, problem: textLayerProblem(layer) };
  }

  /** The live reader, or a new one when the last was stopped by a page (opening again is this page's fault if it fails). */
  private async reader(pageNumber: number): Promise<PdfReaderProcess> {
    if (this.#reader?.alive) return this.#reader;
    this.#peakOfEnded = this.peakReaderMemoryMb;
    this.#reader?.close();
    this.#reader = undefined;
    try {
      this.#reader = await PdfReaderProcess.open(this.bytes, this.#limits, readerOptions(this.options));
    } catch (error) {
      if (error instanceof UnreadableFile) throw new PageError(`Page ${pageNumber} could not be read: ${error.message}`);
      throw error;
    }
    return this.#reader;
  }

  async close(): Promise<void> {
    this.#cached.clear();
    this.#peakOfEnded = this.peakReaderMemoryMb;
    this.#reader?.close();
    this.#reader = undefined;
  }
}

const readerOptions = (options: PdfOptions) => ({ maxPages: options.maxPages ?? pdfLimits.maxPages, rangeChunkSize: options.rangeChunkSize ?? pdfLimits.rangeChunkSize });

interface CountedBytes extends FileBytes {
  readonly bytesRead: number;
}

function counted(bytes: FileBytes): CountedBytes {
  let bytesRead = 0;
  return {
    size: bytes.size,
    get bytesRead() {
      return bytesRead;
    },
    read: async (start, end) => {
      const chunk = await bytes.read(start, end);
      bytesRead += chunk.length;
      return chunk;
    },
  };
}

const sandboxLimits = (options: PdfOptions): SandboxLimits => ({ ...defaultSandboxLimits, ...options.sandbox });

/** Opens a PDF for reading page by page; an unreadable file (encrypted, damaged, over the page cap, over the reader's limits) is an UnreadableFile. */
export async function openPdf(bytes: FileBytes, options: PdfOptions = {}): Promise<PdfPageSource> {
  const file = counted(bytes);
  return new PdfPageSource(file, await PdfReaderProcess.open(file, sandboxLimits(options), readerOptions(options)), options);
}
