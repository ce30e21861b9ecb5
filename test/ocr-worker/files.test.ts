import { createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { PageError, UnreadableFile } from '../../ocr-worker/contract.ts';
import { maxImageFileBytes, readPagePixels } from '../../ocr-worker/files/caps.ts';
import { detectFormat } from '../../ocr-worker/files/format.ts';
import { bytesOf, formatOf, openImage } from '../../ocr-worker/files/open-image.ts';
import { renderTextPage } from '../../ocr-worker/fixtures/render.ts';
import { tiffSamplesBomb } from '../../ocr-worker/fixtures/bombs.ts';
import { toTiff } from '../../ocr-worker/fixtures/tiff.ts';
import { greyBmp, loopingTiff, pngDeclaring, tiffDeclaring, tinyGif } from './fixtures/images.ts';

const canvasFile = (type: 'image/png' | 'image/jpeg' | 'image/webp', width = 300, height = 200): Buffer => {
  const c = createCanvas(width, height);
  const g = c.getContext('2d');
  g.fillStyle = 'white';
  g.fillRect(0, 0, width, height);
  g.fillStyle = 'black';
  g.fillRect(10, 10, 50, 50);
  return c.toBuffer(type as 'image/png');
};
const ascii = (s: string): Uint8Array => new Uint8Array([...s].map((c) => c.charCodeAt(0)));

describe('detectFormat', () => {
  it('knows each format by its first bytes', () => {
    expect(detectFormat(ascii('%PDF-1.7\n'))).toBe('pdf');
    expect(detectFormat(canvasFile('image/png'))).toBe('png');
    expect(detectFormat(canvasFile('image/jpeg'))).toBe('jpeg');
    expect(detectFormat(canvasFile('image/webp'))).toBe('webp');
    expect(detectFormat(tinyGif)).toBe('gif');
    expect(detectFormat(greyBmp(4, 4))).toBe('bmp');
    expect(detectFormat(ascii('II*\0xxxx'))).toBe('tiff');
    expect(detectFormat(ascii('MM\0*xxxx'))).toBe('tiff');
  });

  it('knows no other file, whatever it is called', () => {
    expect(detectFormat(ascii('PK\x03\x04 a zip'))).toBeUndefined();
    expect(detectFormat(ascii('RIFF....WAVE'))).toBeUndefined();
    expect(detectFormat(new Uint8Array())).toBeUndefined();
  });

  it('turns an unknown file into a message a user understands', async () => {
    await expect(formatOf(bytesOf(ascii('hello, world')))).rejects.toThrow(/not a PDF or an image/);
  });
});

describe('image files as pages', () => {
  it.each([
    ['png', canvasFile('image/png')],
    ['jpeg', canvasFile('image/jpeg')],
    ['webp', canvasFile('image/webp')],
    ['bmp', greyBmp(300, 200)],
    ['gif', tinyGif],
  ] as const)('reads a %s as one PNG page of its size', async (format, file) => {
    const source = await openImage(bytesOf(file), format);
    expect(source.pageCount).toBe(1);
    const page = await source.page(1);
    expect(detectFormat(page.png)).toBe('png');
    const image = await loadImage(page.png);
    expect([image.width, image.height]).toEqual(format === 'gif' ? [1, 1] : [300, 200]);
    expect([page.width, page.height]).toEqual([image.width, image.height]);
  });

  it.each(['deflate', 'lzw', 'none'] as const)('reads every page of a multi-page %s TIFF', async (compression) => {
    const pngs = [canvasFile('image/png', 120, 80), canvasFile('image/png', 90, 60), canvasFile('image/png', 50, 50)];
    const source = await openImage(bytesOf(await toTiff(pngs, { compression })), 'tiff');
    expect(source.pageCount).toBe(3);
    const sizes = [];
    for (let n = 1; n <= 3; n++) sizes.push([(await source.page(n)).width, (await source.page(n)).height]);
    expect(sizes).toEqual([[120, 80], [90, 60], [50, 50]]);
  });

  it('keeps the picture of a TIFF page (RGB, Deflate)', async () => {
    const png = renderTextPage({ lines: ['The page'], font: 'noto-serif', dpi: 100 });
    const page = await (await openImage(bytesOf(await toTiff([png], { compression: 'deflate', color: 'rgb' })), 'tiff')).page(1);
    const image = await loadImage(page.png);
    const c = createCanvas(image.width, image.height);
    c.getContext('2d').drawImage(image, 0, 0);
    const pixels = c.getContext('2d').getImageData(0, 0, image.width, image.height).data;
    let dark = 0;
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i]! < 100) dark++;
    expect(dark).toBeGreaterThan(50);
  });

  it('reads a grey TIFF page (read without RGBA) to the same images as the PNG it was made from', async () => {
    const png = renderTextPage({ lines: ['The page'], font: 'noto-serif', dpi: 100 });
    const fromPng = await (await openImage(bytesOf(png), 'png')).page(1);
    const fromTiff = await (await openImage(bytesOf(await toTiff([png], { compression: 'deflate' })), 'tiff')).page(1);
    expect(fromTiff.grey.equals(fromPng.grey)).toBe(true);
    expect(fromTiff.png.equals(fromPng.png)).toBe(true);
  });

  it('scales a big page down to the read size', async () => {
    const page = await (await openImage(bytesOf(canvasFile('image/png', 6000, 4000)), 'png')).page(1);
    expect(page.width * page.height).toBeLessThanOrEqual(readPagePixels);
    expect(page.width / page.height).toBeCloseTo(1.5, 2);
  });
});

describe('hostile and damaged image files', () => {
  it('refuses a PNG that declares 100,000 × 100,000 pixels without decoding it', async () => {
    const bomb = pngDeclaring(100_000, 100_000);
    expect(bomb.length).toBeLessThan(1000);
    await expect(openImage(bytesOf(bomb), 'png')).rejects.toThrow(UnreadableFile);
    await expect(openImage(bytesOf(bomb), 'png')).rejects.toThrow('The page is too large (100000 × 100000 pixels, 10000 megapixels; the limit is 40 megapixels).');
  });

  it('fails a TIFF page that declares 100,000 × 100,000 pixels as a page error', async () => {
    const source = await openImage(bytesOf(tiffDeclaring(100_000, 100_000)), 'tiff');
    await expect(source.page(1)).rejects.toThrow(PageError);
    await expect(source.page(1)).rejects.toThrow(/too large/);
  });

  it('fails a TIFF page whose samples per pixel would decode past the cap as a page error, before decoding', async () => {
    // 16 MP of 200 samples a pixel: 3.2 GB to decode, in under 1 KB.
    const bomb = tiffSamplesBomb(4000, 4000, 200);
    expect(bomb.length).toBeLessThan(1000);
    const source = await openImage(bytesOf(bomb), 'tiff');
    await expect(source.page(1)).rejects.toThrow('The page holds more image data than a page may (3,200 MB decoded; the limit is 160 MB).');
    // Four 8-bit samples (RGBA) of the same page are a page like any other.
    expect((await (await openImage(bytesOf(tiffSamplesBomb(1000, 1000, 4)), 'tiff')).page(1)).width).toBe(1000);
  });

  it('refuses a truncated PNG, JPEG and TIFF', async () => {
    const png = canvasFile('image/png');
    await expect(openImage(bytesOf(png.subarray(0, png.length - 40)), 'png')).rejects.toThrow('The file could not be read as a PNG image: it may be damaged or incomplete.');
    const jpeg = canvasFile('image/jpeg');
    await expect(openImage(bytesOf(jpeg.subarray(0, jpeg.length / 2)), 'jpeg')).rejects.toThrow(UnreadableFile);
    const tiff = await toTiff([png], { compression: 'deflate' });
    await expect(openImage(bytesOf(tiff.subarray(0, 100)), 'tiff')).rejects.toThrow('The file could not be read as a TIFF image: it may be damaged or incomplete.');
  });

  it('refuses a TIFF whose directories loop', async () => {
    await expect(openImage(bytesOf(loopingTiff()), 'tiff')).rejects.toThrow(UnreadableFile);
  });

  it('refuses an image file over the byte cap before reading it', async () => {
    let read = false;
    const huge = { size: maxImageFileBytes + 50 * 1024 * 1024, read: async () => ((read = true), new Uint8Array()) };
    await expect(openImage(huge, 'tiff')).rejects.toThrow(/too large \(250 MB; the limit is 200 MB\)/);
    expect(read).toBe(false);
  });
});
