import { droppedMarks, tokens, wordPattern, writtenAs, type Token } from './analysis.ts';

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

/** Which tokens a query matches; `terms`, when known, let a snippet find them without analyzing the whole page. */
export type Matcher = ((token: Token) => boolean) & { terms?: readonly string[] };

/** Which tokens a query matches: their term (exact search) or their stem, in the query's analyzed terms. */
export function matcherFor(field: 'exact' | 'stemmed', terms: string[]): Matcher {
  const wanted = new Set(terms);
  const matches = field === 'exact' ? (token: Token) => wanted.has(token.term) : (token: Token) => wanted.has(token.stem);
  return Object.assign(matches, { terms });
}

/**
 * Characters of a page a request may analyze past its matches' surroundings (issue 27): a page is
 * up to 60,000 characters, which the analysis takes about 40 ms to read through (Arabic, this
 * machine), and a search shows up to 100 pages. Shared by a request's snippets; past it, a page
 * whose match the cheap search did not find shows its start, unmarked.
 */
export interface SnippetBudget {
  chars: number;
}
export const snippetBudgetChars = 120_000;
/** At most this much of the budget goes to one page, so one snippet never holds the process long. */
const pageScanChars = 30_000;
/** A page this short is analyzed whole. */
const wholePageChars = 2_000;
/** Candidates of the cheap search looked at, and matches kept, per page. */
const maxCandidates = 256;
const maxMatches = 64;

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => entities[c] ?? c);
}

interface Span {
  start: number;
  end: number;
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

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/**
 * A pattern of the raw text that every written form of the terms' first letters matches (a term's
 * stem keeps its word's first letters: the stemmers take suffixes, and Arabic prefixes whole): each
 * letter as any form the normalization folds into it, in either case, with dropped marks between.
 * Its hits are only candidates: the analysis of the word decides.
 */
function candidatePattern(terms: readonly string[]): RegExp | undefined {
  const marks = droppedMarks.length > 0 ? `[${droppedMarks.map(escapeRegExp).join('')}]*` : '';
  const heads = terms.map((term) =>
    [...term]
      .slice(0, 3)
      .map((c) => `[${(writtenAs.get(c) ?? [c]).map(escapeRegExp).join('')}]`)
      .join(marks),
  );
  return heads.length > 0 ? new RegExp(heads.join('|'), 'giu') : undefined;
}

/** [start, end) moved out to the nearest spaces (at most 64 characters each way), so no word is cut. */
function snapped(text: string, start: number, end: number): Span {
  let from = Math.max(0, start);
  let to = Math.min(text.length, end);
  for (let i = 0; from > 0 && i < 64 && !/\s/.test(text[from - 1]!); i++) from--;
  for (let i = 0; to < text.length && i < 64 && !/\s/.test(text[to]!); i++) to++;
  return { start: from, end: to };
}

/** The tokens of [start, end) of the text, with offsets in the text. */
function tokensIn(text: string, { start, end }: Span): Token[] {
  return tokens(text.slice(start, end)).map((t) => ({ ...t, start: t.start + start, end: t.end + start }));
}

/**
 * The part of a page its snippet is made from, so a long page costs its matches' surroundings, not
 * its length (issue 27): the matches the cheap search finds and the analysis confirms, around their
 * densest cluster; else, within the budget, the page analyzed a piece at a time up to its first
 * match; else the page's start.
 */
/** The matching words the cheap search finds, in order, each once: at most `most` of them, after looking at `looked` candidates. */
function cheapMatches(text: string, matches: Matcher, looked: number, most: number): Token[] {
  const pattern = matches.terms && candidatePattern(matches.terms);
  const found: Token[] = [];
  for (let i = 0; pattern && i < looked && found.length < most; i++) {
    const hit = pattern.exec(text);
    if (!hit) break;
    const word = tokensIn(text, snapped(text, hit.index, hit.index + hit[0].length)).find((t) => t.start <= hit.index && hit.index < t.end);
    if (word && matches(word) && found.at(-1)?.start !== word.start) found.push(word);
    pattern.lastIndex = Math.max(pattern.lastIndex, word?.end ?? 0);
  }
  return found;
}

/** Candidates looked at, and words kept, when a hit's words are accounted for (`matchedWords`). */
const maxAccountedCandidates = 2_048;
const maxAccountedWords = 512;

/**
 * The words of a page a matcher matches, in order: every one on a short page; on a long one, those
 * the cheap search finds (bounded, so a page of 60,000 characters costs its matches, not its length).
 */
export function matchedWords(text: string, matches: Matcher): Token[] {
  if (text.length <= wholePageChars || !matches.terms) return tokens(text).filter(matches);
  return cheapMatches(text, matches, maxAccountedCandidates, maxAccountedWords);
}

function focus(text: string, matches: Matcher, length: number, budget: SnippetBudget): Span {
  if (text.length <= wholePageChars) return { start: 0, end: text.length };
  const around = (core: Span) => snapped(text, core.start - 2 * length, core.end + 2 * length);
  const found: Span[] = cheapMatches(text, matches, maxCandidates, maxMatches).map((t) => ({ start: t.start, end: t.end }));
  if (found.length > 0) return around(densest(found, length) ?? found[0]!);
  for (let at = 0, spent = 0; at < text.length && spent < pageScanChars && budget.chars > 0; ) {
    const piece = snapped(text, at, at + Math.min(4_000, budget.chars));
    budget.chars -= piece.end - piece.start;
    spent += piece.end - piece.start;
    const first = tokensIn(text, piece).find(matches);
    if (first) return around(first);
    at = piece.end;
  }
  return snapped(text, 0, 2 * length);
}

/**
 * A window of `text` around its densest cluster of matching words, marked and escaped; the text's
 * start when nothing matches. A long page is read only around its matches (`focus`), within
 * `budget` when they are not found cheaply.
 */
export function snippet(text: string, matches: Matcher, options: SnippetOptions = {}, budget: SnippetBudget = { chars: snippetBudgetChars }): string {
  const asked = options.maxLength ?? defaultSnippetLength;
  const length = Number.isFinite(asked) ? Math.max(1, Math.floor(asked)) : defaultSnippetLength;
  const region = focus(text, matches, length, budget);
  const spans = matchedSpans(tokensIn(text, region), matches);
  const wordSpans = Array.from(text.slice(region.start, region.end).matchAll(wordPattern), (m) => ({ start: region.start + m.index, end: region.start + m.index + m[0].length }));
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
