import { describe, expect, it } from 'vitest';
import { characterErrorRate } from '../../ocr-worker/pdf/compare.ts';
import { textFromItems, type LayerItem } from '../../ocr-worker/pdf/text-layer.ts';
import { normalizeLayer, textLayerProblem } from '../../ocr-worker/pdf/trust.ts';

const line = 'كان يا ما كان في قديم الزمان مدينة جميلة فيها مكتبة كبيرة';

/** An RTL line written one glyph per item, left to right as the glyphs sit on the page (visual order). */
function glyphItems(text: string, y: number, size = 12, advance = 6): LayerItem[] {
  const chars = [...text];
  return chars
    .map((ch, i) => ({ str: ch, x: 500 - (i + 1) * advance, y, width: ch === ' ' ? 0 : advance * 0.95, size }))
    .filter((item) => item.str !== ' ')
    .sort((p, q) => p.x - q.x);
}

describe('the text layer rebuilt from item positions', () => {
  it('reads a visual-order Arabic line (one item per glyph, left to right) in logical order', () => {
    const items = glyphItems(line, 700);
    expect(items.map((i) => i.str).join('')).not.toBe(line.replaceAll(' ', '')); // the file's order is backwards
    expect(textFromItems(items)).toBe(line);
  });

  it('orders lines top to bottom and keeps a Latin word and a number left to right inside an Arabic line', () => {
    const items: LayerItem[] = [
      { str: 'السطر الثاني', x: 300, y: 680, width: 200, size: 12 },
      { str: '2024', x: 150, y: 700, width: 30, size: 12 }, // reads left to right: "2024 Maktaba"
      { str: 'Maktaba', x: 190, y: 700, width: 50, size: 12 },
      { str: 'هذا الكتاب من', x: 250, y: 700, width: 80, size: 12 },
      { str: 'في سنة', x: 80, y: 700, width: 40, size: 12 },
    ];
    expect(textFromItems(items)).toBe('هذا الكتاب من 2024 Maktaba في سنة\nالسطر الثاني');
  });

  it('reads English items left to right whatever their order in the file', () => {
    const items: LayerItem[] = [
      { str: 'world', x: 140, y: 700, width: 40, size: 12 },
      { str: 'Hello', x: 90, y: 700.5, width: 40, size: 12 },
    ];
    expect(textFromItems(items)).toBe('Hello world');
  });
});

describe('whether a page text layer may stand in for OCR', () => {
  const page = [line, 'وفي المدينة مكتبة كبيرة فيها كتب كثيرة عن التاريخ والأدب', 'يقرأ الناس فيها كل يوم'].join('\n');

  it('accepts Arabic in logical order', () => {
    expect(textLayerProblem(normalizeLayer(page))).toBeUndefined();
  });

  it('folds presentation forms to letters (NFKC), after which the layer is sound', () => {
    const forms = 'ﺑﺴﻢ ﷲ ﺍﻟﺮﺣﻤﻦ ﺍﻟﺮﺣﻴﻢ ﻻ';
    expect(normalizeLayer(forms)).toBe('بسم الله الرحمن الرحيم لا');
    expect(textLayerProblem(normalizeLayer(`${forms}\n${page}`))).toBeUndefined();
  });

  it('refuses Arabic in visual order (every line reversed)', () => {
    const reversed = page.split('\n').map((l) => [...l].reverse().join('')).join('\n');
    expect(textLayerProblem(normalizeLayer(reversed))).toBe('Arabic in visual order');
  });

  it('refuses a layer of unmapped glyphs, private-use characters or other scripts', () => {
    expect(textLayerProblem(page.replace(/[بت]/g, '\u0000'))).toBe('unreadable characters');
    expect(textLayerProblem(page.replace(/[بت]/g, '\uE001'))).toBe('unreadable characters');
    expect(textLayerProblem(page.replace(/[بت]/g, 'ᄕ'))).toBe('unreadable characters');
  });

  it('treats a page with (almost) no text as having no text layer', () => {
    expect(textLayerProblem('')).toBe('no text layer');
    expect(textLayerProblem('الفصل الأول')).toBe('no text layer');
  });
});

describe('character error rate', () => {
  it('ignores tashkeel, tatweel, presentation forms and spacing; counts edits per reference character', () => {
    expect(characterErrorRate('بِسْمِ  الله', 'ﺑﺴﻢ الـله')).toBe(0);
    expect(characterErrorRate('abcd', 'abxd')).toBe(0.25);
    expect(characterErrorRate('', '')).toBe(0);
  });
});
