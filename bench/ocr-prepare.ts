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
 * Does the worker's page preparation pay (issue 33)? Straightening a skewed scan (ocr-worker/files/deskew.ts)
 * and evening a shadowed gutter's light (ocr-worker/files/even-light.ts). Arabic A4 book pages at 300 dpi:
 * unturned and in even light; turned by about 1° and 2° either way (each page a little less than the last);
 * with a bound book's gutter shadow (the fixtures' `unevenLight`, half and full strength, the spine on
 * either side). Each page is read by the worker's engine as scanned and as the worker prepares it.
 * Target: prepared no worse than as scanned in any condition (a quarter point of noise allowed), better
 * over all; the plain pages, which need nothing, read the same.
 *
 *   npm run bench -- ocr-prepare        OCR_PREPARE_PAGES=n pages a condition (default 6)
 */
const pagesPerCondition = Number(process.env.OCR_PREPARE_PAGES ?? 6);

interface Condition {
  name: string;
  rotate?: number;
  unevenLight?: number;
}
const conditions: Condition[] = [
  { name: 'plain' },
  { name: 'turned -1°', rotate: -1 },
  { name: 'turned 1°', rotate: 1 },
  { name: 'turned -2°', rotate: -2 },
  { name: 'turned 2°', rotate: 2 },
  { name: 'gutter shadow 0.5', unevenLight: 0.5 },
  { name: 'gutter shadow 1', unevenLight: 1 },
];

interface PrepareRow {
  condition: string;
  pages: number;
  /** Turned pages: the largest gap between the angle found and the page's own. */
  worstFoundOff?: number;
  asScanned: { cer: number; cerNoDiacritics: number };
  prepared: { cer: number; cerNoDiacritics: number };
}

export interface PrepareReport {
  engine: string;
  rows: PrepareRow[];
  all: Pick<PrepareRow, 'asScanned' | 'prepared'>;
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

export async function prepareBench(): Promise<PrepareReport> {
  const chosen = chosenEngine();
  const engine: OcrEngine = createOcrEngine({}, chosen);
  const pool = benchLines.ar;
  const rows: PrepareRow[] = [];
  const allScanned: { reference: string; hypothesis: string }[] = [];
  const allPrepared: { reference: string; hypothesis: string }[] = [];
  try {
    for (const [c, condition] of conditions.entries()) {
      const scanned: typeof allScanned = [];
      const prepared: typeof allScanned = [];
      let worstFoundOff = 0;
      for (let i = 0; i < pagesPerCondition; i++) {
        const lines = Array.from({ length: 25 }, (_, k) => pool[(i * 37 + k * 7 + c * 11) % pool.length]!);
        const rotate = (condition.rotate ?? 0) * (1 - 0.07 * i);
        const font: FixtureFont = i % 2 ? 'noto-naskh' : 'amiri';
        const noise = { blur: 0.6 + 0.05 * i, speckles: 45, rotate, paper: 0.1, seed: 101 + i, ...(condition.unevenLight && { unevenLight: condition.unevenLight, gutter: i % 2 ? ('left' as const) : ('right' as const) }) };
        const file = renderTextPage({ lines, font, sizePt: 13 + (i % 2), page: 'a4', noise });
        const reference = lines.join('\n');
        const raw = await asScanned(file);
        if (condition.rotate) worstFoundOff = Math.max(worstFoundOff, Math.abs(skewOf(raw.luma, raw.width, raw.height) - rotate));
        const page = await (await openImage(bytesOf(file), 'png')).page(1);
        scanned.push({ reference, hypothesis: (await readPage(engine, imageFor(engine, raw), 'ara')).text });
        prepared.push({ reference, hypothesis: (await readPage(engine, imageFor(engine, page), 'ara')).text });
      }
      rows.push({ condition: condition.name, pages: pagesPerCondition, ...(condition.rotate && { worstFoundOff }), asScanned: rates(scanned), prepared: rates(prepared) });
      allScanned.push(...scanned);
      allPrepared.push(...prepared);
    }
  } finally {
    await engine.close();
  }
  const all = { asScanned: rates(allScanned), prepared: rates(allPrepared) };
  const ok = rows.every((r) => r.prepared.cer <= r.asScanned.cer + 0.0025) && all.prepared.cer < all.asScanned.cer;
  return { engine: engineName(chosen), rows, all, ok };
}

export function printPrepare(report: PrepareReport): void {
  const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
  const cer = (r: { cer: number; cerNoDiacritics: number }) => `${pct(r.cer)} / ${pct(r.cerNoDiacritics)}`;
  console.log(`engine: ${report.engine}; ${pagesPerCondition} Arabic A4 pages a condition; CER with / without diacritics`);
  console.log('| condition | skew found, worst error | as scanned | prepared |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const r of report.rows) console.log(`| ${r.condition} | ${r.worstFoundOff === undefined ? '' : `${r.worstFoundOff.toFixed(2)}°`} | ${cer(r.asScanned)} | ${cer(r.prepared)} |`);
  console.log(`| all | | ${cer(report.all.asScanned)} | ${cer(report.all.prepared)} |`);
  console.log(`${report.ok ? 'ok  ' : 'MISS'} prepared no worse in any condition (+0.25 points), better over all`);
  console.log(JSON.stringify({ bench: 'ocr-prepare', ...report }));
}

await runIfMain(import.meta.url, prepareBench, printPrepare);
