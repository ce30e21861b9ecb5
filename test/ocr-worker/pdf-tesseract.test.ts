import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createWorker, OEM } from 'tesseract.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OcrEngine } from '../../ocr-worker/contract.ts';
import { memoryBytes } from '../../ocr-worker/fixtures/bytes.ts';
import { bornDigitalPdf } from '../../ocr-worker/fixtures/pdf.ts';
import { characterErrorRate } from '../../ocr-worker/pdf/compare.ts';
import { openPdf } from '../../ocr-worker/pdf/page-source.ts';
import { checkSampleAgainstOcr, textLayerRules } from '../../ocr-worker/pdf/trust.ts';

const lines = ['كان يا ما كان في قديم الزمان مدينة جميلة', 'وفي المدينة مكتبة كبيرة فيها كتب كثيرة'];
const text = lines.join('\n');

// A tiny adapter over tesseract.js (the worker's engine module is written elsewhere): the npm data, nothing cached to disk.
let worker: Awaited<ReturnType<typeof createWorker>>;
const engine: OcrEngine = {
  reads: 'grey',
  recognize: async (png) => {
    const { data } = await worker.recognize(png);
    return { text: data.text, confidence: data.confidence };
  },
  close: async () => {},
};

beforeAll(async () => {
  const langPath = join(dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/ara/package.json')), '4.0.0_best_int');
  worker = await createWorker('ara', OEM.LSTM_ONLY, { langPath, cacheMethod: 'none', gzip: true });
}, 60_000);
afterAll(async () => worker?.terminate());

describe('the text layer checked against OCR of a sample page (tesseract.js, ara)', () => {
  it('trusts the layer of a born-digital Arabic PDF, which equals the source text', async () => {
    const source = await openPdf(memoryBytes(await bornDigitalPdf({ pages: [lines], language: 'ar' })), { textLayer: { engine, model: 'ara' } });
    const page = await source.page(1);
    const verdict = await source.textLayerVerdict();
    console.info(`sample page CER, layer vs OCR: ${verdict?.cer.toFixed(3)}`);
    expect(verdict?.trusted).toBe(true);
    expect(page.textLayer).toBe(text);

    // The same page with the layer in the wrong order is refused by the same rule.
    const read = await source.read(1);
    const wordsReversed = lines.map((l) => l.split(' ').reverse().join(' ')).join('\n');
    const charsReversed = lines.map((l) => [...l].reverse().join('')).join('\n');
    for (const [name, layer] of [['words reversed', wordsReversed], ['characters reversed', charsReversed]] as const) {
      const bad = await checkSampleAgainstOcr({ pageNumber: 1, image: read.grey, textLayer: layer }, engine, 'ara');
      console.info(`sample page CER, ${name} vs OCR: ${bad.cer.toFixed(3)}`);
      expect(bad.trusted).toBe(false);
      expect(bad.cer).toBeGreaterThan(textLayerRules.maxSampleCer);
    }
    expect(characterErrorRate(text, page.textLayer!)).toBe(0);
    await source.close();
  }, 60_000);
});
