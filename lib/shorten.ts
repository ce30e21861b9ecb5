/**
 * Text cut to fit where a user reads it (a notification's title, a failure's reason, a phone's alert), with `…`
 * where it was cut. Cuts fall between code points, never inside a surrogate pair.
 */

/** At most `maxChars` code points, `…` included. */
export function shorten(text: string, maxChars: number): string {
  const chars = [...text];
  return chars.length > maxChars ? `${chars.slice(0, maxChars - 1).join('')}…` : text;
}

/** At most `maxBytes` bytes of UTF-8, `…` (3 bytes) included. */
export function shortenToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let kept = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > maxBytes - 3) break;
    kept += char;
    bytes += size;
  }
  return `${kept}…`;
}
