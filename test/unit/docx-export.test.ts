import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { buildDocx, lineSegments, type DocxBook } from '../../lib/ocr/export/docx.ts';
import * as v from 'valibot';
import { ocrExportContracts } from '../../functions/ocr-export/contract.ts';
import { attachment, exportFileName } from '../../lib/ocr/export/export.ts';

/** The export's query as its contract parses it before the handler runs. */
const exportOptions = (query: Record<string, string>) => v.parse(ocrExportContracts['GET /ocr/books/{bookTextId}/export/docx'].query, query);

/** The Word document of docs/SPEC.md 4.1's export, read back from the zip as Word would read it. */

const arabic: DocxBook = {
  fileName: 'كتاب الأربعين.pdf',
  author: 'الإمام النووي',
  language: 'ar',
  pageCount: 3,
  createdAt: '2026-02-03T10:00:00.000Z',
  pages: [
    { pageNumber: 1, text: 'بسم الله الرحمن الرحيم\nالحمد لله رب العالمين' },
    { pageNumber: 2, text: 'إنما الأعمال بالنيات' },
    { pageNumber: 5, text: 'وإنما لكل امرئ ما نوى' },
  ],
  fullText: '',
};
const english: DocxBook = { ...arabic, fileName: 'Forty Hadith.pdf', author: 'An-Nawawi', language: 'en', pages: [
  { pageNumber: 1, text: 'In the name of God\nPraise be to God' },
  { pageNumber: 2, text: 'Actions are by intentions' },
] };

const all = { includeTitlePage: true, includePageHeadings: true, pageBreaks: true, fontSize: 24, markUncertain: false };

async function documentXml(book: DocxBook, options: Partial<typeof all> = {}): Promise<string> {
  const files = unzipSync(await buildDocx(book, { ...all, ...options }));
  return strFromU8(files['word/document.xml']!);
}
const count = (xml: string, s: string) => xml.split(s).length - 1;
const texts = (xml: string) => [...xml.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((m) => m[1]);

describe('docx layout (docs/SPEC.md 4.1 export)', () => {
  it('lays out Arabic right to left: bidi paragraphs, rtl runs, a complex-script font and size', async () => {
    const xml = await documentXml(arabic, { fontSize: 32 });
    const paragraphs = count(xml, '<w:p>');
    expect(count(xml, '<w:bidi/>')).toBe(paragraphs);
    expect(count(xml, '<w:rtl/>')).toBe(count(xml, '<w:r>'));
    expect(xml).toContain('<w:rFonts w:ascii="Traditional Arabic" w:cs="Traditional Arabic" w:eastAsia="Traditional Arabic" w:hAnsi="Traditional Arabic"/>');
    expect(xml).toContain('<w:sz w:val="32"/><w:szCs w:val="32"/>');
    expect(xml).toContain('<w:lang w:bidi="ar-SA"/>');
    // A bidi paragraph starts at the right margin by itself; `right` would mean its end (the left) in Word.
    expect(xml).not.toMatch(/<w:jc w:val="(left|right|start|end)"\/>/);
  });

  it.each(['ur', 'fa', 'he', 'AR', 'ar-EG'])('lays out %s right to left too', async (language) => {
    const xml = await documentXml({ ...arabic, language });
    expect(xml).toContain('<w:bidi/>');
    expect(xml).toContain('<w:rtl/>');
  });

  it.each(['en', 'constructor', ''])('lays out %j left to right: no bidi, no rtl', async (language) => {
    const xml = await documentXml({ ...english, language });
    expect(xml).not.toContain('<w:bidi');
    expect(xml).not.toContain('<w:rtl');
    expect(xml).toContain('w:cs="Calibri"');
    expect(xml).toContain('<w:sz w:val="24"/><w:szCs w:val="24"/>');
  });

  it('puts one paragraph per line, pages in the given order, with `Page N` headings by page number', async () => {
    const xml = await documentXml(arabic, { includeTitlePage: false });
    expect(texts(xml)).toEqual([
      'Page 1',
      'بسم الله الرحمن الرحيم',
      'الحمد لله رب العالمين',
      'Page 2',
      'إنما الأعمال بالنيات',
      'Page 5',
      'وإنما لكل امرئ ما نوى',
    ]);
    expect(count(xml, '<w:pStyle w:val="Heading2"/>')).toBe(3);
  });

  it('leaves the headings out when includePageHeadings is off', async () => {
    const xml = await documentXml(arabic, { includeTitlePage: false, includePageHeadings: false });
    expect(xml).not.toContain('Page ');
    expect(xml).not.toContain('Heading2');
    expect(texts(xml)).toHaveLength(4);
  });

  it('starts each OCR page on a new document page with pageBreaks, and after the title page', async () => {
    expect(count(await documentXml(arabic), '<w:pageBreakBefore/>')).toBe(3);
    expect(count(await documentXml(arabic, { includeTitlePage: false }), '<w:pageBreakBefore/>')).toBe(2);
    expect(count(await documentXml(arabic, { includePageHeadings: false }), '<w:pageBreakBefore/>')).toBe(3);
  });

  it('runs continuously without pageBreaks (the title page still ends with a break)', async () => {
    expect(count(await documentXml(arabic, { pageBreaks: false }), '<w:pageBreakBefore/>')).toBe(1);
    expect(count(await documentXml(arabic, { pageBreaks: false, includeTitlePage: false }), '<w:pageBreakBefore/>')).toBe(0);
    expect(await documentXml(arabic, { pageBreaks: false, includeTitlePage: false })).not.toContain('w:type="page"');
  });

  it('writes a title page with the file name, author, language, page count and creation date', async () => {
    const xml = await documentXml(arabic);
    expect(texts(xml).slice(0, 11)).toEqual([
      'كتاب الأربعين.pdf',
      'Author: ',
      'الإمام النووي',
      'Language: ',
      'ar',
      'Pages: ',
      '3',
      'Created: ',
      '2026-02-03',
      'Page 1',
      'بسم الله الرحمن الرحيم',
    ]);
    expect(xml).toContain('<w:pStyle w:val="Title"/>');
    expect(xml).toContain('<w:jc w:val="center"/>');
    expect(await documentXml(arabic, { includeTitlePage: false })).not.toContain('Author: ');
  });

  it('exports the full text when there are no pages', async () => {
    const xml = await documentXml({ ...english, pages: [], fullText: 'first line\r\nsecond line' }, { includeTitlePage: false });
    expect(texts(xml)).toEqual(['first line', 'second line']);
    expect(xml).not.toContain('Page ');
  });

  it('drops characters XML cannot carry, which would make Word refuse the file', async () => {
    const xml = await documentXml({ ...english, pages: [{ pageNumber: 1, text: 'a\u0000b\u000Bc\uD800d\tz' }] }, { includeTitlePage: false });
    expect(texts(xml)).toEqual(['Page 1', 'abcd\tz']);
  });

  it('sizes every run from fontSize: 24 by default, in half-points', async () => {
    const xml = await documentXml(english, { ...exportOptions({}), includeTitlePage: false, includePageHeadings: false });
    expect(count(xml, '<w:sz w:val="24"/>')).toBe(count(xml, '<w:r>'));
  });
});

describe('doubted words (docs/interface.md, "Confidence")', () => {
  const text = 'بسم الله الرحمن الرحيم\nالحمد لله رب العالمين';
  const at = (word: string, from = 0): [number, number] => [text.indexOf(word, from), text.indexOf(word, from) + word.length];
  const doubted = { ...arabic, pages: [{ pageNumber: 1, text, uncertain: [at('الله'), at('الحمد'), at('رب', 30)] }] };
  const underlined = (xml: string) => [...xml.matchAll(/<w:r>(?:(?!<\/w:r>).)*?<w:u w:val="wave"[^>]*\/>(?:(?!<\/w:r>).)*?<w:t[^>]*>([^<]*)<\/w:t>/gs)].map((m) => m[1]);

  it('underlines each doubted word with a wavy line, the rest of each line as before, when asked', async () => {
    const xml = await documentXml(doubted, { markUncertain: true, includeTitlePage: false });
    expect(underlined(xml)).toEqual(['الله', 'الحمد', 'رب']);
    // The lines read whole, in their paragraphs.
    const paragraphs = [...xml.matchAll(/<w:p>(.*?)<\/w:p>/gs)].map((p) => texts(p[1]!).join(''));
    expect(paragraphs).toEqual(['Page 1', 'بسم الله الرحمن الرحيم', 'الحمد لله رب العالمين']);
  });

  it('underlines nothing by default, and is the same document as a book without doubted words', async () => {
    const xml = await documentXml(doubted, { includeTitlePage: false });
    expect(underlined(xml)).toEqual([]);
    expect(xml).toBe(await documentXml({ ...doubted, pages: [{ pageNumber: 1, text: doubted.pages[0]!.text }] }, { includeTitlePage: false }));
  });

  it('clips a range that crosses a line end to each line', () => {
    expect(lineSegments('ab\ncd', [[1, 4]])).toEqual([
      [{ text: 'a', doubted: false }, { text: 'b', doubted: true }],
      [{ text: 'c', doubted: true }, { text: 'd', doubted: false }],
    ]);
    expect(lineSegments('ab\r\n\ncd', [])).toEqual([[{ text: 'ab', doubted: false }], [{ text: '', doubted: false }], [{ text: 'cd', doubted: false }]]);
  });
});

describe('export query (docs/SPEC.md 4.1)', () => {
  it('defaults every flag on and fontSize to 24', () => {
    expect(exportOptions({})).toEqual(all);
  });

  it('keeps a flag on only for the string `true`', () => {
    for (const value of ['false', '1', 'TRUE', 'yes', '']) {
      expect(exportOptions({ includeTitlePage: value, includePageHeadings: value, pageBreaks: value })).toMatchObject({
        includeTitlePage: false,
        includePageHeadings: false,
        pageBreaks: false,
      });
    }
    expect(exportOptions({ includeTitlePage: 'true', includePageHeadings: 'true', pageBreaks: 'true' })).toEqual(all);
  });

  it('underlines doubted words only for markUncertain=true', () => {
    expect(exportOptions({ markUncertain: 'true' }).markUncertain).toBe(true);
    for (const value of ['false', '1', 'TRUE', '']) expect(exportOptions({ markUncertain: value }).markUncertain).toBe(false);
  });

  it.each([
    ['10', 16],
    ['99', 40],
    ['abc', 24],
    ['', 24],
    ['16', 16],
    ['40', 40],
    ['32', 32],
    ['20.6', 21],
    ['-5', 16],
    ['Infinity', 24],
  ])('fontSize %j -> %i', (fontSize, expected) => {
    expect(exportOptions({ fontSize }).fontSize).toBe(expected);
  });
});

describe('export file name', () => {
  it.each([
    ['كتاب الأربعين.pdf', 'كتاب الأربعين'],
    ['مُحَمَّد.png', 'مُحَمَّد'],
    ['ספר תהילים.pdf', 'ספר תהילים'],
    ['Sahih (vol. 1).pdf', 'Sahih vol 1'],
    ['Tafsir vol. 2', 'Tafsir vol 2'],
    ['my_book-v2.final.tiff', 'my_book-v2final'],
    ['a/b\\c:d*e?f"g<h>i|j.pdf', 'abcdefghij'],
    ['  spaced\tout \n name .pdf', 'spaced out name'],
    ['"";.pdf', 'book'],
    ['.pdf', 'book'],
    ['', 'book'],
    [null, 'book'],
  ])('%j -> %j', (fileName, expected) => {
    expect(exportFileName(fileName)).toBe(expected);
  });

  it('keeps at most 100 characters', () => {
    expect(exportFileName(`${'ب'.repeat(150)}.pdf`)).toBe('ب'.repeat(100));
  });

  it('percent-encodes the name in the attachment header', () => {
    expect(attachment('كتاب 1')).toBe('attachment; filename="%D9%83%D8%AA%D8%A7%D8%A8%201.docx"');
  });
});
