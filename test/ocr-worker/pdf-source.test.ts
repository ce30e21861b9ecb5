import { describe, expect, it } from 'vitest';
import { PageError, UnreadableFile, type OcrEngine } from '../../ocr-worker/contract.ts';
import { memoryBytes } from '../../ocr-worker/fixtures/bytes.ts';
import * as fixtures from '../../ocr-worker/fixtures/pdf.ts';
import { pdfLimits } from '../../ocr-worker/pdf/limits.ts';
import { openPdf } from '../../ocr-worker/pdf/page-source.ts';
import { stalledReadMessage } from '../../ocr-worker/pdf/reader-process.ts';
import { pdfjs, pdfjsOptions } from '../../ocr-worker/pdf/pdfjs.ts';

const arabic = [
  'بسم الله الرحمن الرحيم',
  'كان يا ما كان في قديم الزمان مدينة جميلة',
  'وفي المدينة مكتبة كبيرة فيها كتب كثيرة',
];
const english = ['The quick brown fox jumps over the lazy dog.', 'A library keeps the books of a whole city.'];

/** An engine that reads back what it is told to (the per-document check compares with it). */
const engineReading = (text: string): OcrEngine & { calls: number } => ({
  calls: 0,
  reads: 'grey',
  async recognize() {
    this.calls++;
    return { text, confidence: 90 };
  },
  async close() {},
});

const trustAll = { textLayer: { trusted: true } } as const;

describe('a born-digital PDF gives its text layer, in logical order', () => {
  it('reads Arabic as written, not reversed (the text equals the source)', async () => {
    const engine = engineReading(arabic.join('\n'));
    const source = await openPdf(memoryBytes(await fixtures.bornDigitalPdf({ pages: [arabic], language: 'ar' })), { textLayer: { engine, model: 'ara' } });
    const page = await source.page(1);
    expect(page.textLayer).toBe(arabic.join('\n'));
    expect(await source.textLayerVerdict()).toMatchObject({ trusted: true, pageNumber: 1, cer: 0 });
    expect(engine.calls).toBe(1); // one sample page per document
    await source.page(1);
    expect(engine.calls).toBe(1);
    await source.close();
  });

  it('reads Arabic written word by word, left to right (visual order), in logical order', async () => {
    const pdf = await fixtures.visualOrderArabicPdf({ pages: [arabic] });
    const source = await openPdf(memoryBytes(pdf), trustAll);
    expect((await source.page(1)).textLayer).toBe(arabic.join('\n'));
    await source.close();
  });

  it('reads English', async () => {
    const source = await openPdf(memoryBytes(await fixtures.bornDigitalPdf({ pages: [english], language: 'en' })), trustAll);
    expect((await source.page(1)).textLayer).toBe(english.join('\n'));
    await source.close();
  });

  it('gives no text layer when OCR of the sample page disagrees with it', async () => {
    const engine = engineReading('نص مختلف تماما لا علاقة له بما في طبقة النص');
    const source = await openPdf(memoryBytes(await fixtures.bornDigitalPdf({ pages: [arabic], language: 'ar' })), { textLayer: { engine, model: 'ara' } });
    expect((await source.page(1)).textLayer).toBeUndefined();
    expect((await source.textLayerVerdict())?.trusted).toBe(false);
    await source.close();
  });

  it('gives no text layer without a way to check it', async () => {
    const source = await openPdf(memoryBytes(await fixtures.bornDigitalPdf({ pages: [arabic], language: 'ar' })));
    expect((await source.page(1)).textLayer).toBeUndefined();
    await source.close();
  });

  it("refuses a layer of unmapped glyphs and presentation forms (Skia's PDF backend), without asking OCR", async () => {
    const engine = engineReading(arabic.join('\n'));
    const source = await openPdf(memoryBytes(fixtures.skiaArabicPdf({ pages: [arabic] })), { textLayer: { engine, model: 'ara' } });
    expect((await source.page(1)).textLayer).toBeUndefined();
    expect(engine.calls).toBe(0);
    expect((await source.read(1)).problem).toBe('unreadable characters');
    await source.close();
  });
});

describe('a scanned PDF', () => {
  it('renders each page at 300 dpi as a PNG, with no text layer', async () => {
    const png = fixtures.textPng({ lines: arabic.slice(0, 1), language: 'ar' });
    const source = await openPdf(memoryBytes(await fixtures.scannedPdf([png, png])), trustAll);
    expect(source.format).toBe('pdf');
    expect(source.pageCount).toBe(2);
    const page = await source.page(2);
    expect(page.png.subarray(1, 4).toString()).toBe('PNG');
    expect(page.width).toBe(2480); // the image's own pixels: 300 dpi in, 300 dpi out
    expect(page.textLayer).toBeUndefined();
    await source.close();
  });

  it('reads only the byte ranges it needs, not the whole file', async () => {
    const pngs = Array.from({ length: 12 }, (_, i) => fixtures.textPng({ lines: [`Page ${i + 1} of a scanned book`], language: 'en' }));
    const bytes = memoryBytes(await fixtures.scannedPdf(pngs));
    const rangeChunkSize = 16 * 1024;
    const source = await openPdf(bytes, { rangeChunkSize });
    await source.page(7);
    expect(bytes.bytesRead()).toBeLessThan(bytes.size / 2);
    expect(bytes.reads.every(([start, end]) => end - start <= rangeChunkSize * 4)).toBe(true);
    await source.close();
  });
});

describe('the text-layer decision on a scanned PDF', () => {
  it('finds no layer on the sample pages from their text alone, drawing none of them: a job draws each page once', async () => {
    const pngs = Array.from({ length: 4 }, (_, i) => fixtures.textPng({ lines: [`Page ${i + 1} of a scanned book`, ...english], language: 'en' }));
    const engine = engineReading(english.join('\n'));
    const source = await openPdf(memoryBytes(await fixtures.scannedPdf(pngs)), { textLayer: { engine, model: 'eng' } });
    expect((await source.textLayerVerdict())?.trusted).toBe(false);
    expect(engine.calls).toBe(0);
    expect(source.pagesDrawn).toBe(0);
    for (let n = 1; n <= source.pageCount; n++) {
      const page = await source.page(n);
      expect(page.textLayer).toBeUndefined();
      expect(page.width).toBe(2480);
    }
    expect(source.pagesDrawn).toBe(4);
    await source.close();
  });
});

describe('hostile and broken PDFs', () => {
  const failsWith = async (pdf: Uint8Array | Promise<Uint8Array>, message: string | RegExp) => {
    const error = await openPdf(memoryBytes(await pdf)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableFile);
    expect((error as Error).message).toMatch(message);
  };

  it('a password-protected PDF is unreadable, and says so', async () => {
    await failsWith(fixtures.encryptedPdf(), /^The PDF is password-protected$/);
    // The fixture is a real encrypted file: the password opens it.
    const doc = await pdfjs.getDocument({ ...pdfjsOptions, data: await fixtures.encryptedPdf('secret'), password: 'secret' }).promise;
    expect(doc.numPages).toBe(1);
    await doc.destroy();
  });

  it('a corrupt or truncated PDF is unreadable, and says so', async () => {
    await failsWith(fixtures.corruptPdf(), /^The PDF is damaged or is not a PDF/);
    await failsWith(fixtures.truncatedPdf(await fixtures.bornDigitalPdf({ pages: [arabic, arabic], language: 'ar' })), /^The PDF is damaged/);
  });

  it('a PDF over the page cap fails before any page is read', async () => {
    const pages = pdfLimits.maxPages + 1;
    await failsWith(fixtures.blankPagesPdf(pages), 'The file has 2,001 pages; at most 2,000 pages can be read in one job. Split it and upload the parts.');
  });

  it('a page tree that declares 100,000 pages it does not have opens as the pages it has', async () => {
    const source = await openPdf(memoryBytes(await fixtures.hugePageCountPdf(100_000)));
    expect(source.pageCount).toBe(1); // pdfjs checks the last page and counts the real ones
    await source.close();
  });

  it('a page larger than the pixel cap renders at a lower dpi, within the cap', async () => {
    const source = await openPdf(memoryBytes(await fixtures.hugeMediaBoxPdf()));
    const read = await source.read(1);
    expect(read.width * read.height).toBeLessThanOrEqual(pdfLimits.maxPixels);
    expect(read.dpi).toBeLessThan(40); // 200 inches square
    await source.close();
  });

  it('a page that cannot be read is an error for that page only', async () => {
    const source = await openPdf(memoryBytes(await fixtures.brokenPagePdf([english, english, english])), trustAll);
    expect((await source.page(1)).textLayer).toBe(english.join('\n'));
    await expect(source.page(2)).rejects.toThrow(PageError);
    await expect(source.page(2)).rejects.toThrow(/^Page 2 could not be read/);
    expect((await source.page(1)).textLayer).toBe(english.join('\n')); // the document still reads
    await source.close();
  });

  it('a page over the time limit is an error for that page only', async () => {
    const pdf = await fixtures.bornDigitalPdf({ pages: [arabic, arabic], language: 'ar' });
    const slow = await openPdf(memoryBytes(pdf), { sandbox: { pageTimeoutMs: 0 } });
    await expect(slow.page(1)).rejects.toThrow(/^Page 1 took longer than 0 s to (render|read)$/);
    await slow.close();
    const source = await openPdf(memoryBytes(pdf));
    expect((await source.page(2)).width).toBe(2480);
    await source.close();
  });

  it('a read that never answers fails the page as storage\'s fault (its task is delivered again), and close() settles at once', async () => {
    const pdf = await fixtures.scannedPdf([fixtures.textPng({ lines: ['one'], language: 'en' }), fixtures.textPng({ lines: ['two'], language: 'en' })]);
    const bytes = memoryBytes(pdf);
    let storageDown = false;
    const flaky = { size: bytes.size, read: (start: number, end: number) => (storageDown ? new Promise<Uint8Array>(() => {}) : bytes.read(start, end)) };
    const source = await openPdf(flaky, { rangeChunkSize: 1024, sandbox: { pageTimeoutMs: 1_000 } });
    storageDown = true;
    const error = await source.page(1).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(PageError);
    expect((error as Error).message).toBe(stalledReadMessage);
    await source.close(); // settles (a close that waited on the stalled read would hold the task for ever)
    // Storage back: the same file reads (what the task's next delivery does).
    storageDown = false;
    const again = await openPdf(flaky, { rangeChunkSize: 1024 });
    expect((await again.page(2)).width).toBeGreaterThan(0);
    await again.close();
  });

  it('a failed read of the file is not blamed on the file (the job may retry)', async () => {
    const pdf = await fixtures.scannedPdf([fixtures.textPng({ lines: ['one'], language: 'en' }), fixtures.textPng({ lines: ['two'], language: 'en' })]);
    const bytes = memoryBytes(pdf);
    const failing = { size: bytes.size, read: (start: number, end: number) => (start === 0 ? bytes.read(start, end) : Promise.reject(new Error('S3 timed out'))) };
    const error = await openPdf(failing, { rangeChunkSize: 1024 }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(UnreadableFile);
    expect((error as Error).message).toBe('S3 timed out');
  });
});
