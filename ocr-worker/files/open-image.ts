import { UnreadableFile, type FileBytes, type FileFormat, type PageSource } from '../contract.ts';
import { fileErrors, maxImageFileBytes } from './caps.ts';
import { detectFormat, formatHeadBytes } from './format.ts';
import { openPicture } from './picture-source.ts';
import { openTiff } from './tiff-source.ts';

export type ImageFormat = Exclude<FileFormat, 'pdf'>;

/** The file's format from its first bytes; UnreadableFile when it is none this worker reads. */
export async function formatOf(file: FileBytes): Promise<FileFormat> {
  const format = detectFormat(await file.read(0, Math.min(formatHeadBytes, file.size)));
  if (!format) throw new UnreadableFile(fileErrors.unknownFormat);
  return format;
}

/**
 * An image file as pages: read whole (refused first above `maxImageFileBytes`), a multi-page TIFF
 * as its pages, any other image as one page.
 */
export async function openImage(file: FileBytes, format: ImageFormat): Promise<PageSource> {
  if (file.size > maxImageFileBytes) throw new UnreadableFile(fileErrors.tooLarge(file.size));
  const bytes = await file.read(0, file.size);
  return format === 'tiff' ? openTiff(bytes) : openPicture(bytes, format);
}

/** FileBytes over bytes in memory (tests, the bench, small files). */
export function bytesOf(data: Uint8Array): FileBytes {
  return { size: data.length, read: async (start, end) => data.subarray(start, Math.min(end, data.length)) };
}
