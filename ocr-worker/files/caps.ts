/**
 * Limits on image files and pages (issue 13, hostile files). One source for the numbers and for the
 * messages users read.
 *
 * - An image file is read whole (one GET), so it is refused above `maxImageFileBytes` before any
 *   byte is read: 200 MB holds a 20-page uncompressed grey A4 TIFF at 300 dpi with room to spare.
 * - A page above `maxPagePixels` (40 megapixels: A4 at 600 dpi is 35) is refused from the size its
 *   header declares, before anything is decoded: a decompression bomb allocates nothing.
 * - A page above `readPagePixels` (16 megapixels: A4 at 400 dpi, A3 at 290) is scaled down to it:
 *   Tesseract reads book type well at 300 dpi, and time and memory grow with the pixels.
 */
export const maxImageFileBytes = 200 * 1024 * 1024;
export const maxPagePixels = 40_000_000;
/**
 * Decoded sample bytes per page (a TIFF declares its samples per pixel and their bits): the pixel
 * cap's RGBA, 160 MB. A TIFF page of 16 MP declaring 200 samples a pixel would decode to 3.2 GB.
 */
export const maxPageSampleBytes = maxPagePixels * 4;
export const readPagePixels = 16_000_000;

const megapixels = (n: number): string => `${Math.round(n / 1e6)} megapixels`;

export const fileErrors = {
  unknownFormat: 'The file is not a PDF or an image this service reads (PNG, JPEG, TIFF, WebP, GIF, BMP).',
  tooLarge: (bytes: number) =>
    `The image file is too large (${Math.round(bytes / 1024 / 1024)} MB; the limit is ${maxImageFileBytes / 1024 / 1024} MB).`,
  unreadable: (format: string) => `The file could not be read as a ${format} image: it may be damaged or incomplete.`,
  pageTooLarge: (width: number, height: number) =>
    `The page is too large (${width} × ${height} pixels, ${megapixels(width * height)}; the limit is ${megapixels(maxPagePixels)}).`,
  pageTooMuchData: (bytes: number) =>
    `The page holds more image data than a page may (${Math.round(bytes / 1e6).toLocaleString('en-US')} MB decoded; the limit is ${maxPageSampleBytes / 1e6} MB).`,
  pageUnreadable: (format: string) => `This page of the ${format} file could not be decoded.`,
  noPages: (format: string) => `The ${format} file holds no image.`,
} as const;

/** The format's name as users know it. */
export const formatName = { pdf: 'PDF', png: 'PNG', jpeg: 'JPEG', tiff: 'TIFF', webp: 'WebP', gif: 'GIF', bmp: 'BMP' } as const;
