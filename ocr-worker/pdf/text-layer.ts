/**
 * A page's text layer rebuilt from positioned items, in logical order. Producers of Arabic PDFs
 * often write one item per glyph or per word, left to right as the glyphs sit on the page (visual
 * order), so the items' order in the file is not the reading order: lines are rebuilt from where
 * the items are, read right to left where the line is Arabic, with spaces where the gaps are.
 */

/** One text item as pdfjs gives it, reduced to what placing it needs (PDF units, y up). */
export interface LayerItem {
  str: string;
  /** Left edge and baseline. */
  x: number;
  y: number;
  width: number;
  /** Font size: the unit for "same line" and "a word gap". */
  size: number;
}

/** Items on baselines closer than this (in font sizes) share a line. */
const sameLine = 0.5;
/** A gap wider than this (in font sizes) between items is a word space. */
const wordGap = 0.15;

const rtlLetter = /[\p{Script=Arabic}\p{Script=Hebrew}]/u;
const ltrStrong = /[\p{L}\p{N}]/u;

/** pdfjs text content items (TextItem; marked-content entries have no `str`) → LayerItems. */
export function layerItems(items: readonly object[]): LayerItem[] {
  const out: LayerItem[] = [];
  for (const item of items) {
    if (!('str' in item) || !('transform' in item)) continue;
    const { str, transform, width } = item as { str: string; transform: number[]; width: number };
    if (str.trim() === '') continue; // spaces are rebuilt from the gaps
    const [a = 0, b = 0, c = 0, d = 0, x = 0, y = 0] = transform;
    out.push({ str, x, y, width, size: Math.hypot(c, d) || Math.hypot(a, b) || 1 });
  }
  return out;
}

/** The page's text: its lines top to bottom, each in reading order. */
export function textFromItems(items: readonly LayerItem[]): string {
  return linesOf(items)
    .map(readLine)
    .filter((line) => line !== '')
    .join('\n');
}

function linesOf(items: readonly LayerItem[]): LayerItem[][] {
  const lines: { y: number; size: number; items: LayerItem[] }[] = [];
  for (const item of [...items].sort((p, q) => q.y - p.y)) {
    const line = lines.at(-1);
    if (line && Math.abs(line.y - item.y) < sameLine * Math.min(line.size, item.size)) line.items.push(item);
    else lines.push({ y: item.y, size: item.size, items: [item] });
  }
  return lines.map((line) => line.items);
}

function readLine(items: LayerItem[]): string {
  const text = items.map((item) => item.str).join('');
  const rtl = count(text, rtlLetter) >= count(text, /\p{Script=Latin}/u) && rtlLetter.test(text);
  const ordered = rtl ? rightToLeft(items) : [...items].sort((p, q) => p.x - q.x);
  let out = '';
  let previous: LayerItem | undefined;
  for (const item of ordered) {
    if (previous && gapBetween(previous, item) > wordGap * Math.min(previous.size, item.size) && !/\s$/.test(out) && !/^\s/.test(item.str)) {
      out += ' ';
    }
    out += item.str;
    previous = item;
  }
  return out.replace(/\s+/g, ' ').trim();
}

/** Right edge first; runs of left-to-right items (Latin words, numbers) keep their own order. */
function rightToLeft(items: LayerItem[]): LayerItem[] {
  const sorted = [...items].sort((p, q) => q.x + q.width - (p.x + p.width));
  const out: LayerItem[] = [];
  let run: LayerItem[] = [];
  for (const item of sorted) {
    if (!rtlLetter.test(item.str) && ltrStrong.test(item.str)) {
      run.push(item);
      continue;
    }
    out.push(...run.reverse(), item);
    run = [];
  }
  return [...out, ...run.reverse()];
}

function gapBetween(p: LayerItem, q: LayerItem): number {
  const [left, right] = p.x <= q.x ? [p, q] : [q, p];
  return right.x - (left.x + left.width);
}

function count(text: string, pattern: RegExp): number {
  let n = 0;
  for (const ch of text) if (pattern.test(ch)) n++;
  return n;
}
