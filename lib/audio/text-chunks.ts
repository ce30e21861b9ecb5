/**
 * Splitting text for a speech provider that accepts at most `maxChars` characters per call
 * (docs/SPEC.md 4.2: chunks of up to `maxChunkChars` characters, audio concatenated).
 *
 * Each chunk ends at the last good break that fits, in this order of preference:
 *   1. a sentence end: `.` `!` `?` `…` (English), `؟` (Arabic question mark), `۔` (Urdu/Arabic-script
 *      full stop), each optionally followed by closing quotes or brackets, then whitespace; or a newline;
 *   2. a clause break: `,` `;` `:` and the Arabic comma `،` and semicolon `؛`, followed by whitespace
 *      (`؛` separates clauses in Arabic prose, so it is a clause break rather than a sentence end);
 *   3. any whitespace (a word boundary);
 *   4. a hard cut at `maxChars`, only for a single word longer than that (never inside a UTF-16
 *      surrogate pair).
 * Chunks are trimmed and never empty; their lengths (in UTF-16 code units, which is never less than
 * the number of characters a provider counts) are at most `maxChars`. Whitespace inside a chunk is
 * kept as written, so joining the chunks with spaces gives back the words of the text in order.
 */

/** docs/SPEC.md 4.2: text is spoken in chunks of at most this many characters (each provider's own chunk is at most this). */
export const maxChunkChars = 4_000;

const sentenceEnd = /[.!?…؟۔]+["'”’»)\]]*(?=\s)|(?=\n)/gu;
const clauseBreak = /[,;:،؛]+["'”’»)\]]*(?=\s)/gu;
const whitespace = /\s/u;

export function splitText(text: string, maxChars: number): string[] {
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`maxChars must be a positive integer, got ${maxChars}`);
  const chunks: string[] = [];
  let rest = text.trim();
  while (rest.length > maxChars) {
    const cut = breakPosition(rest, maxChars);
    const chunk = rest.slice(0, cut).trim();
    if (chunk) chunks.push(chunk);
    rest = rest.slice(cut).trim();
  }
  if (rest) chunks.push(rest);
  return chunks;
}

/** Where to end the next chunk of `text` (which starts with a non-space): 1 to maxChars. */
function breakPosition(text: string, maxChars: number): number {
  // One character past the limit: a break may fall right before it (a chunk of exactly maxChars).
  const window = text.slice(0, maxChars + 1);
  const atPunctuation = lastMatchEnd(window, sentenceEnd, maxChars) ?? lastMatchEnd(window, clauseBreak, maxChars);
  if (atPunctuation !== undefined) return atPunctuation;
  for (let i = maxChars; i > 0; i--) if (whitespace.test(window[i]!)) return i;
  // A single word longer than the limit: cut it, but not between the halves of a surrogate pair.
  const high = text.charCodeAt(maxChars - 1);
  return maxChars > 1 && high >= 0xd800 && high <= 0xdbff ? maxChars - 1 : maxChars;
}

/** End of the last match of `pattern` in `window` that leaves a non-empty chunk of at most `limit`. */
function lastMatchEnd(window: string, pattern: RegExp, limit: number): number | undefined {
  let best: number | undefined;
  for (const match of window.matchAll(pattern)) {
    const end = match.index + match[0].length;
    if (end > 0 && end <= limit) best = end;
  }
  return best;
}
