import { createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { renderTextPage, type Noise } from '../../ocr-worker/fixtures/render.ts';

/**
 * The fixtures' scan damage of a bound book (issue 33): show-through of the other side of the leaf,
 * light falling off into the gutter, a stain. Small pages (100 dpi, as tall as three short lines).
 */
const page = (noise?: Noise, lines = ['The page', 'of a book', 'is here']): Buffer => renderTextPage({ lines, font: 'noto-serif', dpi: 100, page: 'fit', noise });

/** The page's grey values (the red channel; the renders are grey), row by row. */
async function greys(png: Buffer): Promise<{ width: number; height: number; at: (x: number, y: number) => number }> {
  const image = await loadImage(png);
  const c = createCanvas(image.width, image.height);
  c.getContext('2d').drawImage(image, 0, 0);
  const data = c.getContext('2d').getImageData(0, 0, image.width, image.height).data;
  return { width: image.width, height: image.height, at: (x, y) => data[4 * (y * image.width + x)]! };
}

/** Mean grey of the columns from x0 to x1 (fractions of the width), all rows. */
const meanOf = (g: Awaited<ReturnType<typeof greys>>, x0: number, x1: number): number => {
  let sum = 0;
  let n = 0;
  for (let y = 0; y < g.height; y++) {
    for (let x = Math.floor(x0 * g.width); x < Math.floor(x1 * g.width); x++, n++) sum += g.at(x, y);
  }
  return sum / n;
};

const scan: Noise = { blur: 0.7, speckles: 40, rotate: 0.4, paper: 0.12, seed: 5 };

describe('renderTextPage scan damage', () => {
  it('renders a page without the new damage exactly as before: absent or 0 is the same bytes', () => {
    expect(page({ ...scan, showThrough: 0, unevenLight: 0, stain: 0 }).equals(page(scan))).toBe(true);
    expect(page({ showThrough: 0, unevenLight: 0 }).equals(page(undefined))).toBe(true);
  });

  it('shows the other side through, mirrored and faint, only darkening the page and leaving the front ink as it was', async () => {
    // Short front lines set from the left; the other side's lines, mirrored, fall on the right, where the front has no ink.
    const back = ['A longer line on the other side of the leaf', 'and another one, as long as that'];
    const clean = await greys(page({ seed: 3 }));
    const through = await greys(page({ seed: 3, showThrough: 1, showThroughLines: back }));
    let [darkened, darkest, lighter, inkChanged] = [0, 255, 0, 0];
    for (let y = 0; y < clean.height; y++) {
      for (let x = 0; x < clean.width; x++) {
        const [before, after] = [clean.at(x, y), through.at(x, y)];
        if (after > before) lighter++;
        if (before === 0 && after !== 0) inkChanged++;
        if (before === 255 && after < 250) {
          darkened++;
          darkest = Math.min(darkest, after);
        }
      }
    }
    expect({ lighter, inkChanged }).toEqual({ lighter: 0, inkChanged: 0 });
    expect(darkened).toBeGreaterThan(500);
    // Faint: the other side's ink is at most 30% dark, never as dark as the front's.
    expect(darkest).toBeGreaterThan(150);
    // Mirrored: the right of the page, blank on the front, is where it shows; the front's left margin stays clean.
    expect(meanOf(through, 0.6, 0.9)).toBeLessThan(meanOf(clean, 0.6, 0.9) - 1);
    expect(meanOf(through, 0, 0.05)).toBe(meanOf(clean, 0, 0.05));
  });

  it('darkens the gutter edge and not the other, on the side asked for', async () => {
    const clean = await greys(page({ seed: 3 }));
    for (const gutter of ['left', 'right'] as const) {
      const lit = await greys(page({ seed: 3, unevenLight: 1, gutter }));
      const [left, right] = [meanOf(lit, 0, 0.05), meanOf(lit, 0.95, 1)];
      const [dark, light] = gutter === 'left' ? [left, right] : [right, left];
      expect(dark).toBeLessThan(130);
      expect(light).toBeGreaterThan(220);
      // The text's middle of the page keeps its light, near enough.
      expect(meanOf(lit, 0.45, 0.55)).toBeGreaterThan(meanOf(clean, 0.45, 0.55) - 30);
    }
  });

  it('is the same bytes for the same seed, and other damage for another', () => {
    const damaged = (seed: number): Noise => ({ ...scan, seed, showThrough: 0.6, unevenLight: 0.6, stain: 0.6 });
    expect(page(damaged(9)).equals(page(damaged(9)))).toBe(true);
    expect(page(damaged(9)).equals(page(damaged(10)))).toBe(false);
  });
});
