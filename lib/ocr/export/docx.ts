import { AlignmentType, Document, HeadingLevel, Packer, Paragraph, TextRun, UnderlineType, type IParagraphOptions, type IRunOptions } from 'docx';
import type { UncertainRange } from '../pages/page.ts';

/**
 * The Word document of a digitized book (docs/SPEC.md 4.1 `GET /ocr/books/:bookTextId/export/docx`):
 * data in, bytes out. The `docx` library is imported here and nowhere else, so only the ocr-export
 * bundle carries it (test/e2e/bundle.test.ts checks).
 */


export interface DocxOptions {
  includeTitlePage: boolean;
  includePageHeadings: boolean;
  pageBreaks: boolean;
  /** Half-points, already clamped to 16..40. */
  fontSize: number;
  /** Underline the words the OCR engine doubted (each page's `uncertain`); default off. */
  markUncertain?: boolean;
}

export interface DocxBook {
  fileName: string;
  author: string;
  language: string;
  pageCount: number;
  createdAt: string;
  /** In page order. */
  pages: readonly { pageNumber: number; text: string; uncertain?: readonly UncertainRange[] }[];
  /** The body when the book has no pages at all. */
  fullText: string;
}

/**
 * Right-to-left languages and the font Word sets them in. Traditional Arabic is the naskh face Windows
 * installs with Arabic language support; it draws full diacritics (tashkeel), which classical texts
 * carry, better than Arial's Arabic, and where it is missing Word substitutes a font of the script.
 * It has no Hebrew letters, so Hebrew takes Arial, whose Windows and Mac versions have them. The
 * `lang` tag lets Word pick shaping and proofing for the script.
 */
const rtlScripts = new Map([
  ['ar', { font: 'Traditional Arabic', lang: 'ar-SA' }],
  ['fa', { font: 'Traditional Arabic', lang: 'fa-IR' }],
  ['ur', { font: 'Traditional Arabic', lang: 'ur-PK' }],
  ['he', { font: 'Arial', lang: 'he-IL' }],
]);
const ltrFont = 'Calibri';

/** Characters XML 1.0 forbids (C0 controls other than tab/newline, lone surrogates, U+FFFE/U+FFFF): Word refuses a file with one. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const notXml = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export async function buildDocx(book: DocxBook, options: DocxOptions): Promise<Uint8Array> {
  // The primary subtag decides, so `ar-EG` is laid out as `ar`.
  const rtl = rtlScripts.get(book.language.toLowerCase().split(/[-_]/)[0]!);
  const font = rtl?.font ?? ltrFont;
  const run = (text: string, extra: Partial<IRunOptions> = {}): TextRun =>
    new TextRun({
      text: text.replace(notXml, ''),
      font: { ascii: font, hAnsi: font, cs: font, eastAsia: font },
      size: options.fontSize,
      // Word sizes right-to-left and complex-script text by szCs alone.
      sizeComplexScript: options.fontSize,
      ...(rtl ? { rightToLeft: true, language: { bidirectional: rtl.lang } } : {}),
      ...extra,
    });
  // No w:jc on right-to-left paragraphs: a bidi paragraph starts at the right margin by default, while
  // Word reads an explicit `right` in one as its end, i.e. the left margin.
  const paragraph = (children: TextRun[], extra: IParagraphOptions = {}) =>
    new Paragraph({ children, ...(rtl ? { bidirectional: true } : {}), ...extra });

  const blocks: Paragraph[] = [];
  if (options.includeTitlePage) {
    const line = (label: string, value: string) => paragraph([run(`${label}: `, { bold: true }), run(value)], { alignment: AlignmentType.CENTER });
    blocks.push(
      paragraph([run(book.fileName, { bold: true, size: options.fontSize * 2, sizeComplexScript: options.fontSize * 2 })], {
        alignment: AlignmentType.CENTER,
        heading: HeadingLevel.TITLE,
        spacing: { before: 2400, after: 600 },
      }),
      line('Author', book.author),
      line('Language', book.language),
      line('Pages', String(book.pageCount)),
      line('Created', book.createdAt.slice(0, 10)),
    );
  }

  // The first paragraph of a page carries the break, so no empty paragraph opens the next page. In a
  // continuous document a heading keeps with its text and stands apart from the page before.
  const heading = (text: string, pageBreakBefore: boolean) =>
    paragraph([run(text, { bold: true, size: options.fontSize + 4, sizeComplexScript: options.fontSize + 4 })], {
      heading: HeadingLevel.HEADING_2,
      keepNext: true,
      spacing: { before: 240, after: 120 },
      ...(pageBreakBefore ? { pageBreakBefore } : {}),
    });
  // A doubted word: a wavy underline, as a proofreader's mark, apart from Word's own spelling marks (which it draws only while editing).
  const doubted: Partial<IRunOptions> = { underline: { type: UnderlineType.WAVE, color: 'C55A11' } };
  const runs = (segments: Segment[]) => segments.map((s) => run(s.text, s.doubted ? doubted : {}));
  const page = (text: string, title: string | undefined, pageBreakBefore: boolean, uncertain: readonly UncertainRange[] = []) => [
    ...(title ? [heading(title, pageBreakBefore)] : []),
    ...lineSegments(text, options.markUncertain ? uncertain : []).map((line, i) => paragraph(runs(line), pageBreakBefore && !title && i === 0 ? { pageBreakBefore } : {})),
  ];

  if (book.pages.length === 0) {
    blocks.push(...page(book.fullText, undefined, options.includeTitlePage));
  } else {
    book.pages.forEach((p, i) => {
      const title = options.includePageHeadings ? `Page ${p.pageNumber}` : undefined;
      blocks.push(...page(p.text, title, i === 0 ? options.includeTitlePage : options.pageBreaks, p.uncertain));
    });
  }

  const document = new Document({
    title: book.fileName,
    creator: 'Maktaba',
    styles: {
      default: {
        document: { run: { font: { ascii: font, hAnsi: font, cs: font, eastAsia: font }, size: options.fontSize, sizeComplexScript: options.fontSize } },
      },
    },
    sections: [{ children: blocks }],
  });
  return new Uint8Array(await Packer.toBuffer(document));
}

interface Segment {
  text: string;
  doubted: boolean;
}

/**
 * The page's lines, each cut into runs at the edges of the uncertain ranges (offsets into the whole
 * page's text): a line without one is one run, as before. A range is clipped to each line it crosses.
 */
export function lineSegments(text: string, uncertain: readonly UncertainRange[]): Segment[][] {
  const lines: Segment[][] = [];
  let start = 0;
  for (const line of text.split(/(\r\n|\r|\n)/)) {
    if (/^(\r\n|\r|\n)$/.test(line)) {
      start += line.length;
      continue;
    }
    const end = start + line.length;
    const segments: Segment[] = [];
    let at = start;
    for (const [from, to] of uncertain) {
      const a = Math.max(from, at);
      const b = Math.min(to, end);
      if (a >= b) continue;
      if (a > at) segments.push({ text: text.slice(at, a), doubted: false });
      segments.push({ text: text.slice(a, b), doubted: true });
      at = b;
    }
    if (at < end || segments.length === 0) segments.push({ text: text.slice(at, end), doubted: false });
    lines.push(segments);
    start = end;
  }
  return lines;
}
