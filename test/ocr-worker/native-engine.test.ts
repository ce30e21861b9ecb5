import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PageError } from '../../ocr-worker/contract.ts';
import { chosenEngine, createOcrEngine, engineName, tessdataDirVariable } from '../../ocr-worker/engine/choose-engine.ts';
import { createNativeEngine, meanWordConfidence, nativeTesseract, tessdataWith } from '../../ocr-worker/engine/native-engine.ts';
import { readPage } from '../../ocr-worker/engine/read-page.ts';
import { createTesseractEngine } from '../../ocr-worker/engine/tesseract-engine.ts';
import { renderTextPage } from '../../ocr-worker/fixtures/render.ts';
import { arabicLines, englishLines } from '../../ocr-worker/fixtures/texts.ts';
import { cer } from '../../ocr-worker/text/cer.ts';
import { modelFor } from '../../ocr-worker/text/language.ts';

describe('the native engine’s parts', () => {
  it('takes a page’s confidence as the mean of its words’, leaving out blocks, lines and blank words', () => {
    const header = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
    const row = (level: number, conf: number, text: string) => [level, 1, 1, 1, 1, 1, 0, 0, 10, 10, conf, text].join('\t');
    expect(meanWordConfidence([header, row(1, -1, ''), row(4, -1, ''), row(5, 90, 'كتب'), row(5, 60, 'قال'), row(5, 95, ' ')].join('\n'))).toBe(75);
    expect(meanWordConfidence(header)).toBe(0);
    expect(meanWordConfidence('')).toBe(0);
  });

  it('gunzips a model from its npm package once, whole, with nothing left beside it', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'tessdata-test-')), 'models');
    try {
      expect(tessdataWith('eng', dir)).toBe(dir);
      const size = statSync(join(dir, 'eng.traineddata')).size;
      expect(tessdataWith('eng', dir)).toBe(dir);
      expect(readdirSync(dir)).toEqual(['eng.traineddata']);
      expect(statSync(join(dir, 'eng.traineddata')).size).toBe(size);
      expect(size).toBeGreaterThan(1_000_000);
    } finally {
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });

  it('finds no native tesseract where there is no such command', () => {
    expect(nativeTesseract('/nonexistent/tesseract')).toBeUndefined();
  });

  it('reads with the engine OCR_ENGINE names, native tesseract when installed, and refuses a name it does not know', () => {
    expect(chosenEngine('tesseract.js')).toEqual({ kind: 'tesseract.js' });
    expect(engineName(chosenEngine('tesseract.js'))).toBe('tesseract.js (WebAssembly)');
    const installed = nativeTesseract();
    if (installed) {
      expect(chosenEngine(undefined)).toEqual({ kind: 'native', version: installed.version });
      expect(engineName(chosenEngine('native'))).toBe(`native tesseract ${installed.version}`);
    } else {
      expect(chosenEngine(undefined)).toEqual({ kind: 'tesseract.js' });
      expect(() => chosenEngine('native')).toThrow('OCR_ENGINE=native, but no tesseract 5 is on the PATH');
    }
    expect(() => chosenEngine('fast')).toThrow('OCR_ENGINE is "native" or "tesseract.js", not "fast"');
  });
});

// Run where tesseract 5 is installed (CI installs Debian's tesseract-ocr); elsewhere tesseract.js is the engine.
const native = nativeTesseract();
const arabic = arabicLines.slice(9, 12);
const english = englishLines.slice(0, 3);

describe.runIf(native)('native tesseract against tesseract.js on the same pages', { timeout: 180_000 }, () => {
  const arabicPage = renderTextPage({ lines: arabic, font: 'noto-naskh', noise: 'light' });
  const englishPage = renderTextPage({ lines: english, font: 'noto-serif' });
  const engines = { native: createNativeEngine(), wasm: createTesseractEngine() };
  afterAll(async () => {
    await engines.native.close();
    await engines.wasm.close();
  });

  it('reads an Arabic page and an English page within the same error bound as tesseract.js, with confidence', async () => {
    for (const [name, engine] of Object.entries(engines)) {
      const ar = await readPage(engine, arabicPage, modelFor('ar'));
      expect([name, ar.model]).toEqual([name, 'ara']);
      expect(cer(arabic.join('\n'), ar.text), name).toBeLessThan(0.08);
      expect(ar.confidence, name).toBeGreaterThan(60);
      const en = await readPage(engine, englishPage, modelFor('ar'));
      expect([name, en.model]).toEqual([name, 'eng']);
      expect(cer(english.join('\n'), en.text), name).toBeLessThan(0.03);
    }
    // The same model and layout: the two read the page alike.
    const [a, b] = await Promise.all([engines.native.recognize(arabicPage, 'ara'), engines.wasm.recognize(arabicPage, 'ara')]);
    expect(Math.abs(cer(arabic.join('\n'), a.text) - cer(arabic.join('\n'), b.text))).toBeLessThan(0.03);
    expect(Math.abs(a.confidence - b.confidence)).toBeLessThan(10);
  });

  it('gives each word’s confidence, and marks the doubted words of the final (cleaned) text on whole words, with either engine', async () => {
    const noisy = renderTextPage({ lines: arabicLines.slice(0, 6), font: 'noto-naskh', noise: { blur: 0.9, speckles: 80, rotate: 0.6, paper: 0.15, seed: 7 } });
    for (const [name, engine] of Object.entries(engines)) {
      const raw = await engine.recognize(noisy, 'ara');
      expect(raw.words!.length, name).toBeGreaterThan(20);
      expect(raw.words!.map((w) => w.text).join(' '), name).toBe(raw.text.split(/\s+/u).filter(Boolean).join(' '));
      const read = await readPage(engine, noisy, 'ara');
      expect(read.uncertain.length, name).toBeGreaterThan(0);
      for (const [start, end] of read.uncertain) {
        expect(end, name).toBeLessThanOrEqual(read.text.length);
        expect(start === 0 || /\s/u.test(read.text[start - 1]!), name).toBe(true);
        expect(end === read.text.length || /\s/u.test(read.text[end]!), name).toBe(true);
      }
    }
  });

  it('reads with the layout asked for: single-block (psm 6) reads straight across two columns, automatic (psm 3) column by column', async () => {
    const lines = arabicLines.slice(0, 8);
    const columns = renderTextPage({ lines, font: 'noto-naskh', columns: 2 });
    for (const [name, engine] of Object.entries(engines)) {
      // Single block, then automatic, then single block again: the engine's setting follows each reading.
      for (const [layout, worse] of [['single-block', true], ['auto', false], ['single-block', true]] as const) {
        const error = cer(lines.join('\n'), (await engine.recognize(columns, 'ara', { layout })).text);
        expect(error > 0.3, `${name} ${layout} ${error}`).toBe(worse);
      }
    }
  });

  it('gives every page its own reading when its process has read others before it, or reads beside others at once', async () => {
    const columns = renderTextPage({ lines: arabicLines.slice(0, 8), font: 'noto-naskh', columns: 2 });
    const pages = [
      { image: arabicPage, model: 'ara', layout: 'auto' },
      { image: englishPage, model: 'eng', layout: 'auto' },
      { image: columns, model: 'ara', layout: 'single-block' },
      { image: columns, model: 'ara', layout: 'auto' },
    ] as const;
    // Each page alone, in an engine of its own: the reading a long-lived process must match.
    const alone: string[] = [];
    for (const p of pages) {
      const fresh = createNativeEngine();
      alone.push((await fresh.recognize(p.image, p.model, { layout: p.layout })).text);
      await fresh.close();
    }
    const engine = createNativeEngine({ pagesPerProcess: 3 });
    try {
      const inTurn = [];
      for (const p of [...pages, ...pages]) inTurn.push((await engine.recognize(p.image, p.model, { layout: p.layout })).text);
      expect(inTurn).toEqual([...alone, ...alone]);
      const atOnce = await Promise.all([...pages, ...pages].map((p) => engine.recognize(p.image, p.model, { layout: p.layout })));
      expect(atOnce.map((r) => r.text)).toEqual([...alone, ...alone]);
    } finally {
      await engine.close();
    }
  });

  it('fails a page past its time limit, and one that is no image, with page errors, and reads the next page', async () => {
    await expect(engines.native.recognize(arabicPage, 'ara', { timeoutMs: 1 })).rejects.toThrow('This page took longer than 1 second to read and was skipped.');
    await expect(engines.native.recognize(Buffer.from('not an image'), 'ara')).rejects.toThrow(PageError);
    await expect(engines.native.recognize(Buffer.from('not an image'), 'ara')).rejects.toThrow('This page could not be read by the text recognizer.');
    expect(cer(english.join('\n'), (await engines.native.recognize(englishPage, 'eng')).text)).toBeLessThan(0.03);
  });

  it('reads with the models of the folder OCR_TESSDATA_DIR names (the container image’s), gunzipping there one it lacks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessdata-env-'));
    const before = process.env[tessdataDirVariable];
    process.env[tessdataDirVariable] = dir;
    const engine = createOcrEngine({}, { kind: 'native', version: native!.version });
    try {
      expect(cer(english.join('\n'), (await engine.recognize(englishPage, 'eng')).text)).toBeLessThan(0.03);
      expect(readdirSync(dir)).toEqual(['eng.traineddata']);
    } finally {
      await engine.close();
      if (before === undefined) delete process.env[tessdataDirVariable];
      else process.env[tessdataDirVariable] = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
