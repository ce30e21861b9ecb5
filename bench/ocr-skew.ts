import { createCanvas, loadImage } from '@napi-rs/canvas';
import { PNG } from 'pngjs';
import { imageFor, type OcrEngine } from '../ocr-worker/contract.ts';
import { chosenEngine, createOcrEngine, engineName } from '../ocr-worker/engine/choose-engine.ts';
import { readPage } from '../ocr-worker/engine/read-page.ts';
import { skewOf } from '../ocr-worker/files/deskew.ts';
import { bytesOf, openImage } from '../ocr-worker/files/open-image.ts';
import type { FixtureFont } from '../ocr-worker/fixtures/fonts.ts';
import { renderTextPage } from '../ocr-worker/fixtures/render.ts';
import { corpusCer } from '../ocr-worker/text/cer.ts';
import { runIfMain } from './report.ts';
import { benchLines } from './ocr/texts.ts';

/**
 * Does straightening skewed scans pay (issue 33, ocr-worker/files/deskew.ts)? Arabic A4 book pages at
 * 300 dpi, scanned turned by about 1° and 2° either way (each page a little less than the last), read by
 * the worker's engine as scanned and as the worker reads them (straightened), and unturned pages, which
 * must read the same. Target: straightened no worse than as scanned at every skew, better over all.
 *
 *   npm run bench -- ocr-skew        OCR_SKEW_PAGES=n pages a skew (default 6)
 */
const pagesPerSkew = Number(process.env.OCR_SKEW_PAGES ?? 6);
const skews = [0, -1, 1, -2, 2];

interface SkewRow {
  skew: number;
  pages: number;
  /** Largest gap between the angle found and the page's own. */
  worstFoundOff: number;
  asScanned: { cer: number; cerNoDiacritics: number };
  straightened: { cer: number; cerNoDiacritics: number };
}

export interface SkewReport {
  engine: string;
  rows: SkewRow[];
  all: Pick<SkewRow, 'asScanned' | 'straightened'>;
  ok: boolean;
}

/** The page's images as the file holds it (grey), not straightened: what the engine would read without deskew. */
async function asScanned(png: Buffer): Promise<{ png: Buffer; grey: Buffer; luma: Uint8Array; width: number; height: number }> {
  const image = await loadImage(png);
  const { width, height } = image;
  const canvas = createCanvas(width, height);
  canvas.getContext('2d').drawImage(image, 0, 0);
  const rgba = canvas.data();
  const luma = new Uint8Array(width * height);
  for (let i = 0; i < luma.length; i++) luma[i] = rgba[4 * i]!;
  const data = Buffer.from(luma.buffer);
  return {
    png: PNG.sync.write({ width, height, data } as PNG, { colorType: 0, inputColorType: 0, inputHasAlpha: false }),
    grey: Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii'), data]),
    luma,
    width,
    height,
  };
}

const rates = (pairs: { reference: string; hypothesis: string }[]) => ({ cer: corpusCer(pairs), cerNoDiacritics: corpusCer(pairs, { ignoreDiacritics: true }) });

export async function skewBench(): Promise<SkewReport> {
  const chosen = chosenEngine();
  const engine: OcrEngine = createOcrEngine({}, chosen);
  const pool = benchLines.ar;
  const rows: SkewRow[] = [];
  const allScanned: { reference: string; hypothesis: string }[] = [];
  const allStraight: { reference: string; hypothesis: string }[] = [];
  try {
    for (const skew of skews) {
      const scanned: typeof allScanned = [];
      const straight: typeof allScanned = [];
      let worstFoundOff = 0;
      for (let i = 0; i < pagesPerSkew; i++) {
        const lines = Array.from({ length: 25 }, (_, k) => pool[(i * 37 + k * 7 + skews.indexOf(skew) * 11) % pool.length]!);
        const rotate = skew * (1 - 0.07 * i);
        const font: FixtureFont = i % 2 ? 'noto-naskh' : 'amiri';
        const file = renderTextPage({ lines, font, sizePt: 13 + (i % 2), page: 'a4', noise: { blur: 0.6 + 0.05 * i, speckles: 45, rotate, paper: 0.1, seed: 101 + i } });
        const reference = lines.join('\n');
        const raw = await asScanned(file);
        worstFoundOff = Math.max(worstFoundOff, Math.abs(skewOf(raw.luma, raw.width, raw.height) - rotate));
        const page = await (await openImage(bytesOf(file), 'png')).page(1);
        scanned.push({ reference, hypothesis: (await readPage(engine, imageFor(engine, raw), 'ara')).text });
        straight.push({ reference, hypothesis: (await readPage(engine, imageFor(engine, page), 'ara')).text });
      }
      rows.push({ skew, pages: pagesPerSkew, worstFoundOff, asScanned: rates(scanned), straightened: rates(straight) });
      allScanned.push(...scanned);
      allStraight.push(...straight);
    }
  } finally {
    await engine.close();
  }
  const all = { asScanned: rates(allScanned), straightened: rates(allStraight) };
  // Pages of one skew are few: "no worse" allows a quarter point of noise a skew; over all it must be better.
  const ok = rows.every((r) => r.straightened.cer <= r.asScanned.cer + 0.0025) && all.straightened.cer < all.asScanned.cer;
  return { engine: engineName(chosen), rows, all, ok };
}

export function printSkew(report: SkewReport): void {
  const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
  const cer = (r: { cer: number; cerNoDiacritics: number }) => `${pct(r.cer)} / ${pct(r.cerNoDiacritics)}`;
  console.log(`engine: ${report.engine}; ${pagesPerSkew} Arabic A4 pages a skew; CER with / without diacritics`);
  console.log('| skew | angle found, worst error | as scanned | straightened |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const r of report.rows) console.log(`| ${r.skew}° | ${r.worstFoundOff.toFixed(2)}° | ${cer(r.asScanned)} | ${cer(r.straightened)} |`);
  console.log(`| all | | ${cer(report.all.asScanned)} | ${cer(report.all.straightened)} |`);
  console.log(`${report.ok ? 'ok  ' : 'MISS'} straightened no worse at any skew (+0.25 points), better over all`);
  console.log(JSON.stringify({ bench: 'ocr-skew', ...report }));
}

await runIfMain(import.meta.url, skewBench, printSkew);
