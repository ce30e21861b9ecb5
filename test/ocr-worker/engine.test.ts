import { afterAll, describe, expect, it } from 'vitest';
import { PageError } from '../../ocr-worker/contract.ts';
import { readPage } from '../../ocr-worker/engine/read-page.ts';
import { createTesseractEngine } from '../../ocr-worker/engine/tesseract-engine.ts';
import { renderTextPage } from '../../ocr-worker/fixtures/render.ts';
import { arabicLines, englishLines } from '../../ocr-worker/fixtures/texts.ts';
import { cer } from '../../ocr-worker/text/cer.ts';
import { modelFor } from '../../ocr-worker/text/language.ts';

// Small pages (a few lines at A4 width): OCR is slow on shared machines.
const arabic = arabicLines.slice(9, 12);
const english = englishLines.slice(0, 3);
const arabicPage = renderTextPage({ lines: arabic, font: 'noto-naskh', noise: 'light' });
const englishPage = renderTextPage({ lines: english, font: 'noto-serif' });

const engine = createTesseractEngine({ pagesPerWorker: 2 });
afterAll(() => engine.close());

describe('reading pages', { timeout: 120_000 }, () => {
  it('reads an Arabic page in an Arabic job (CER under 8%)', async () => {
    const page = await readPage(engine, arabicPage, modelFor('ar'));
    expect(page.model).toBe('ara');
    expect(cer(arabic.join('\n'), page.text)).toBeLessThan(0.08);
  });

  it('reads an English page in an Arabic job as English', async () => {
    const page = await readPage(engine, englishPage, modelFor('ar-EG'));
    expect(page.model).toBe('eng');
    expect(cer(english.join('\n'), page.text)).toBeLessThan(0.03);
  });

  it('reads an Arabic page in an English job as Arabic', async () => {
    const page = await readPage(engine, arabicPage, modelFor('en'));
    expect(page.model).toBe('ara');
    expect(cer(arabic.join('\n'), page.text)).toBeLessThan(0.08);
  });

  it('keeps reading after its workers are replaced (every 2 pages here)', async () => {
    for (let i = 0; i < 3; i++) expect(cer(english.join('\n'), (await engine.recognize(englishPage, 'eng')).text)).toBeLessThan(0.03);
  });

  it('fails a page past its time limit with a page error, and reads the next page', async () => {
    await expect(engine.recognize(arabicPage, 'ara', { timeoutMs: 1 })).rejects.toThrow(PageError);
    await expect(engine.recognize(arabicPage, 'ara', { timeoutMs: 1 })).rejects.toThrow('This page took longer than 1 second to read and was skipped.');
    const page = await engine.recognize(arabicPage, 'ara');
    expect(cer(arabic.join('\n'), page.text)).toBeLessThan(0.1);
  });
});
