import { createCanvas, loadImage } from '@napi-rs/canvas';
import {
  beginMarkedContent,
  beginText,
  concatTransformationMatrix,
  drawObject,
  degrees,
  endMarkedContent,
  endText,
  popGraphicsState,
  pushGraphicsState,
  PDFDocument,
  PDFName,
  setFontAndSize,
  setCharacterSqueeze,
  setTextMatrix,
  setTextRenderingMode,
  showText,
  StandardFonts,
  TextRenderingMode,
} from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { textPng } from '../../ocr-worker/fixtures/pdf.ts';
import { pdfjs, pdfjsOptions } from '../../ocr-worker/pdf/pdfjs.ts';
import { scanImages } from '../../ocr-worker/pdf/scan-image.ts';
import { lumaOf, paintedPage } from './fixtures/images.ts';

/** A text scan at 300 dpi, as pdf-lib embeds a PNG (8-bit RGB, deflated). */
const scan = textPng({ lines: ['The quick brown fox jumps over the lazy dog.', 'A library keeps the books of a whole city.'], language: 'en' });

/** A one-page PDF drawing `png` as `draw` says; the page's size at 300 dpi is the PNG's unless `pageScale` differs. */
async function pdfOf(png: Uint8Array, draw: 'fill' | 'half' | 'text over' | 'turned' = 'fill', pageScale = 1, hiddenText?: HiddenText): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const image = await doc.embedPng(png);
  const width = ((image.width * 72) / 300) * pageScale;
  const height = ((image.height * 72) / 300) * pageScale;
  const page = doc.addPage([width, height]);
  page.drawImage(image, draw === 'half' ? { x: 0, y: 0, width: width / 2, height } : { x: 0, y: 0, width, height });
  if (draw === 'text over') page.drawText('Stamped', { x: 20, y: 20, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
  if (draw === 'turned') page.setRotation(degrees(90));
  if (hiddenText) {
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const key = page.node.newFontDictionary(font.name, font.ref);
    const words = ['quick', 'brown', 'fox'].map((word, i) => [setTextMatrix(1, 0, 0, 1, 20 + i * 60, 40), showText(font.encodeText(word))]).flat();
    const text = [beginText(), setFontAndSize(key, 12), setCharacterSqueeze(84), ...words, endText()];
    const marked = (ops: typeof text) => [beginMarkedContent(PDFName.of('Span').asString()), ...ops, endMarkedContent()];
    if (hiddenText === 'as tesseract writes it') page.pushOperators(...marked([beginText(), setTextRenderingMode(TextRenderingMode.Invisible), endText(), ...text]));
    // The mode is part of the graphics state: Q takes it back to fill, so the words are seen.
    if (hiddenText === 'its mode restored') page.pushOperators(pushGraphicsState(), setTextRenderingMode(TextRenderingMode.Invisible), popGraphicsState(), ...text);
    // Invisible, but each word's outline clips what is drawn after it.
    if (hiddenText === 'clipping') page.pushOperators(setTextRenderingMode(TextRenderingMode.Clip), ...text);
  }
  return doc.save();
}
type HiddenText = 'as tesseract writes it' | 'its mode restored' | 'clipping';

/**
 * A one-page PDF of a bilevel scan: `luma` at one bit a pixel (flate; CCITT and JBIG2 decode to the same),
 * a set bit white, or black with `/Decode [1 0]` (as a scanner writing BlackIs1 stores it).
 */
async function bilevelPdfOf({ luma, width, height }: { luma: Uint8Array; width: number; height: number }, setBit: 'white' | 'black'): Promise<Uint8Array> {
  const rowBytes = (width + 7) >> 3;
  const bits = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) if (luma[y * width + x]! >= 128 === (setBit === 'white')) bits[y * rowBytes + (x >> 3)]! |= 0x80 >> (x & 7);
  }
  const doc = await PDFDocument.create();
  const decode = setBit === 'black' ? { Decode: [1, 0] } : {};
  const picture = { Type: 'XObject', Subtype: 'Image', Width: width, Height: height, ColorSpace: 'DeviceGray', BitsPerComponent: 1, ...decode };
  const ref = doc.context.register(doc.context.flateStream(bits, picture));
  const page = doc.addPage([(width * 72) / 300, (height * 72) / 300]);
  const name = page.node.newXObject('Im', ref);
  page.pushOperators(pushGraphicsState(), concatTransformationMatrix((width * 72) / 300, 0, 0, (height * 72) / 300, 0, 0), drawObject(name), popGraphicsState());
  return doc.save();
}

/** The page's images from its picture, or undefined; the size the page would be drawn at 300 dpi. */
async function imagesOf(pdf: Uint8Array) {
  const doc = await pdfjs.getDocument({ ...pdfjsOptions, data: pdf }).promise;
  try {
    const page = await doc.getPage(1);
    const viewport = page.getViewport({ scale: 300 / 72 });
    return await scanImages(page, { width: Math.floor(viewport.width), height: Math.floor(viewport.height) });
  } finally {
    await doc.destroy();
  }
}

describe('a scanned PDF page read from its picture, not drawn', () => {
  it('gives the scan’s own pixels when the page is one grey picture filling it', async () => {
    const images = await imagesOf(await pdfOf(scan));
    expect(images).toBeDefined();
    const [got, want] = await Promise.all([lumaOf(images!.png), lumaOf(scan)]);
    expect({ width: got.width, height: got.height }).toEqual({ width: want.width, height: want.height });
    expect(Buffer.from(got.luma).equals(Buffer.from(want.luma))).toBe(true);
  });

  it('draws the page when it holds more than the picture, or the picture does not fill it upright at its size', async () => {
    for (const draw of ['half', 'text over', 'turned'] as const) expect(await imagesOf(await pdfOf(scan, draw)), draw).toBeUndefined();
    // A page twice the picture's size: drawn at 300 dpi, the picture is scaled up.
    expect(await imagesOf(await pdfOf(scan, 'fill', 2))).toBeUndefined();
  });

  it('gives a searchable scan’s own pixels: its words are there to be found, not seen', async () => {
    const images = await imagesOf(await pdfOf(scan, 'fill', 1, 'as tesseract writes it'));
    expect(images).toBeDefined();
    const [got, want] = await Promise.all([lumaOf(images!.png), lumaOf(scan)]);
    expect(Buffer.from(got.luma).equals(Buffer.from(want.luma))).toBe(true);
    // Text shown once its invisible mode is restored away, or drawn as a clip, changes the page: drawn.
    for (const hidden of ['its mode restored', 'clipping'] as const) expect(await imagesOf(await pdfOf(scan, 'fill', 1, hidden)), hidden).toBeUndefined();
  });

  it('gives a bilevel scan’s own pixels, white where its bits say white', async () => {
    const want = await lumaOf(scan);
    const thresholded = want.luma.map((v) => (v >= 128 ? 255 : 0));
    for (const setBit of ['white', 'black'] as const) {
      const images = await imagesOf(await bilevelPdfOf(want, setBit));
      expect(images, setBit).toBeDefined();
      const got = await lumaOf(images!.png);
      expect(Buffer.from(got.luma).equals(Buffer.from(thresholded)), setBit).toBe(true);
    }
  });

  it('gives a colour scan’s own pixels, in colour', async () => {
    const images = await imagesOf(await pdfOf(paintedPage(600, 300, [[100, 100, 200, 50, '#c03020']]).toBuffer('image/png')));
    expect(images).toBeDefined();
    const page = await loadImage(images!.png);
    const drawn = createCanvas(page.width, page.height);
    drawn.getContext('2d').drawImage(page, 0, 0);
    expect({ width: page.width, height: page.height }).toEqual({ width: 600, height: 300 });
    expect([...drawn.getContext('2d').getImageData(150, 120, 1, 1).data]).toEqual([0xc0, 0x30, 0x20, 255]);
    expect([...drawn.getContext('2d').getImageData(10, 10, 1, 1).data]).toEqual([255, 255, 255, 255]);
  });
});
