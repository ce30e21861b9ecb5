import { describe, expect, it } from 'vitest';
import { splitText } from '../../lib/audio/text-chunks.ts';

const words = (text: string): string[] => text.split(/\s+/u).filter(Boolean);

/** The properties every split must have, whatever the text. */
function expectWellFormed(text: string, chunks: string[], maxChars: number): void {
  for (const chunk of chunks) {
    expect(chunk.length).toBeGreaterThan(0);
    expect(chunk.length).toBeLessThanOrEqual(maxChars);
    expect(chunk).toBe(chunk.trim());
  }
  expect(words(chunks.join(' '))).toEqual(words(text));
}

describe('splitText', () => {
  it('returns short text whole, trimmed', () => {
    expect(splitText('  Hello world.  ', 100)).toEqual(['Hello world.']);
    expect(splitText('exactly ten', 11)).toEqual(['exactly ten']);
  });

  it('returns no chunks for empty or blank text', () => {
    expect(splitText('', 10)).toEqual([]);
    expect(splitText(' \n\t ', 10)).toEqual([]);
  });

  it('splits at sentence ends', () => {
    const text = 'One two three. Four five six! Seven eight? Nine.';
    const chunks = splitText(text, 30);
    expect(chunks).toEqual(['One two three. Four five six!', 'Seven eight? Nine.']);
    expectWellFormed(text, chunks, 30);
  });

  it('keeps closing quotes and brackets with their sentence', () => {
    expect(splitText('He said "stop." Then he left the room.', 24)).toEqual(['He said "stop."', 'Then he left the room.']);
    expect(splitText('(A short aside.) And the rest follows.', 24)).toEqual(['(A short aside.)', 'And the rest follows.']);
  });

  it('treats a newline as a sentence end', () => {
    const text = 'a line without a stop\nand another line here';
    expect(splitText(text, 30)).toEqual(['a line without a stop', 'and another line here']);
  });

  it('prefers a sentence end to a later clause break or word boundary', () => {
    const text = 'Short one. Then a longer clause, and more words after it';
    expect(splitText(text, 40)[0]).toBe('Short one.');
  });

  it('falls back to clause breaks, then to word boundaries', () => {
    expect(splitText('first part, second part and more words', 25)).toEqual(['first part,', 'second part and more', 'words']);
    expect(splitText('alpha beta gamma delta epsilon', 12)).toEqual(['alpha beta', 'gamma delta', 'epsilon']);
  });

  it('does not split a decimal number at its point', () => {
    const chunks = splitText('It costs 3.50 dollars and more words', 12);
    expect(chunks).toContain('It costs');
    expect(chunks.some((c) => c.includes('3.50'))).toBe(true);
  });

  it('hard-cuts a single word longer than the limit', () => {
    const long = 'x'.repeat(25);
    expect(splitText(`ab ${long} cd`, 10)).toEqual(['ab', 'xxxxxxxxxx', 'xxxxxxxxxx', 'xxxxx cd']);
  });

  it('never cuts inside a surrogate pair', () => {
    const chunks = splitText('😀'.repeat(5), 3);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(3);
      expect(chunk).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/u);
    }
    expect(chunks.join('')).toBe('😀'.repeat(5));
  });

  it('splits Arabic at Arabic sentence ends', () => {
    const text = 'هذا كتاب جميل. هل قرأته من قبل؟ نعم قرأته مرتين۔ وسأقرؤه مرة أخرى';
    const chunks = splitText(text, 25);
    expect(chunks).toEqual(['هذا كتاب جميل.', 'هل قرأته من قبل؟', 'نعم قرأته مرتين۔', 'وسأقرؤه مرة أخرى']);
    expectWellFormed(text, chunks, 25);
  });

  it('splits Arabic at the Arabic comma and semicolon when no sentence end fits', () => {
    const text = 'ذهبت إلى السوق، واشتريت الخبز؛ ثم عدت إلى البيت سعيدا';
    const chunks = splitText(text, 32);
    expect(chunks).toEqual(['ذهبت إلى السوق، واشتريت الخبز؛', 'ثم عدت إلى البيت سعيدا']);
    expectWellFormed(text, chunks, 32);
  });

  it('splits a 10,000-character text for 2,900 characters', () => {
    const sentences = [
      'The quick brown fox jumps over the lazy dog.',
      'قال الحكيم: العلم نور والجهل ظلام؟',
      'A line of a bilingual book, with a clause; and another clause!',
      'وفي الكتاب فصول كثيرة، وكل فصل فيه أبواب.',
    ];
    let text = '';
    for (let i = 0; text.length < 10_000; i++) text += `${sentences[i % sentences.length]}${i % 7 === 6 ? '\n' : ' '}`;
    text = text.slice(0, 10_000);
    expect(text.length).toBe(10_000);

    const chunks = splitText(text, 2_900);
    expect(chunks).toHaveLength(4);
    expectWellFormed(text, chunks, 2_900);
    // Every chunk but the last ends a sentence.
    for (const chunk of chunks.slice(0, -1)) expect(chunk).toMatch(/[.!?؟]$/u);
  });

  it('keeps the words in order for text with no punctuation at all', () => {
    const text = Array.from({ length: 3_000 }, (_, i) => `w${i}`).join(' ');
    const chunks = splitText(text, 100);
    expectWellFormed(text, chunks, 100);
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => splitText('text', 0)).toThrow(RangeError);
    expect(() => splitText('text', 2.5)).toThrow(RangeError);
  });
});
