import type { PictureFormat } from './picture-source.ts';

/**
 * Whether an image file is whole. The canvas decoder quietly decodes a cut-off PNG or JPEG into a
 * partly blank page, so a truncated upload would be read as a page with its bottom missing; these
 * structural checks make it an unreadable file instead. GIF is not checked (its decoder stops at
 * the first frame anyway).
 */
export function isComplete(bytes: Uint8Array, format: PictureFormat): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (format) {
    case 'png': {
      // Every chunk (length, type, data, CRC) inside the file, up to IEND.
      for (let at = 8; at + 12 <= bytes.length; ) {
        const length = view.getUint32(at);
        const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
        at += 12 + length;
        if (at > bytes.length) return false;
        if (type === 'IEND') return true;
      }
      return false;
    }
    case 'jpeg': {
      // The End Of Image marker, after trailing padding some writers add.
      let end = bytes.length;
      while (end > 2 && (bytes[end - 1] === 0x00 || bytes[end - 1] === 0xff)) end--;
      return bytes[end - 2] === 0xff && bytes[end - 1] === 0xd9;
    }
    case 'webp':
      // RIFF's size field counts the bytes after it.
      return bytes.length >= 12 && view.getUint32(4, true) + 8 <= bytes.length;
    case 'bmp': {
      if (bytes.length < 30) return false;
      const width = Math.abs(view.getInt32(18, true));
      const height = Math.abs(view.getInt32(22, true));
      const bits = view.getUint16(28, true);
      const compression = bytes.length >= 34 ? view.getUint32(30, true) : 0;
      // Compressed (RLE) bitmaps have no fixed size: their declared file size must be there.
      if (compression !== 0 && compression !== 3) return view.getUint32(2, true) <= bytes.length;
      const rowBytes = Math.ceil((width * bits) / 32) * 4;
      return view.getUint32(10, true) + rowBytes * height <= bytes.length;
    }
    case 'gif':
      return true;
  }
}
