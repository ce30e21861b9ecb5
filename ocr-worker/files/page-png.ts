import { createCanvas, type Image } from '@napi-rs/canvas';
import type { SourcePage } from '../contract.ts';
import { readPagePixels } from './caps.ts';
import { greyFrameImages, pageImages } from './page-image.ts';

/** The size a page is read at: its own, or scaled down to `readPagePixels`. */
export function readSize(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, Math.sqrt(readPagePixels / (width * height)));
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

/**
 * A decoded image or RGBA frame as the page's images (PNG and grey): on white (transparent scans read as black
 * otherwise), scaled down when above the read size. An opaque grey frame at its read size needs no drawing.
 */
export function pagePng(source: Image | { rgba: Uint8Array; width: number; height: number }): SourcePage {
  const size = readSize(source.width, source.height);
  if ('rgba' in source && size.width === source.width && size.height === source.height) {
    const undrawn = greyFrameImages(source.rgba, source.width, source.height);
    if (undrawn) return undrawn;
  }
  const canvas = createCanvas(size.width, size.height);
  const g = canvas.getContext('2d');
  g.fillStyle = 'white';
  g.fillRect(0, 0, size.width, size.height);
  if ('rgba' in source) {
    const frame = createCanvas(source.width, source.height);
    const data = frame.getContext('2d').createImageData(source.width, source.height);
    data.data.set(source.rgba);
    frame.getContext('2d').putImageData(data, 0, 0);
    g.drawImage(frame, 0, 0, size.width, size.height);
  } else {
    g.drawImage(source, 0, 0, size.width, size.height);
  }
  return pageImages(canvas);
}
