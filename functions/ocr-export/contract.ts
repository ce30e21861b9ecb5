import * as v from 'valibot';
import { docxContentType, exportUrlSeconds, fontSizes, maxInlineBytes } from '../../lib/ocr/export/rules.ts';
import { binaryAnswer, contracts, jsonAnswer } from '../_shared/contract/contract.ts';
import { ocrErrorAnswer, pathId, queryFlag } from '../_shared/contract/shapes.ts';

/** `ocr-export` (docs/SPEC.md 4.1): the Word export. */

/** Half-points (docs/SPEC.md 8): rounded, clamped to 16..40; a value that is not numeric (empty included) reads as 24. */
const fontSize = v.pipe(
  v.optional(v.string(), ''),
  v.transform((value) => {
    const asked = value.trim() === '' ? NaN : Number(value);
    return Number.isFinite(asked) ? Math.min(fontSizes.max, Math.max(fontSizes.min, Math.round(asked))) : fontSizes.fallback;
  }),
  v.number(),
  v.integer(),
  v.minValue(fontSizes.min),
  v.maxValue(fontSizes.max),
  v.description(`Half-points: rounded, then clamped to ${fontSizes.min}..${fontSizes.max}; a value that is not a number reads as ${fontSizes.fallback}.`),
  v.metadata({ default: fontSizes.fallback }),
);

/** Off unless exactly `true` (an addition: docs/interface.md, "Confidence"; the spec's flags are on unless something else). */
const markUncertain = v.pipe(
  v.optional(v.string(), 'false'),
  v.transform((value) => value === 'true'),
  v.boolean(),
  v.description(
    'Not in docs/SPEC.md (docs/interface.md, "Export to Word"): `true` underlines, with a wavy line, the words the OCR engine doubted (each page’s `uncertain`); any other value, or none, exports as before.',
  ),
  v.metadata({ default: false }),
);

/** The 303's body: the document waits at `url` (also `Location`). */
const StoredExport = v.pipe(
  v.strictObject({ success: v.literal(true), url: v.pipe(v.string(), v.url()) }),
  v.description(`The document was over ${maxInlineBytes} bytes: it waits at \`url\` (and in \`Location\`), signed for ${exportUrlSeconds / 60} minutes.`),
);

/** Each route's 500 text (its contract's `failure`). */
const exportFailed = 'Error exporting book';

export const ocrExportContracts = contracts({
  'GET /ocr/books/{bookTextId}/export/docx': {
    tag: 'Digitized books',
    summary: 'Export a digitized book to Word',
    failure: exportFailed,
    description:
      'The owner, editors and admins (a public book is not exported by others); members also need an active subscription, checked before the book is looked up. Pages in page order, right to left for `ar`, `ur`, `fa` and `he`. The file is named after the book (`Content-Disposition: attachment`). A malformed id is a 500 (docs/SPEC.md 7). Both answers carry `Cache-Control: private, no-store`.',
    params: v.object({ bookTextId: pathId('The BookText’s ObjectId.') }),
    query: v.object({
      includeTitlePage: queryFlag('A title page (file name, author, language, page count, creation date); only the value `true` keeps it.'),
      includePageHeadings: queryFlag('A `Page N` heading before each page; only the value `true` keeps them.'),
      pageBreaks: queryFlag('Each page on a new document page; only the value `true` keeps them, else the text runs on.'),
      fontSize,
      markUncertain,
    }),
    responses: {
      200: binaryAnswer('The document.', docxContentType),
      303: {
        ...jsonAnswer(`A document over ${maxInlineBytes} bytes (too large for a Lambda answer): follow \`Location\`, a signed URL of the document.`, StoredExport),
        headers: { Location: `The signed URL of the document, valid ${exportUrlSeconds} seconds.` },
      },
      403: ocrErrorAnswer(
        'No active subscription (`error: "SUBSCRIPTION_REQUIRED"`, `subscriptionRequired: true`), or `Unauthorized to export this book`: not the owner, an editor or an admin.',
      ),
      404: ocrErrorAnswer('`Book not found`.'),
      500: ocrErrorAnswer(`\`${exportFailed}\`: a malformed id (\`Invalid bookText id: <id>\`), the subscription could not be verified, or the export failed.`),
    },
  },
});
