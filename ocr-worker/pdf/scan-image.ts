import type { SourcePage } from '../contract.ts';
import { greyImages, rgbaImages } from '../files/page-image.ts';
import { pdfjs } from './pdfjs.ts';

type PdfPage = Awaited<ReturnType<pdfjs.PDFDocumentProxy['getPage']>>;
type PageImages = Pick<SourcePage, 'png' | 'grey' | 'readPng' | 'width' | 'height'>;

/**
 * A scanned page's images taken from its one picture, without drawing the page (issue 33). A scan's page is
 * one picture spread over the whole page at about the resolution the worker reads at; drawing it costs
 * pdfjs 1.1-1.4 s on an A4 300-dpi page (its RGB turned into RGBA in JavaScript, then drawn by Skia), while
 * its decoded pixels are ready in 0.2-0.3 s (docs/benchmarks.md, 2026-11-28). So when the page draws
 * nothing but that picture, upright and filling the page, at the size the page would be drawn (within
 * `sizeSlack` pixels) and every pixel opaque, its pixels are the page (a grey scan's straight from its luma,
 * a colour scan's in colour). A searchable scan's hidden words (text in render mode 3) draw nothing, so they
 * do not stop it. Anything else (text seen over the picture, a picture on part of the page, a turned page,
 * transparency, another size) is drawn as before: undefined. Looking costs pdfjs an operator list of its own
 * (not the drawing's); on pages then drawn, of text or of text and a photograph, that was within the noise of
 * drawing them (2026-11-28), so every page is looked at.
 */
export const sizeSlack = 2;
/** How far, in points, the picture's corners may lie from the page's. */
const placeSlack = 0.5;

const { OPS, ImageKind } = pdfjs;
/**
 * Operators that draw nothing and leave a picture as it is: text state and positioning, colours (for
 * what is filled or stroked later), marked content. A searchable scan's hidden text (render mode 3,
 * as tesseract and OCRmyPDF write it) is only these around its `showText`s, which draw nothing.
 */
const unseen = new Set<number>([
  OPS.dependency,
  OPS.beginText,
  OPS.endText,
  OPS.setFont,
  OPS.setCharSpacing,
  OPS.setWordSpacing,
  OPS.setHScale,
  OPS.setLeading,
  OPS.setTextRise,
  OPS.moveText,
  OPS.setLeadingMoveText,
  OPS.setTextMatrix,
  OPS.nextLine,
  OPS.setFillGray,
  OPS.setFillRGBColor,
  OPS.setFillCMYKColor,
  OPS.setFillColorSpace,
  OPS.setFillColor,
  OPS.setFillColorN,
  OPS.setStrokeGray,
  OPS.setStrokeRGBColor,
  OPS.setStrokeCMYKColor,
  OPS.setStrokeColorSpace,
  OPS.setStrokeColor,
  OPS.setStrokeColorN,
  OPS.beginMarkedContent,
  OPS.endMarkedContent,
]);
/** Operators that show text: unseen only in render mode 3 (invisible; 7 is invisible too, but clips what follows). */
const showsText = new Set<number>([OPS.showText, OPS.showSpacedText, OPS.nextLineShowText, OPS.nextLineSetSpacingShowText]);
const invisible = 3;

/** Whether a graphics state (`gs`, as pdfjs passes its entries) changes nothing a picture shows. */
function keepsPictures(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  return entries.every((entry) => {
    const [key, value] = Array.isArray(entry) ? (entry as [string, unknown]) : [];
    if (key === 'ca') return value === 1;
    if (key === 'BM') return value === 'source-over';
    if (key === 'SMask') return value === false;
    return ['LW', 'LC', 'LJ', 'ML', 'D', 'RI', 'FL', 'CA', 'Font'].includes(String(key));
  });
}

type Matrix = [number, number, number, number, number, number];

/** `m` × `by`: `by` maps first, then `m` (as PDF's `cm`: the new matrix maps into the current one). */
const times = (m: Matrix, by: Matrix): Matrix => [
  m[0] * by[0] + m[2] * by[1],
  m[1] * by[0] + m[3] * by[1],
  m[0] * by[2] + m[2] * by[3],
  m[1] * by[2] + m[3] * by[3],
  m[0] * by[4] + m[2] * by[5] + m[4],
  m[1] * by[4] + m[3] * by[5] + m[5],
];

/**
 * The page's one picture and where it is drawn, when the page draws nothing else. The text render mode
 * is part of the graphics state: `q` saves it, `Q` restores it, and a text object does not reset it.
 */
function onePicture(fnArray: number[], argsArray: unknown[][]): { id: string; width: number; height: number; at: Matrix } | undefined {
  let state = { ctm: [1, 0, 0, 1, 0, 0] as Matrix, textMode: 0 };
  const saved: (typeof state)[] = [];
  let picture: { id: string; width: number; height: number; at: Matrix } | undefined;
  for (let i = 0; i < fnArray.length; i++) {
    const op = fnArray[i]!;
    const args = argsArray[i] ?? [];
    if (op === OPS.paintImageXObject && !picture) {
      picture = { id: String(args[0]), width: Number(args[1]), height: Number(args[2]), at: state.ctm };
    } else if (op === OPS.save) {
      saved.push(state);
    } else if (op === OPS.restore) {
      state = saved.pop() ?? state;
    } else if (op === OPS.transform) {
      state = { ...state, ctm: times(state.ctm, args.map(Number) as Matrix) };
    } else if (op === OPS.setTextRenderingMode) {
      state = { ...state, textMode: Number(args[0]) };
    } else if (showsText.has(op)) {
      if (state.textMode !== invisible) return undefined;
    } else if (op === OPS.beginMarkedContentProps) {
      // Optional content may hide what it holds, the picture too.
      if (args[0] === 'OC') return undefined;
    } else if (op === OPS.setGState) {
      if (!keepsPictures(args[0])) return undefined;
    } else if (!unseen.has(op)) {
      return undefined;
    }
  }
  return picture;
}

/**
 * A decoded picture's pixels as the page's images: straight from its luma when every pixel is grey (a scan),
 * else as RGBA; undefined when a pixel is not opaque (it would need the page's white under it).
 */
function imagesOf(data: Uint8Array | Uint8ClampedArray, kind: number, width: number, height: number): PageImages | undefined {
  if (kind === ImageKind.GRAYSCALE_1BPP) return bilevelImages(data, width, height);
  const pixels = width * height;
  const step = kind === ImageKind.RGB_24BPP ? 3 : kind === ImageKind.RGBA_32BPP ? 4 : 0;
  if (step === 0 || data.length < pixels * step) return undefined;
  const luma = new Uint8Array(pixels);
  let grey = true;
  for (let i = 0, j = 0; j < pixels && grey; i += step, j++) {
    const r = data[i]!;
    if (step === 4 && data[i + 3] !== 255) return undefined;
    grey = r === data[i + 1] && r === data[i + 2];
    luma[j] = r;
  }
  if (grey) return greyImages(luma, width, height);
  const rgba = new Uint8Array(pixels * 4);
  for (let i = 0, j = 0; j < rgba.length; i += step, j += 4) {
    rgba[j] = data[i]!;
    rgba[j + 1] = data[i + 1]!;
    rgba[j + 2] = data[i + 2]!;
    rgba[j + 3] = step === 4 ? data[i + 3]! : 255;
    if (rgba[j + 3] !== 255) return undefined;
  }
  return rgbaImages(rgba, width, height);
}

/**
 * A bilevel scan's picture (CCITT, JBIG2 or 1-bit flate, as many book scans are stored): pdfjs gives it one bit
 * a pixel, each row starting on a byte, a set bit white (its Decode already applied).
 */
function bilevelImages(data: Uint8Array | Uint8ClampedArray, width: number, height: number): PageImages | undefined {
  const rowBytes = (width + 7) >> 3;
  if (data.length < rowBytes * height) return undefined;
  const luma = new Uint8Array(width * height);
  for (let y = 0, j = 0; y < height; y++) {
    const row = y * rowBytes;
    for (let x = 0; x < width; x++, j++) luma[j] = data[row + (x >> 3)]! & (0x80 >> (x & 7)) ? 255 : 0;
  }
  return greyImages(luma, width, height);
}

/**
 * The page's images from its picture, or undefined when the page must be drawn. `size` is the size the
 * page would be drawn at. The picture is decoded by pdfjs as for drawing, so the same limits hold
 * (`maxImageSize`, the sandbox's time and memory).
 */
export async function scanImages(page: PdfPage, size: { width: number; height: number }): Promise<PageImages | undefined> {
  if (page.rotate % 360 !== 0) return undefined;
  const { fnArray, argsArray } = await page.getOperatorList();
  const picture = onePicture(fnArray, argsArray as unknown[][]);
  if (!picture) return undefined;
  if (Math.abs(picture.width - size.width) > sizeSlack || Math.abs(picture.height - size.height) > sizeSlack) return undefined;
  const [x0, y0, x1, y1] = page.view as [number, number, number, number];
  const [a, b, c, d, e, f] = picture.at;
  const fills = b === 0 && c === 0 && Math.abs(a - (x1 - x0)) <= placeSlack && Math.abs(d - (y1 - y0)) <= placeSlack && Math.abs(e - x0) <= placeSlack && Math.abs(f - y0) <= placeSlack;
  if (!fills) return undefined;
  // Pictures shared by pages are the document's objects (`g_` ids), the others the page's.
  const objects = picture.id.startsWith('g_') ? page.commonObjs : page.objs;
  const image = await new Promise<{ width?: number; height?: number; kind?: number; data?: Uint8Array | Uint8ClampedArray }>((done) => objects.get(picture.id, done));
  if (!image?.data || image.width !== picture.width || image.height !== picture.height || image.kind === undefined) return undefined;
  return imagesOf(image.data, image.kind, image.width, image.height);
}
