/**
 * `npx tsx scripts/sample-scan.ts [FILE] [--pages N]`: writes a scanned-looking Arabic PDF (A4 page
 * images at 300 dpi with light scan noise, no text layer), for trying the OCR worker end to end
 * (docs/walkthroughs/ocr-and-books.md). The pages are made here, from the fixture text and fonts of
 * ocr-worker/fixtures (devDependencies), so nothing is downloaded.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { scannedPdf } from '../ocr-worker/fixtures/pdf.ts';
import { renderTextPage } from '../ocr-worker/fixtures/render.ts';
import { arabicLines } from '../ocr-worker/fixtures/texts.ts';

const { values, positionals } = parseArgs({ options: { pages: { type: 'string', default: '2' } }, allowPositionals: true });
const pages = Number(values.pages);
const file = positionals[0] ?? 'sample-scan.pdf';
if (!Number.isInteger(pages) || pages < 1 || pages > 50) {
  process.stderr.write('sample-scan: --pages takes a whole number from 1 to 50\n');
  process.exit(1);
}
const linesPerPage = 8;
const pngs = Array.from({ length: pages }, (_, p) =>
  renderTextPage({
    lines: Array.from({ length: linesPerPage }, (_, i) => arabicLines[(p * linesPerPage + i) % arabicLines.length]!),
    font: 'amiri',
    noise: 'light',
  }),
);
writeFileSync(file, await scannedPdf(pngs));
process.stderr.write(`${file}: ${pages} scanned Arabic page${pages === 1 ? '' : 's'}\n`);
