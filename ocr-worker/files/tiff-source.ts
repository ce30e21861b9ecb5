import UTIF from 'utif2';
import { PageError, UnreadableFile, type PageSource } from '../contract.ts';
import { fileErrors, maxPagePixels, maxPageSampleBytes } from './caps.ts';
import { greyImages } from './page-image.ts';
import { pagePng, readSize } from './page-png.ts';
import { checkTiffStructure } from './tiff-structure.ts';

/**
 * A TIFF, one page per image directory (thumbnails skipped), decoded here with utif2: tesseract.js's
 * own TIFF reader killed the whole process on a Deflate TIFF. A page's size is checked from its
 * directory before its strips are decompressed.
 */
export function openTiff(bytes: Uint8Array): PageSource {
  const unreadable = new UnreadableFile(fileErrors.unreadable('TIFF'));
  if (!('directories' in checkTiffStructure(bytes))) throw unreadable;
  // An ArrayBuffer of exactly the file (utif2 reads from its start), so utif2 views it rather than
  // copying it on every page. `new Uint8Array(bytes)` copies (a Buffer's slice() would not).
  const buffer = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : new Uint8Array(bytes).buffer;
  let directories: UTIF.IFD[];
  try {
    directories = UTIF.decode(buffer);
  } catch (cause) {
    throw new UnreadableFile(unreadable.message, { cause });
  }
  const dimension = (ifd: UTIF.IFD, tag: string): number => Number((ifd[tag] as number[] | undefined)?.[0] ?? 0);
  const pages = directories.filter((ifd) => dimension(ifd, 't256') > 0 && dimension(ifd, 't257') > 0 && (dimension(ifd, 't254') & 1) === 0);
  if (pages.length === 0) throw new UnreadableFile(fileErrors.noPages('TIFF'));

  return {
    format: 'tiff',
    pageCount: pages.length,
    async page(pageNumber) {
      const ifd = pages[pageNumber - 1];
      if (!ifd) throw new RangeError(`The TIFF has no page ${pageNumber}`);
      const width = dimension(ifd, 't256');
      const height = dimension(ifd, 't257');
      if (width * height > maxPagePixels) throw new PageError(fileErrors.pageTooLarge(width, height));
      // Checked from the directory too: samples per pixel and their bits multiply what is decoded.
      const bitsPerPixel = Math.max(1, dimension(ifd, 't277')) * Math.max(1, ...((ifd.t258 as number[] | undefined) ?? [1]));
      const sampleBytes = (width * height * bitsPerPixel) / 8;
      if (sampleBytes > maxPageSampleBytes) throw new PageError(fileErrors.pageTooMuchData(sampleBytes));
      let rgba: Uint8Array;
      try {
        UTIF.decodeImage(buffer, ifd);
        const luma = greyLuma(ifd, width, height);
        if (luma) return greyImages(luma, width, height);
        rgba = UTIF.toRGBA8(ifd);
      } catch (cause) {
        throw new PageError(fileErrors.pageUnreadable('TIFF'), { cause });
      } finally {
        // The decoded samples are only needed for this page.
        delete (ifd as Partial<UTIF.IFD>).data;
      }
      if (rgba.length !== width * height * 4) throw new PageError(fileErrors.pageUnreadable('TIFF'));
      return pagePng({ rgba, width, height });
    },
    async close() {},
  };
}

/**
 * The pixels of an 8-bit one-sample grey page at its read size as luma, skipping UTIF's RGBA (0.15-0.2 s
 * on an A4 300-dpi page, 2026-11-27); the same values toRGBA8 gives. Undefined for any other page.
 */
function greyLuma(ifd: UTIF.IFD, width: number, height: number): Uint8Array | undefined {
  const tag = (name: string): number | undefined => (ifd[name] as number[] | undefined)?.[0];
  const photometric = tag('t262'); // 0 WhiteIsZero, 1 BlackIsZero
  const data = ifd.data as Uint8Array | undefined;
  const size = readSize(width, height);
  if ((photometric !== 0 && photometric !== 1) || tag('t258') !== 8 || (tag('t277') ?? 1) !== 1 || tag('t339') === 3) return undefined;
  if (!data || data.length < width * height || size.width !== width || size.height !== height) return undefined;
  const luma = data.subarray(0, width * height);
  return photometric === 1 ? luma : luma.map((v) => 255 - v);
}
