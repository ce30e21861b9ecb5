/**
 * The Word export's numbers and its media type (docs/SPEC.md 4.1 `GET /ocr/books/:bookTextId/export/docx`),
 * apart from the builder: the API document reads them without carrying the docx library.
 */

export const docxContentType = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** `fontSize` in half-points (docs/SPEC.md 8): rounded, clamped to min..max; a value that is not numeric is the default. */
export const fontSizes = { min: 16, max: 40, fallback: 24 } as const;

/**
 * Largest document answered in the response itself. Lambda's synchronous response is capped at 6 MB
 * and binary travels base64 (4/3 larger): 4,000,000 bytes become 5,333,336, which leaves ~950 KB for
 * the headers and the JSON envelope. Larger documents go through the uploads bucket.
 */
export const maxInlineBytes = 4_000_000;
/** A presigned URL is a bearer credential for a private book: short, but enough to start a download. */
export const exportUrlSeconds = 300;
