import { tokens, wordPattern, type Token } from './analysis.ts';

/**
 * A search hit's snippet: a window of the original page text around its matches, the matching
 * words wrapped in <mark>…</mark> and everything else HTML-escaped, the convention of the
 * OpenSearch/Elasticsearch highlighters (so a client can insert it as HTML as it would theirs).
 * The window is cut at word boundaries and `…` stands where text was cut off. Arabic needs nothing
 * special: the string keeps logical order and the client's bidi rendering does the rest.
 */

export interface SnippetOptions {
  /** The most characters (UTF-16 units) of the original text shown, tags, escapes and `…` aside. Default 200. */
  maxLength?: number;
}

export const defaultSnippetLength = 200;

/** Which tokens a query matches: their term (exact search) or their stem, in the query's analyzed terms. */
export function matcherFor(field: 'exact' | 'stemmed', terms: string[]): (token: Token) => boolean {
  const wanted = new Set(terms);
  return field === 'exact' ? (token) => wanted.has(token.term) : (token) => wanted.has(token.stem);
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => entities[c] ?? c);
}

interface Span {
  start: number;
  end: number;
}

/** The words of the text as spans; one span per word even when it gave several tokens (ﷺ). */
function words(text: string): Span[] {
  return Array.from(text.matchAll(wordPattern), (m) => ({ start: m.index, end: m.index + m[0].length }));
}

/** The matched words, in order, each once. */
function matchedSpans(all: Token[], matches: (token: Token) => boolean): Span[] {
  const spans: Span[] = [];
  for (const token of all) {
    const last = spans.at(-1);
    if (last !== undefined && last.start === token.start) continue; // another token of a word already marked
    if (matches(token)) spans.push({ start: token.start, end: token.end });
  }
  return spans;
}

/** The first and last matches of the run of matches that fits in `length` with the most of them (the earliest such run). */
function densest(spans: Span[], length: number): Span | undefined {
  let best: Span | undefined;
  let bestCount = 0;
  let j = 0;
  for (let i = 0; i < spans.length; i++) {
    const first = spans[i]!;
    if (j < i) j = i;
    while (j < spans.length && spans[j]!.end - first.start <= length) j++;
    if (j - i > bestCount) {
      bestCount = j - i;
      best = { start: first.start, end: spans[j - 1]!.end };
    }
  }
  return best;
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** [start, start + length) of the text, not splitting a surrogate pair. */
function hardCut(text: string, start: number, length: number): Span {
  let end = Math.min(text.length, start + length);
  if (end > start && end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return { start, end };
}

/**
 * The window [start, end) of at most `length` units holding `core`, widened evenly on both sides
 * then pulled in so no word is cut. When no whole word fits (one huge word), it is cut hard.
 */
function windowAround(text: string, core: Span, length: number, wordSpans: Span[]): Span {
  if (core.end - core.start > length) return hardCut(text, core.start, length);
  const room = length - (core.end - core.start);
  let end = Math.min(text.length, Math.max(0, core.start - Math.floor(room / 2)) + length);
  let start = Math.max(0, end - length);
  // Not inside a surrogate pair (an emoji between words).
  if (start > 0 && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) start++;
  if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  const widest = { start, end };
  for (const w of wordSpans) {
    // A word cut by the window's edge leaves it (the core's words are whole, so this never passes them).
    if (w.start < start && w.end > start) start = Math.min(w.end, core.start);
    if (w.start < end && w.end > end) end = Math.max(w.start, core.end);
  }
  if (core.start < core.end || wordSpans.some((w) => w.start >= start && w.end <= end)) return { start, end };
  // Nothing matched and the first word does not fit: its start, cut hard, rather than bare punctuation.
  return hardCut(text, widest.start, length);
}

/** A window of `text` around its densest cluster of matching words, marked and escaped; the text's start when nothing matches. */
export function snippet(text: string, matches: (token: Token) => boolean, options: SnippetOptions = {}): string {
  const asked = options.maxLength ?? defaultSnippetLength;
  const length = Number.isFinite(asked) ? Math.max(1, Math.floor(asked)) : defaultSnippetLength;
  const spans = matchedSpans(tokens(text), matches);
  const wordSpans = words(text);
  const core = densest(spans, length) ?? spans[0] ?? { start: 0, end: 0 };
  let { start, end } = windowAround(text, core, length, wordSpans);
  // Where the text was cut, the snippet starts and ends with a word (not ", " or "</"); spacing
  // at the text's own edges is not worth showing either.
  const inside = wordSpans.filter((w) => w.start >= start && w.end <= end);
  const first = inside[0];
  const last = inside.at(-1);
  if (start > 0 && first !== undefined) start = first.start;
  if (end < text.length && last !== undefined) end = last.end;
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;

  let out = /\S/.test(text.slice(0, start)) ? '…' : '';
  let at = start;
  for (const span of spans) {
    if (span.end <= start || span.start >= end) continue;
    const from = Math.max(span.start, start);
    const to = Math.min(span.end, end);
    out += escapeHtml(text.slice(at, from)) + '<mark>' + escapeHtml(text.slice(from, to)) + '</mark>';
    at = to;
  }
  out += escapeHtml(text.slice(at, end));
  if (/\S/.test(text.slice(end))) out += '…';
  return out;
}
