import type { FixtureFont } from '../../ocr-worker/fixtures/fonts.ts';
import { a4, bornDigitalPdf, scannedPdf, type FixtureLanguage } from '../../ocr-worker/fixtures/pdf.ts';
import { seeded } from '../../ocr-worker/fixtures/random.ts';
import { a4LinesPerColumn, renderTextPage, type Noise } from '../../ocr-worker/fixtures/render.ts';
import { toTiff } from '../../ocr-worker/fixtures/tiff.ts';
import { benchLines } from './texts.ts';

/**
 * The bench's evaluation set, built from the fixture builders and the npm fonts on every run (never
 * files from outside the repository), the same on every run (seeded line order and scan noise).
 * Per language four kinds, each a full A4 page of book text per page:
 * - scanned PNG: one file per page, rendered at 300 dpi with a scan look;
 * - scanned TIFF: one multi-page Deflate TIFF of such pages (the compression scanners write);
 * - scanned PDF: one PDF of such page images, no text layer;
 * - born-digital PDF: one PDF with a real text layer (shaped Arabic, as a word processor writes it).
 *   Its Arabic font (bornDigitalPdf embeds Amiri's Arabic subset alone) has no `.`, `:`, `!` or
 *   Western digits, and its layout draws Arabic-Indic numbers reversed: those pages leave out lines
 *   with digits and those three marks, or the command line would be scored on boxes and wrong numbers.
 * Every third Arabic scanned page (the second, fifth, ...) is a two-column book page (issue 33): a
 * running head, two columns, a footnote block and a page number, where reading straight across the
 * page (single-block layout) mixes the columns. Its reference is in reading order: head, right
 * column, left column, footnotes, page number.
 * Scan damage (issue 33), as office scans of bound books show it (ocr-worker/fixtures/render.ts): every
 * scanned page has some show-through of the other side of the leaf (mirrored, faint, blurred) and light
 * falling off into a gutter band along the spine's edge, varied page to page; and about one scanned page
 * in six (isBadlyDamaged: one page per scanned form, single- and two-column) is badly damaged — heavy
 * show-through, a dark gutter whose text keeps little contrast, a stain, more blur — as a real book's
 * scan has a few pages far worse than the rest. The references are the front's text only. The
 * held-out part (other seed offsets) damages other pages by the same rule.
 */
export type Form = 'png' | 'tiff' | 'scanned-pdf' | 'born-digital-pdf';
export const forms: readonly Form[] = ['png', 'tiff', 'scanned-pdf', 'born-digital-pdf'];
export const formLabel: Record<Form, string> = { png: 'scan PNG', tiff: 'scan TIFF', 'scanned-pdf': 'scan PDF', 'born-digital-pdf': 'born-digital PDF' };
export const isScan = (form: Form): boolean => form !== 'born-digital-pdf';

export interface EvaluationKind {
  language: FixtureLanguage;
  form: Form;
  /** The files a user would upload, each one job; their pages in order. */
  files: Uint8Array[];
  /** The text printed on each page, in file order then page order. */
  references: string[];
}

/** Book type: Arabic at 13–14 pt in Amiri or Noto Naskh, English at 11–12 pt in Noto Serif. */
const typeOf = (language: FixtureLanguage, page: number): { font: FixtureFont; sizePt: number } =>
  language === 'ar' ? { font: page % 2 ? 'noto-naskh' : 'amiri', sizePt: page % 3 === 2 ? 13 : 14 } : { font: 'noto-serif', sizePt: page % 2 ? 11 : 12 };

/** Lines that fill an A4 page at 300 dpi in renderTextPage's layout (0.8 in margins, 1.7 line height). */
function scanLinesPerPage(sizePt: number): number {
  const px = (sizePt / 72) * 300;
  const usable = (11.69 - 1.6) * 300;
  return Math.floor((usable - px) / Math.round(px * 1.7)) + 1;
}

/** Lines that fill an A4 page in bornDigitalPdf's layout (56 pt margins, 1.8 line height). */
const pdfLinesPerPage = (sizePt: number): number => Math.floor((a4.height - 2 * 56) / (sizePt * 1.8));

/** `count` lines drawn from the pool in a seeded order, no line twice on a page while the pool lasts. */
function pageLines(pool: readonly string[], count: number, random: () => number): string[] {
  const lines: string[] = [];
  while (lines.length < count) {
    const shuffled = [...pool];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    lines.push(...shuffled.slice(0, count - lines.length));
  }
  return lines;
}

/** An office scan, varied page to page: a little blur, specks, skew up to ±0.6°, grey paper. */
function scanNoise(random: () => number, seed: number): Noise {
  return { blur: 0.6 + 0.3 * random(), speckles: 30 + 30 * random(), rotate: (random() - 0.5) * 1.2, paper: 0.08 + 0.07 * random(), seed };
}

/**
 * A book's pages scanned on a flatbed: the other side of the leaf showing through a little and light
 * falling off toward the spine, whose side alternates page to page (left, right, ...). Badly damaged
 * pages add heavy show-through, a strongly shadowed gutter, a stain and more blur: the pages a
 * proofreader redoes. Drawn from their own generator, so the pages' lines are those of the set before
 * the damage was added (the shared generator gives the line orders and the scanNoise draws).
 */
function bookDamage(noise: Noise, page: number, bad: boolean, seed: number): Noise {
  const random = seeded(seed * 7919 + 17);
  const gutter = page % 2 ? 'right' : 'left';
  if (!bad) return { ...noise, showThrough: 0.1 + 0.25 * random(), unevenLight: 0.1 + 0.25 * random(), gutter };
  return { ...noise, blur: (noise.blur ?? 0) + 0.5 + 0.3 * random(), showThrough: 0.75 + 0.25 * random(), unevenLight: 0.8 + 0.2 * random(), stain: 0.5 + 0.5 * random(), gutter };
}

/**
 * About one scanned page in six is badly damaged: page p of a kind when (p + 2 × the form's index +
 * the seed offset) mod 6 is 5. With six pages a kind, that is page 6 of the PNGs, page 4 of the TIFF
 * and page 2 (a two-column page in Arabic) of the scanned PDF: one a form, both layouts.
 */
export const isBadlyDamaged = (form: Form, page: number, seedOffset = 0): boolean => isScan(form) && (page + 2 * forms.indexOf(form) + seedOffset) % 6 === 5;

/** Running heads of the two-column pages: book titles as a printer sets them. */
const runningHeads = ['كتاب الأدب والحكمة', 'تاريخ المكتبات العربية', 'فصول في النحو والبلاغة', 'رحلة في بلاد المغرب'];
const arabicDigits = (n: number): string => String(n).replace(/[0-9]/gu, (d) => String.fromCharCode(0x0660 + Number(d)));
export const isTwoColumnPage = (language: FixtureLanguage, page: number): boolean => language === 'ar' && page % 3 === 1;

/** A line split in two at the word nearest its middle: a column holds half a page's width. */
function halves(line: string): string[] {
  const words = line.split(' ');
  if (words.length < 2) return [line];
  const cut = Math.round(words.length / 2);
  return [words.slice(0, cut).join(' '), words.slice(cut).join(' ')];
}

/** A two-column Arabic book page with its running head, two footnotes and page number. */
function twoColumnPage(pool: readonly string[], page: number, sizePt: number, random: () => number): { lines: string[]; head: string; footnotes: string[]; folio: string } {
  const head = runningHeads[page % runningHeads.length]!;
  const folio = arabicDigits(11 + page);
  const footnotes = pageLines(pool, 2, random).map((l, i) => `(${arabicDigits(i + 1)}) ${l}`);
  const perColumn = a4LinesPerColumn({ sizePt, head, footnotes, folio });
  const lines: string[] = [];
  while (lines.length < 2 * perColumn) lines.push(...pageLines(pool, perColumn, random).flatMap(halves));
  return { lines: lines.slice(0, 2 * perColumn), head, footnotes, folio };
}

const seedOf = (language: FixtureLanguage, form: Form): number => 1000 * (language === 'ar' ? 1 : 2) + 100 * forms.indexOf(form);

/** `seedOffset` builds other pages of the same kind (other line orders and scan damage): a held-out part. */
export async function buildKind(language: FixtureLanguage, form: Form, pages: number, seedOffset = 0): Promise<EvaluationKind> {
  const seed = seedOf(language, form) + seedOffset;
  const random = seeded(seed);
  const pool = benchLines[language];
  if (form === 'born-digital-pdf') {
    const sizePt = language === 'ar' ? 14 : 12;
    const lines = language === 'ar' ? pool.filter((l) => !/[0-9\u0660-\u0669]/u.test(l)).map((l) => l.replace(/[.:!]/gu, '')) : pool;
    const pageTexts = Array.from({ length: pages }, () => pageLines(lines, pdfLinesPerPage(sizePt), random));
    return { language, form, files: [await bornDigitalPdf({ pages: pageTexts, language, sizePt })], references: pageTexts.map((l) => l.join('\n')) };
  }
  const pngs: Buffer[] = [];
  const references: string[] = [];
  for (let p = 0; p < pages; p++) {
    const { font, sizePt } = typeOf(language, p);
    const damage = (noise: Noise): Noise => bookDamage(noise, p, isBadlyDamaged(form, p, seedOffset), seed + p);
    if (isTwoColumnPage(language, p)) {
      const book = twoColumnPage(pool, p, sizePt, random);
      pngs.push(renderTextPage({ ...book, font, sizePt, page: 'a4', columns: 2, noise: damage(scanNoise(random, seed + p)) }));
      references.push([book.head, ...book.lines, ...book.footnotes, book.folio].join('\n'));
      continue;
    }
    const lines = pageLines(pool, scanLinesPerPage(sizePt), random);
    pngs.push(renderTextPage({ lines, font, sizePt, page: 'a4', noise: damage(scanNoise(random, seed + p)) }));
    references.push(lines.join('\n'));
  }
  const files = form === 'png' ? pngs : form === 'tiff' ? [await toTiff(pngs, { compression: 'deflate' })] : [await scannedPdf(pngs)];
  return { language, form, files, references };
}

export const kindName = (language: FixtureLanguage, form: Form): string => `${language} ${formLabel[form]}`;
