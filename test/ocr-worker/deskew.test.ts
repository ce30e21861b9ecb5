import { createCanvas, loadImage } from '@napi-rs/canvas';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deskewLimits, paperTone, skewOf, straightened } from '../../ocr-worker/files/deskew.ts';
import { bytesOf, openImage } from '../../ocr-worker/files/open-image.ts';
import { renderTextPage } from '../../ocr-worker/fixtures/render.ts';
import { lumaOf } from './fixtures/images.ts';

const lines = [
  'قال أبو عثمان الجاحظ: الكتاب وعاء ملئ علما وظرف حشي ظرفا',
  'هل قرأت كتاب الأغاني لأبي الفرج الأصفهاني؟ إنه في أربعة وعشرين جزءا',
  'افتتحت المكتبة الجديدة أبوابها يوم الأحد فأقبل عليها القراء',
  'العلم في الصغر كالنقش على الحجر والعلم في الكبر كالنقش على الماء',
  'ذكر ابن خلدون في مقدمته أن الظلم مؤذن بخراب العمران',
  'كانت بيت الحكمة في بغداد مركزا للترجمة والتأليف والبحث',
];
/** A scanned-looking page at 150 dpi, turned by `rotate` degrees (clockwise, as a scanner's glass can hold it). */
const scan = (rotate: number, columns = 1) =>
  renderTextPage({ lines: [...lines, ...lines, ...lines], font: 'amiri', dpi: 150, columns, noise: { blur: 0.6, speckles: 30, rotate, paper: 0.1, seed: 5 } });

describe('straightening a skewed scan', () => {
  it('finds the angle a page was scanned at, either way, on one and two columns', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: -4, max: 4, noNaN: true }), fc.constantFrom(1, 2), async (rotate, columns) => {
        const { luma, width, height } = await lumaOf(scan(rotate, columns));
        const found = skewOf(luma, width, height);
        // Under the turning bar the page may read as unskewed; above it the angle is found closely.
        if (Math.abs(rotate) >= deskewLimits.minDegrees + 0.2) expect(Math.abs(found - rotate)).toBeLessThanOrEqual(0.2);
        else expect(Math.abs(found)).toBeLessThan(deskewLimits.minDegrees + 0.2);
      }),
      { numRuns: 12 },
    );
  });

  it('leaves a straight page as it is: the same pixels', async () => {
    const { luma, width, height } = await lumaOf(scan(0));
    const result = straightened(luma, width, height);
    expect(result.degrees).toBe(0);
    expect(result.luma).toBe(luma);
  });

  it('leaves a blank page and a page of noise as they are', () => {
    const width = 600;
    const height = 800;
    const blank = new Uint8Array(width * height).fill(235);
    expect(straightened(blank, width, height).luma).toBe(blank);
    let seed = 1;
    const noise = blank.map(() => ((seed = (seed * 16807) % 2147483647) % 256));
    expect(straightened(noise, width, height).degrees).toBe(0);
  });

  it('turns a skewed page back, the same size, its corners in the paper tone', async () => {
    const { luma, width, height } = await lumaOf(scan(2.5));
    const result = straightened(luma, width, height);
    expect(result.degrees).toBeCloseTo(2.5, 0);
    expect(result.luma.length).toBe(width * height);
    expect(Math.abs(skewOf(result.luma, width, height))).toBeLessThan(deskewLimits.minDegrees);
    expect(result.luma[0]).toBe(paperTone(luma));
    expect(result.luma[width * height - 1]).toBe(paperTone(luma));
  });

  it('gives the worker the straightened page: the PNG readers see and the grey image the engine reads', async () => {
    const page = await (await openImage(bytesOf(scan(-3)), 'png')).page(1);
    const png = await lumaOf(page.png);
    expect(Math.abs(skewOf(png.luma, png.width, png.height))).toBeLessThan(deskewLimits.minDegrees);
    const header = `P5\n${page.width} ${page.height}\n255\n`.length;
    expect(Math.abs(skewOf(page.grey.subarray(header), page.width, page.height))).toBeLessThan(deskewLimits.minDegrees);
  });

  it('straightens a page in colour and keeps it in colour', async () => {
    const grey = await loadImage(scan(3));
    const canvas = createCanvas(grey.width, grey.height);
    const g = canvas.getContext('2d');
    g.drawImage(grey, 0, 0);
    g.fillStyle = 'rgb(200,30,30)';
    g.fillRect(10, 10, 40, 20); // a red stamp in the corner
    const page = await (await openImage(bytesOf(canvas.encodeSync('png')), 'png')).page(1);
    expect(page.png[25]).not.toBe(0); // PNG colour type: not grey
    const straight = await lumaOf(page.png);
    expect(Math.abs(skewOf(straight.luma, straight.width, straight.height))).toBeLessThan(deskewLimits.minDegrees);
  });
});
