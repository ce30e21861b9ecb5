import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';
import { PageError, type OcrEngine, type OcrModel, type PageLayout, type Recognized } from '../contract.ts';
import { psmOf, tsvWords } from './tsv.ts';
import { langPathOf } from './models.ts';

/**
 * The OCR engine over tesseract.js (WebAssembly Tesseract 5, no native build): one tesseract worker
 * per model, created on first use, replaced after `pagesPerWorker` pages because its memory only grows
 * (see docs/ocr-worker.md, "The reference OCR worker", for the numbers), and killed on a page that runs past its time limit (a running
 * recognition cannot be interrupted any other way); the next page gets a fresh one.
 */
export interface TesseractEngineOptions {
  /** Pages one tesseract worker reads before it is replaced. */
  pagesPerWorker?: number;
  /** Default per-page time limit. */
  timeoutMs?: number;
  /** tesseract.js's worker script; default its own in node_modules (a Lambda bundle ships its own). */
  workerPath?: string;
}

export const enginePageDefaults = { pagesPerWorker: 50, timeoutMs: 60_000 } as const;

/** What a user reads when a page fails in the engine. */
export const engineErrors = {
  timeout: (ms: number) => `This page took longer than ${seconds(ms)} to read and was skipped.`,
  failed: 'This page could not be read by the text recognizer.',
} as const;

const seconds = (ms: number): string => (ms <= 1000 ? '1 second' : `${Math.ceil(ms / 1000)} seconds`);

interface Slot {
  worker?: Promise<Worker>;
  pages: number;
  /** Pages of one model are read one after another: a page's time limit starts when its turn does. */
  queue: Promise<unknown>;
  /** The layout the worker is set to read with. */
  layout: PageLayout;
}

export function createTesseractEngine(options: TesseractEngineOptions = {}): OcrEngine {
  const pagesPerWorker = options.pagesPerWorker ?? enginePageDefaults.pagesPerWorker;
  const defaultTimeout = options.timeoutMs ?? enginePageDefaults.timeoutMs;
  const slots = new Map<OcrModel, Slot>();
  let closed = false;

  const slotOf = (model: OcrModel): Slot => {
    let slot = slots.get(model);
    if (!slot) slots.set(model, (slot = { pages: 0, queue: Promise.resolve(), layout: 'auto' }));
    return slot;
  };

  const retire = (slot: Slot): void => {
    const worker = slot.worker;
    slot.worker = undefined;
    slot.pages = 0;
    slot.layout = 'auto';
    // A worker that failed to start has nothing to end.
    void worker?.then((w) => w.terminate()).catch(() => undefined);
  };

  const read = async (slot: Slot, model: OcrModel, png: Buffer, timeoutMs: number, layout: PageLayout): Promise<Recognized> => {
    if (closed) throw new Error('The OCR engine is closed');
    if (slot.worker && slot.pages >= pagesPerWorker) retire(slot);
    slot.worker ??= startWorker(model, options.workerPath);
    let worker: Worker;
    try {
      worker = await slot.worker;
    } catch (error) {
      slot.worker = undefined;
      throw error;
    }
    slot.pages++;
    if (slot.layout !== layout) {
      await worker.setParameters({ tessedit_pageseg_mode: psmOf(layout) as PSM });
      slot.layout = layout;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new PageError(engineErrors.timeout(timeoutMs))), timeoutMs);
    });
    try {
      // The TSV as native tesseract writes it: the words' confidences, in the text's order.
      const { data } = await Promise.race([worker.recognize(png, {}, { text: true, tsv: true }), timeout]);
      return { text: data.text, confidence: data.confidence, words: tsvWords(data.tsv ?? '') };
    } catch (error) {
      // After a timeout or a crash the worker's state is unknown: replace it.
      retire(slot);
      throw error instanceof PageError ? error : new PageError(engineErrors.failed, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    // The greyscale PGM: tesseract.js reads it about a third faster than the page's PNG.
    reads: 'grey',
    recognize(png, model, opts) {
      const slot = slotOf(model);
      const result = slot.queue.then(() => read(slot, model, png, opts?.timeoutMs ?? defaultTimeout, opts?.layout ?? 'auto'));
      slot.queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      closed = true;
      const workers = [...slots.values()].map((s) => s.worker);
      slots.clear();
      await Promise.all(workers.map((w) => w?.then((x) => x.terminate()).catch(() => undefined)));
    },
  };
}

/** A tesseract worker for one model: data from the npm package, never a CDN, never written to disk. */
async function startWorker(model: OcrModel, workerPath: string | undefined): Promise<Worker> {
  const worker = await createWorker(model, OEM.LSTM_ONLY, {
    ...(workerPath !== undefined && { workerPath }),
    langPath: langPathOf(model),
    cacheMethod: 'none',
    gzip: true,
    // Errors reach the caller through the rejected promise; without this handler tesseract.js throws them again.
    errorHandler: () => undefined,
  });
  // Automatic layout, not tesseract.js's single-block default: on a two-column Arabic page single
  // block read across the columns (CER 0.62 against 0.06), and it doubled the error on a noisy page.
  await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO });
  return worker;
}
