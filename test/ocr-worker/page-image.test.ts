import { createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { greyFrameImages, pageImages } from '../../ocr-worker/files/page-image.ts';
import { paintedPage } from './fixtures/images.ts';

/** A 40×20 white page with a black square, and optionally a red one. */
const page = (red: boolean) => paintedPage(40, 20, [[0, 0, 10, 10, 'black'], ...(red ? [[20, 0, 10, 10, 'rgb(255,0,0)'] as const] : [])]);
/** PNG colour type (IHDR byte 25): 0 grey, 2 RGB, 6 RGBA. */
const colourType = (png: Buffer) => png[25];
const pixelOf = async (png: Buffer, x: number, y: number) => {
  const image = await loadImage(png);
  const c = createCanvas(image.width, image.height);
  c.getContext('2d').drawImage(image, 0, 0);
  return [...c.getContext('2d').getImageData(x, y, 1, 1).data];
};

describe('a page as its PNG and the grey image the engine reads', () => {
  it('stores a black-on-white page as a greyscale PNG with the same pixels', async () => {
    const { png, width, height } = pageImages(page(false));
    expect([width, height]).toEqual([40, 20]);
    expect(colourType(png)).toBe(0);
    expect(await pixelOf(png, 5, 5)).toEqual([0, 0, 0, 255]);
    expect(await pixelOf(png, 35, 15)).toEqual([255, 255, 255, 255]);
  });

  it('keeps a page with colour in colour', async () => {
    const { png } = pageImages(page(true));
    expect(colourType(png)).not.toBe(0);
    expect(await pixelOf(png, 25, 5)).toEqual([255, 0, 0, 255]);
  });

  it('gives the engine a PGM of the page in luma', () => {
    const { grey } = pageImages(page(true));
    const header = 'P5\n40 20\n255\n';
    expect(grey.subarray(0, header.length).toString('ascii')).toBe(header);
    expect(grey.length).toBe(header.length + 40 * 20);
    const at = (x: number, y: number) => grey[header.length + y * 40 + x];
    expect([at(5, 5), at(25, 5), at(35, 15)]).toEqual([0, 76, 255]); // black, red (0.299 × 255), white
  });

  it('gives an opaque grey frame the same images undrawn, and leaves a coloured or transparent frame to the canvas', () => {
    const rgba = (red: boolean) => new Uint8Array(page(red).data());
    const drawn = pageImages(page(false));
    const undrawn = greyFrameImages(rgba(false), 40, 20)!;
    expect(undrawn.grey.equals(drawn.grey)).toBe(true);
    expect(undrawn.png.equals(drawn.png)).toBe(true);
    expect(greyFrameImages(rgba(true), 40, 20)).toBeUndefined();
    const clear = rgba(false);
    clear[3] = 0;
    expect(greyFrameImages(clear, 40, 20)).toBeUndefined();
  });
});
