/**
 * Measures the engine on this machine: init time per model, time per A4 300 dpi page (Arabic and
 * English), and the process's resident memory over many pages with and without recycling.
 *
 *   npx tsx ocr-worker/engine/measure-engine.ts [pages=50]
 */
import { createTesseractEngine } from './tesseract-engine.ts';
import { renderTextPage } from '../fixtures/render.ts';
import { arabicLines, englishLines } from '../fixtures/texts.ts';

const pages = Number(process.argv[2] ?? 50);
const fill = (lines: readonly string[], n: number): string[] => Array.from({ length: n }, (_, i) => lines[i % lines.length]!);
const arabicA4 = renderTextPage({ lines: fill(arabicLines, 22), font: 'amiri', page: 'a4', noise: 'light' });
const englishA4 = renderTextPage({ lines: fill(englishLines, 30), font: 'noto-serif', page: 'a4', sizePt: 11, noise: 'light' });
const tiny = { ara: renderTextPage({ lines: ['كتاب'], font: 'amiri' }), eng: renderTextPage({ lines: ['book'], font: 'noto-serif' }) };
const mb = (): number => Math.round(process.memoryUsage().rss / 1024 / 1024);
const seconds = async (f: () => Promise<unknown>): Promise<number> => {
  const t = performance.now();
  await f();
  return (performance.now() - t) / 1000;
};

{
  const engine = createTesseractEngine();
  for (const model of ['ara', 'eng'] as const) {
    const first = await seconds(() => engine.recognize(tiny[model], model));
    const again = await seconds(() => engine.recognize(tiny[model], model));
    console.log(`${model}: init ≈ ${(first - again).toFixed(2)} s (first tiny page ${first.toFixed(2)} s, next ${again.toFixed(2)} s)`);
  }
  const times = { ara: [] as number[], eng: [] as number[] };
  for (let i = 0; i < 3; i++) {
    times.ara.push(await seconds(() => engine.recognize(arabicA4, 'ara')));
    times.eng.push(await seconds(() => engine.recognize(englishA4, 'eng')));
  }
  const median = (xs: number[]): string => xs.sort((a, b) => a - b)[1]!.toFixed(2);
  console.log(`A4 300 dpi page, median of 3: Arabic (22 lines) ${median(times.ara)} s, English (30 lines) ${median(times.eng)} s`);
  await engine.close();
}

for (const pagesPerWorker of [Infinity, 20]) {
  const engine = createTesseractEngine({ pagesPerWorker });
  const before = mb();
  let peak = before;
  for (let i = 0; i < pages; i++) {
    await engine.recognize(arabicA4, 'ara');
    peak = Math.max(peak, mb());
    if ((i + 1) % 10 === 0) console.log(`  recycle ${pagesPerWorker}: after ${i + 1} pages RSS ${mb()} MB`);
  }
  console.log(`pagesPerWorker ${pagesPerWorker}: RSS ${before} MB before, ${mb()} MB after ${pages} Arabic A4 pages, peak ${peak} MB`);
  await engine.close();
}
