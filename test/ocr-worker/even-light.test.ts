import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { imageFor } from '../../ocr-worker/contract.ts';
import { evenLightLimits, evenedLight } from '../../ocr-worker/files/even-light.ts';
import { bytesOf, openImage } from '../../ocr-worker/files/open-image.ts';
import { renderTextPage } from '../../ocr-worker/fixtures/render.ts';
import { lumaOf } from './fixtures/images.ts';

const lines = [
  'قال أبو عثمان الجاحظ: الكتاب وعاء ملئ علما وظرف حشي ظرفا',
  'هل قرأت كتاب الأغاني لأبي الفرج الأصفهاني؟ إنه في أربعة وعشرين جزءا',
  'افتتحت المكتبة الجديدة أبوابها يوم الأحد فأقبل عليها القراء',
  'العلم في الصغر كالنقش على الحجر والعلم في الكبر كالنقش على الماء',
];

/** A scanned page at 150 dpi as luma (as the file holds it). */
const page = () => lumaOf(renderTextPage({ lines: [...lines, ...lines, ...lines], font: 'amiri', dpi: 150, noise: { blur: 0.6, paper: 0.1, seed: 3 } }));

/** The page as a book pressed on the glass scans: darker towards the gutter (the right third), to `darkest` of its light at the edge. */
function shadowed(luma: Uint8Array, width: number, height: number, darkest = 0.4): Uint8Array {
  return luma.map((v, i) => {
    const into = Math.max(0, (i % width) / width - 2 / 3) * 3;
    return Math.round(v * (1 - (1 - darkest) * into * into));
  });
}

const column = (luma: Uint8Array, width: number, height: number, x: number) => Array.from({ length: height }, (_, y) => luma[y * width + x]!);
const brightest = (values: number[]) => Math.max(...values);
const darkestOf = (values: number[]) => Math.min(...values);
const pngOf = (luma: Uint8Array, width: number, height: number) => PNG.sync.write({ width, height, data: Buffer.from(luma) } as PNG, { colorType: 0, inputColorType: 0, inputHasAlpha: false });

describe("evening a page's light for reading", () => {
  it('leaves a page in even light as it is: the same pixels', async () => {
    const { luma, width, height } = await page();
    expect(evenedLight(luma, width, height)).toBe(luma);
  });

  it("brings a shadowed gutter's paper back to the page's paper, its ink still dark, the lit side as it was", async () => {
    const { luma, width, height } = await page();
    const dark = shadowed(luma, width, height);
    const evened = evenedLight(dark, width, height);
    expect(evened).not.toBe(dark);
    const paper = brightest(column(luma, width, height, Math.floor(width / 2)));
    for (const at of [0.8, 0.9, 0.95]) {
      const x = Math.floor(width * at);
      expect(brightest(column(evened, width, height, x))).toBeGreaterThan(paper * 0.8);
      expect(brightest(column(evened, width, height, x))).toBeGreaterThan(brightest(column(dark, width, height, x)));
    }
    expect(brightest(column(dark, width, height, width - 3))).toBeLessThan(paper * 0.5);
    expect(brightest(column(evened, width, height, width - 3))).toBeGreaterThan(paper * 0.65);
    // Ink near the gutter (the Arabic lines start at the right margin) stays ink.
    const inkColumn = Math.floor(width * 0.85);
    expect(darkestOf(column(evened, width, height, inkColumn))).toBeLessThan(paper * 0.5);
    for (let x = 0; x < width / 2; x += 37) expect(column(evened, width, height, x)).toEqual(column(dark, width, height, x));
  });

  it('scales no pixel past its cap, so a dark picture is not washed out to white', () => {
    const width = 400;
    const height = 400;
    const luma = new Uint8Array(width * height).fill(230);
    for (let y = 100; y < 300; y++) for (let x = 100; x < 300; x++) luma[y * width + x] = 40; // a photograph's dark area
    const evened = evenedLight(luma, width, height);
    for (let i = 0; i < luma.length; i++) expect(evened[i]).toBeLessThanOrEqual(Math.min(255, luma[i]! * evenLightLimits.maxGain));
    expect(evened[200 * width + 200]).toBeLessThan(200);
  });

  it('hands the engine the evened page and keeps the page as scanned for readers', async () => {
    const { luma, width, height } = await page();
    const dark = shadowed(luma, width, height);
    const read = await (await openImage(bytesOf(pngOf(dark, width, height)), 'png')).page(1);
    expect(read.readPng).toBeDefined();
    expect((await lumaOf(read.png)).luma).toEqual(dark);
    const header = `P5\n${width} ${height}\n255\n`.length;
    expect(Buffer.from(read.grey.subarray(header)).equals(Buffer.from(evenedLight(dark, width, height)))).toBe(true);
    expect(imageFor({ reads: 'png' }, read)).toBe(read.readPng);
    expect(imageFor({ reads: 'grey' }, read)).toBe(read.grey);

    const even = await (await openImage(bytesOf(pngOf(luma, width, height)), 'png')).page(1);
    expect(even.readPng).toBeUndefined();
    expect(imageFor({ reads: 'png' }, even)).toBe(even.png);
  });
});
