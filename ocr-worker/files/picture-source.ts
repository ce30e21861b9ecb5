import { loadImage } from '@napi-rs/canvas';
import { imageSize } from 'image-size';
import { UnreadableFile, type PageSource } from '../contract.ts';
import { fileErrors, formatName, maxPagePixels } from './caps.ts';
import { isComplete } from './complete.ts';
import { pagePng } from './page-png.ts';

export type PictureFormat = 'png' | 'jpeg' | 'webp' | 'gif' | 'bmp';

/**
 * A single-image file (PNG, JPEG, WebP, GIF's first frame, BMP), decoded by @napi-rs/canvas: one
 * page. Its size comes from its header (image-size) and is checked before decoding; the file being
 * that one page, a page over the cap or one that does not decode makes the file unreadable.
 */
export function openPicture(bytes: Uint8Array, format: PictureFormat): PageSource {
  const name = formatName[format];
  let size: { width: number; height: number };
  try {
    size = imageSize(bytes);
  } catch (cause) {
    throw new UnreadableFile(fileErrors.unreadable(name), { cause });
  }
  if (!(size.width > 0 && size.height > 0)) throw new UnreadableFile(fileErrors.unreadable(name));
  if (size.width * size.height > maxPagePixels) throw new UnreadableFile(fileErrors.pageTooLarge(size.width, size.height));
  if (!isComplete(bytes, format)) throw new UnreadableFile(fileErrors.unreadable(name));

  return {
    format,
    pageCount: 1,
    async page(pageNumber) {
      if (pageNumber !== 1) throw new RangeError(`The ${name} image has no page ${pageNumber}`);
      let image: Awaited<ReturnType<typeof loadImage>>;
      try {
        image = await loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      } catch (cause) {
        throw new UnreadableFile(fileErrors.unreadable(name), { cause });
      }
      // The decoder, not the header parser, has the last word on the size.
      if (!(image.width > 0 && image.height > 0)) throw new UnreadableFile(fileErrors.unreadable(name));
      if (image.width * image.height > maxPagePixels) throw new UnreadableFile(fileErrors.pageTooLarge(image.width, image.height));
      return pagePng(image);
    },
    async close() {},
  };
}
