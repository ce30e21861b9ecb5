import { describe, expect, it } from 'vitest';
import { PageError, PageOverLimit } from '../../ocr-worker/contract.ts';
import * as bombs from '../../ocr-worker/fixtures/bombs.ts';
import { memoryBytes } from '../../ocr-worker/fixtures/bytes.ts';
import { pdfLimits } from '../../ocr-worker/pdf/limits.ts';
import { openPdf, type PdfOptions } from '../../ocr-worker/pdf/page-source.ts';

/**
 * PDF bombs (issue 27): files of a few KB that made the worker's process take gigabytes or minutes.
 * Each page is now read in a reader process that is killed past its time or memory, and images
 * larger than the pixel cap are never decoded: a bomb costs its own page, which becomes a page error,
 * and the worker's process is untouched. Each test prints what the page cost.
 */
interface Outcome {
  /** The page's size when it was read, or its page error. */
  result: string;
  error?: PageError;
  seconds: number;
  readerMb: number;
}

async function readFirstPage(pdf: Uint8Array, options: PdfOptions = {}, { then }: { then?: number } = {}): Promise<Outcome & { next?: string }> {
  const started = Date.now();
  const source = await openPdf(memoryBytes(pdf), options);
  const outcome: Outcome = { result: '', seconds: 0, readerMb: 0 };
  try {
    const page = await source.read(1);
    outcome.result = `${page.width} × ${page.height}`;
  } catch (error) {
    if (!(error instanceof PageError)) throw error;
    outcome.error = error;
    outcome.result = error.message;
  }
  outcome.seconds = (Date.now() - started) / 1000;
  // A page after the bomb is read by a new reader when the bomb killed the last.
  const next = then === undefined ? undefined : await source.read(then).then((p) => `${p.width} × ${p.height}`);
  outcome.readerMb = Math.round(source.peakReaderMemoryMb);
  await source.close();
  console.log(`${(pdf.length / 1024).toFixed(0)} KB: ${outcome.result} in ${outcome.seconds.toFixed(1)} s, reader at most ${outcome.readerMb} MB`);
  return { ...outcome, ...(next !== undefined && { next }) };
}

const a4At300 = '2480 × 3507';

describe('PDF bombs cost their own page, within the reader limits', () => {
  it('an 8000 × 8000 Flate image in 63 KB (1.18 GB before) is left out: the page renders without it', async () => {
    const pdf = await bombs.flateImageBombPdf(8000);
    expect(pdf.length).toBeLessThan(70_000);
    const outcome = await readFirstPage(pdf);
    expect(outcome.result).toBe(a4At300);
    expect(outcome.readerMb).toBeLessThan(600);
  });

  it('a 16000 × 16000 Flate image in 250 KB (3.1 GB and 36 s before) is left out too', async () => {
    const outcome = await readFirstPage(await bombs.flateImageBombPdf(16_000));
    expect(outcome.result).toBe(a4At300);
    expect(outcome.readerMb).toBeLessThan(600);
  });

  it('an image under the pixel cap that needs more memory than the reader may have stops its page at the cap', async () => {
    const outcome = await readFirstPage(await bombs.largeImagePdf(6000, 6000), { sandbox: { maxMemoryMb: 250 } });
    expect(outcome.error).toBeInstanceOf(PageOverLimit);
    expect(outcome.result).toBe('Page 1 needs more than 250 MB of memory to read');
    expect(outcome.readerMb).toBeLessThan(250 + 200); // caught within one poll of the cap
  });

  it('32 MB of path operators in a 65 KB content stream (10 s and 413 MB before) stops at the page time limit; the next page reads', async () => {
    const pdf = await bombs.contentStreamBombPdf(32, 1, { blankPagesAfter: 1 });
    const outcome = await readFirstPage(pdf, { sandbox: { pageTimeoutMs: 2_000 } }, { then: 2 });
    expect(outcome.error).toBeInstanceOf(PageOverLimit);
    expect(outcome.result).toMatch(/^Page 1 took longer than 2 s to (render|read)$/);
    expect(outcome.seconds).toBeLessThan(2 + pdfLimits.openTimeoutMs / 1000 + 3);
    expect(outcome.next).toBe(a4At300);
  });

  it('a JPEG 2000 codestream declaring 60000 × 60000 pixels in four components, in 1.4 KB, stops at the memory cap or is refused', async () => {
    const outcome = await readFirstPage(await bombs.jpxBombPdf(), { sandbox: { maxMemoryMb: 400 } });
    // Either the decoder refuses the image (left out) or the reader is stopped at its cap.
    if (outcome.error) expect(outcome.result).toMatch(/^Page 1 (needs more than 400 MB of memory to read|could not be rendered)/);
    else expect(outcome.result).toBe(a4At300);
    expect(outcome.readerMb).toBeLessThan(400 + 200);
  });

  it('a JBIG2 image whose page declares 200000 × 200000 pixels, in 1.4 KB, costs the reader no more than its cap', async () => {
    const outcome = await readFirstPage(await bombs.jbig2BombPdf(), { sandbox: { maxMemoryMb: 400 } });
    if (outcome.error) expect(outcome.result).toMatch(/^Page 1 (needs more than 400 MB of memory to read|could not be rendered)/);
    else expect(outcome.result).toBe(a4At300);
    expect(outcome.readerMb).toBeLessThan(400 + 200);
  });
});
