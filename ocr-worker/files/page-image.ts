import { createCanvas, type Canvas } from '@napi-rs/canvas';
import { PNG } from 'pngjs';
import type { SourcePage } from '../contract.ts';
import { straightened, turned } from './deskew.ts';
import { evenedLight } from './even-light.ts';

type PageImages = Pick<SourcePage, 'png' | 'grey' | 'readPng' | 'width' | 'height'>;

/**
 * A drawn page (on an opaque canvas) as the two images the worker needs, from one read of its pixels:
 * - the PNG readers get: when every pixel is grey (most scans, every black-on-white page) 8-bit
 *   greyscale through pngjs (Node's zlib, no row filters: the fastest here, and within 8% of the
 *   smallest filter), else Skia's colour PNG;
 * - the greyscale PGM (P5) the engine reads: Tesseract copies it in where it must inflate a PNG,
 *   and binarizes the page itself, so grey loses nothing it uses.
 *
 * A skewed page is straightened first (files/deskew.ts): both images, so the reader shows the page as read.
 * A page whose light is uneven (a shadowed gutter) is read with its light evened (files/even-light.ts): the
 * engine's images only (`grey`, `readPng`); the PNG readers see keeps the page as scanned.
 *
 * Measured on an A4 300-dpi Arabic page (8.7 MP): Skia's RGBA PNG took 305 ms and turning that
 * PNG back into grey for the engine 150 ms; this takes 87 ms for both, and its grey PNG is half the
 * size (537 KB against 1.16 MB).
 */
export function pageImages(canvas: Canvas): PageImages {
  return rgbaImages(canvas.data(), canvas.width, canvas.height, () => canvas.encodeSync('png'));
}

/**
 * A page's opaque RGBA pixels as its images, as `pageImages` makes them; `colourPngOf` encodes the unturned
 * colour page (a canvas encodes its own; pixels not on a canvas are put on one).
 */
export function rgbaImages(rgba: Uint8Array, width: number, height: number, colourPngOf = (): Buffer => colourPng(rgba, width, height)): PageImages {
  const { luma, colour } = greyOf(rgba, width, height);
  if (!colour) return greyImages(luma, width, height);
  const straight = straightened(luma, width, height);
  const png = straight.degrees === 0 ? colourPngOf() : colourPng(turned(rgba, width, height, straight.degrees, straight.paper, 4), width, height);
  return { png, ...readImages(straight.luma, width, height), width, height };
}

/** The engine's images of the (straightened) page: its light evened when uneven, then `readPng` too. */
function readImages(luma: Uint8Array, width: number, height: number): Pick<PageImages, 'grey' | 'readPng'> {
  const read = evenedLight(luma, width, height);
  return { grey: pgm(read, width, height), ...(read !== luma && { readPng: greyPng(read, width, height) }) };
}

/** RGBA pixels as a colour PNG, through a canvas of this module's @napi-rs/canvas (pdfjs draws on a copy of its own). */
function colourPng(rgba: Uint8Array, width: number, height: number): Buffer {
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  const data = g.createImageData(width, height);
  data.data.set(rgba);
  g.putImageData(data, 0, 0);
  return canvas.encodeSync('png');
}

/**
 * A decoded frame's RGBA pixels as the page's images without drawing them, when every pixel is grey and
 * opaque (a scan's TIFF page): the canvas copies cost 0.4-0.5 s on an A4 300-dpi page (2026-11-27). Undefined
 * for any other frame, which is drawn on white.
 */
export function greyFrameImages(rgba: Uint8Array, width: number, height: number): PageImages | undefined {
  const { luma, colour, transparent } = greyOf(rgba, width, height);
  return colour || transparent ? undefined : greyImages(luma, width, height);
}

/** A page's 8-bit grey pixels (`width` a row, no padding) as its images, straightened when skewed: a grey TIFF page, which needs no RGBA. */
export function greyImages(luma: Uint8Array, width: number, height: number): PageImages {
  const straight = straightened(luma, width, height).luma;
  return { png: greyPng(straight, width, height), ...readImages(straight, width, height), width, height };
}

const pgm = (luma: Uint8Array, width: number, height: number): Buffer => Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii'), luma]);

/** The luma of RGBA pixels, and whether any pixel is coloured or not opaque. */
function greyOf(rgba: Uint8Array, width: number, height: number): { luma: Uint8Array; colour: boolean; transparent: boolean } {
  const luma = new Uint8Array(width * height);
  let colour = false;
  let transparent = false;
  for (let i = 0, j = 0; j < luma.length; i += 4, j++) {
    const r = rgba[i]!;
    const g = rgba[i + 1]!;
    const b = rgba[i + 2]!;
    if (r !== g || g !== b) colour = true;
    if (rgba[i + 3] !== 255) transparent = true;
    // ITU-R BT.601 luma in integers: 0.299 R + 0.587 G + 0.114 B.
    luma[j] = (r * 77 + g * 150 + b * 29) >> 8;
  }
  return { luma, colour, transparent };
}

const greyPng = (luma: Uint8Array, width: number, height: number): Buffer =>
  PNG.sync.write({ width, height, data: Buffer.from(luma.buffer, luma.byteOffset, luma.byteLength) } as PNG, { colorType: 0, inputColorType: 0, inputHasAlpha: false, filterType: 0 });
