/**
 * Straightening a skewed scan (issue 33). Tesseract's own layout copes with a page turned under half a
 * degree, but from about one degree it cuts line ends and reads worse: on A4 Arabic book pages at 300 dpi
 * (`npm run bench -- ocr-prepare`, 2026-11-27, native tesseract 5.3, six pages a skew) CER with / without
 * diacritics went from 14.8% / 8.0% as scanned to 13.7% / 7.2% straightened at 1°, and from 15.3-15.5% /
 * 8.6-8.8% to 14.1-14.7% / 7.4-8.2% at 2°; unturned pages read the same (docs/benchmarks.md).
 *
 * The skew is the angle at which the page's dark points, projected on the vertical, pile up most sharply
 * (text lines become narrow peaks): searched over ±`maxDegrees` in quarter degrees, then in twentieths
 * around the best, on a copy reduced fourfold (a block is dark when its darkest pixel is well under the
 * paper's tone). The page is turned back only when the skew is at least `minDegrees` and the lines are
 * clearly sharper there than unturned (`minGain`), so a page of pictures or a blank page stays as it is.
 */
export const deskewLimits = {
  /** Under this, tesseract reads the page as well unturned (measured above); turning would only resample it. */
  minDegrees: 0.5,
  /** Scanners and phone captures of book pages stay within this. */
  maxDegrees: 5,
  /** Fewer dark blocks than this (a nearly blank page) give no skew worth trusting. */
  minDarkBlocks: 400,
  /** The projection's sharpness at the skew over its sharpness unturned, at least. */
  minGain: 1.05,
} as const;

const reduction = 4;
/** A block is dark when its darkest pixel is under this share of the paper's tone. */
const darkShare = 0.6;

/** The page's tone: the median of a sample of its pixels (most of a page is paper). */
export function paperTone(luma: Uint8Array): number {
  const step = 13;
  const counts = new Uint32Array(256);
  let total = 0;
  for (let i = 0; i < luma.length; i += step, total++) counts[luma[i]!]!++;
  for (let v = 0, seen = 0; v < 256; v++) {
    seen += counts[v]!;
    if (seen * 2 >= total) return v;
  }
  return 255;
}

/** The reduced page's dark blocks, centred: x and y of each. */
function darkBlocks(luma: Uint8Array, width: number, height: number): { xs: Float64Array; ys: Float64Array; count: number; w: number; h: number } {
  const w = Math.floor(width / reduction);
  const h = Math.floor(height / reduction);
  const threshold = paperTone(luma) * darkShare;
  const xs = new Float64Array(w * h);
  const ys = new Float64Array(w * h);
  let count = 0;
  for (let by = 0; by < h; by++) {
    for (let bx = 0; bx < w; bx++) {
      let dark = false;
      for (let y = by * reduction; y < by * reduction + reduction && !dark; y++) {
        const row = y * width + bx * reduction;
        for (let x = row; x < row + reduction; x++) {
          if (luma[x]! < threshold) {
            dark = true;
            break;
          }
        }
      }
      if (dark) {
        xs[count] = bx - w / 2;
        ys[count] = by - h / 2;
        count++;
      }
    }
  }
  return { xs, ys, count, w, h };
}

/** How sharply the blocks pile up when projected at `degrees`: the sum of the squared row counts. */
function sharpness(blocks: ReturnType<typeof darkBlocks>, degrees: number): number {
  const t = (degrees * Math.PI) / 180;
  const sin = Math.sin(t);
  const cos = Math.cos(t);
  const offset = Math.ceil(Math.hypot(blocks.w, blocks.h) / 2) + 1;
  const rows = new Float64Array(2 * offset + 1);
  for (let i = 0; i < blocks.count; i++) rows[Math.round(blocks.ys[i]! * cos - blocks.xs[i]! * sin) + offset]!++;
  let sum = 0;
  for (const n of rows) sum += n * n;
  return sum;
}

/**
 * The angle, in degrees, by which the page's lines are turned (positive: clockwise, as a canvas turns);
 * 0 when the page shows no clear skew (too little text, or no sharper angle than none).
 */
export function skewOf(luma: Uint8Array, width: number, height: number): number {
  const blocks = darkBlocks(luma, width, height);
  if (blocks.count < deskewLimits.minDarkBlocks) return 0;
  let best = 0;
  let bestSharpness = sharpness(blocks, 0);
  const unturned = bestSharpness;
  const search = (from: number, to: number, step: number) => {
    for (let i = 0; from + i * step <= to + 1e-9; i++) {
      const degrees = from + i * step;
      const s = sharpness(blocks, degrees);
      if (s > bestSharpness) {
        bestSharpness = s;
        best = degrees;
      }
    }
  };
  search(-deskewLimits.maxDegrees, deskewLimits.maxDegrees, 0.25);
  const coarse = best;
  search(coarse - 0.2, coarse + 0.2, 0.05);
  return bestSharpness >= unturned * deskewLimits.minGain ? Math.round(best * 100) / 100 : 0;
}

/**
 * The page's pixels (`channels` a pixel: 1 grey, 4 RGBA) turned back by `degrees` about its centre
 * (bilinear), the same size; what comes in at the corners takes the paper's tone (opaque), so no white
 * wedge reads as a rule or a picture.
 */
export function turned(pixels: Uint8Array, width: number, height: number, degrees: number, paper: number, channels: 1 | 4 = 1): Uint8Array {
  const out = new Uint8Array(width * height * channels);
  const t = (degrees * Math.PI) / 180;
  const sin = Math.sin(t);
  const cos = Math.cos(t);
  const cx = width / 2;
  const cy = height / 2;
  const stride = width * channels;
  for (let y = 0; y < height; y++) {
    // Where row y's first pixel comes from: the point turned by `degrees` about the centre.
    let sx = -cos * cx - sin * (y - cy) + cx;
    let sy = -sin * cx + cos * (y - cy) + cy;
    for (let x = 0, o = y * stride; x < width; x++, o += channels, sx += cos, sy += sin) {
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 >= width - 1 || y0 >= height - 1) {
        out.fill(paper, o, o + channels);
        if (channels === 4) out[o + 3] = 255;
        continue;
      }
      const fx = sx - x0;
      const fy = sy - y0;
      for (let c = 0, i = y0 * stride + x0 * channels; c < channels; c++, i++) {
        const top = pixels[i]! + (pixels[i + channels]! - pixels[i]!) * fx;
        const bottom = pixels[i + stride]! + (pixels[i + stride + channels]! - pixels[i + stride]!) * fx;
        out[o + c] = Math.round(top + (bottom - top) * fy);
      }
    }
  }
  return out;
}

/** The page straightened when it is skewed enough (deskewLimits), else the same pixels; and the angle turned back. */
export function straightened(luma: Uint8Array, width: number, height: number): { luma: Uint8Array; degrees: number; paper: number } {
  const degrees = skewOf(luma, width, height);
  const paper = paperTone(luma);
  return Math.abs(degrees) < deskewLimits.minDegrees ? { luma, degrees: 0, paper } : { luma: turned(luma, width, height, degrees, paper), degrees, paper };
}
