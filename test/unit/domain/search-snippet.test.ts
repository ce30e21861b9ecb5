import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze, type Token } from '../../../lib/search/analysis.ts';
import { escapeHtml, matcherFor, snippet } from '../../../lib/search/snippet.ts';

/** Issue 17: a hit's snippet with its matching words marked (lib/search/snippet.ts). */

const stemsOf = (query: string) => matcherFor('stemmed', analyze(query).stemmed);
const exactOf = (query: string) => matcherFor('exact', analyze(query).exact);

/** What a reader sees: the snippet without its tags and with entities read back. */
function shown(html: string): string {
  return html
    .replaceAll('<mark>', '')
    .replaceAll('</mark>', '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
}

const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6);

describe('snippet', () => {
  it('marks the matching words, by stem', () => {
    expect(snippet('Two libraries and a library.', stemsOf('library'))).toBe('Two <mark>libraries</mark> and a <mark>library</mark>.');
  });

  it('marks by exact term when asked', () => {
    expect(snippet('Two libraries and a library.', exactOf('library'))).toBe('Two libraries and a <mark>library</mark>.');
  });

  it('takes a caller’s own predicate', () => {
    const longWords = (t: Token) => t.term.length > 5;
    expect(snippet('a short sentence', longWords)).toBe('a short <mark>sentence</mark>');
  });

  it('escapes everything else, the marked words included', () => {
    const text = `<script>alert("x")</script> & Tom's library`;
    expect(snippet(text, stemsOf('library'))).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Tom&#39;s <mark>library</mark>');
    expect(snippet('<b>script</b>', exactOf('script'))).toBe('&lt;b&gt;<mark>script</mark>&lt;/b&gt;');
  });

  it('cuts a long text around the match, at word boundaries, with … where cut', () => {
    const text = `${filler}The libraries of Cairo hold rare books. ${filler}`;
    const result = snippet(text, stemsOf('library'), { maxLength: 80 });
    expect(result).toBe('…consectetur adipiscing elit. The <mark>libraries</mark> of Cairo hold rare books. Lorem…');
    expect(shown(result).replaceAll('…', '').length).toBeLessThanOrEqual(80);
  });

  it('picks the densest cluster of matches', () => {
    const text = `one library here. ${filler}${filler} library books, library shelves, library cards. ${filler}`;
    const result = snippet(text, stemsOf('library'), { maxLength: 60 });
    expect(result.match(/<mark>/g)).toHaveLength(3);
    expect(result).toContain('<mark>library</mark> books, <mark>library</mark> shelves, <mark>library</mark> cards');
  });

  it('gives the start of the text when nothing matches', () => {
    const text = `${filler}${filler}`;
    expect(snippet(text, stemsOf('nothing'), { maxLength: 30 })).toBe('Lorem ipsum dolor sit amet…'); // ends with a word where cut
    expect(snippet('short text', stemsOf('nothing'))).toBe('short text');
    expect(snippet('', stemsOf('nothing'))).toBe('');
  });

  it('defaults to 200 characters', () => {
    const result = snippet(`${filler}${filler}`, stemsOf('nothing'));
    expect(shown(result).replace(/…$/, '').length).toBeLessThanOrEqual(200);
    expect(shown(result).length).toBeGreaterThan(150);
  });

  it('cuts a word longer than the window hard', () => {
    expect(snippet('x'.repeat(300), stemsOf('nothing'), { maxLength: 50 })).toBe(`${'x'.repeat(50)}…`);
    const long = 'y'.repeat(100);
    expect(snippet(`a ${long} b`, exactOf(long), { maxLength: 20 })).toBe(`…<mark>${'y'.repeat(20)}</mark>…`);
  });

  it('handles Arabic: marks the original words, diacritics and all', () => {
    const text = 'قال الشيخ: إِنَّ الْمَكْتَبَةَ مَفْتُوحَةٌ لِلطُّلَّابِ، والمكتبات في القاهرة كثيرة.';
    expect(snippet(text, stemsOf('مكتبة'))).toBe(
      'قال الشيخ: إِنَّ <mark>الْمَكْتَبَةَ</mark> مَفْتُوحَةٌ لِلطُّلَّابِ، <mark>والمكتبات</mark> في القاهرة كثيرة.',
    );
    // Exact: only المكتبة itself; by stem, والمكتبات (وال- + مكتب + -ات) is مكتب as مكتبة is.
    expect(snippet(text, exactOf('المكتبة'))).toBe(
      'قال الشيخ: إِنَّ <mark>الْمَكْتَبَةَ</mark> مَفْتُوحَةٌ لِلطُّلَّابِ، والمكتبات في القاهرة كثيرة.',
    );
    expect(snippet(text, exactOf('مكتبة'))).not.toContain('<mark>');
    expect(snippet(text, stemsOf('مكتبة'), { maxLength: 40 })).toBe('…الشيخ: إِنَّ <mark>الْمَكْتَبَةَ</mark> مَفْتُوحَةٌ…');
  });

  it('marks a ligature word whole once', () => {
    expect(snippet('قال النبي ﷺ: الدين النصيحة', exactOf('الله'))).toBe('قال النبي <mark>ﷺ</mark>: الدين النصيحة');
  });

  it('keeps within maxLength + 2 (the two …), and marks only matching words', () => {
    const word = fc.oneof(
      fc.constantFrom('library', 'libraries', 'مكتبة', 'المكتبات', '<b>', '&', '"', 'ﷺ', '😀', 'x'.repeat(70)),
      fc.string({ unit: 'binary', maxLength: 12 }),
    );
    const text = fc.array(word, { maxLength: 80 }).chain((ws) => fc.constantFrom(...[' ', '\n', ', ']).map((sep) => ws.join(sep)));
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 250 }), (t, maxLength) => {
        const result = snippet(t, stemsOf('library مكتبة'), { maxLength });
        expect(shown(result).length).toBeLessThanOrEqual(maxLength + 2);
        // The text outside the marks is escaped: no raw tag other than <mark>.
        expect(result.replaceAll('<mark>', '').replaceAll('</mark>', '')).not.toMatch(/[<>"']/);
        // What is shown is a piece of the original, …-ends aside.
        expect(t).toContain(shown(result).replace(/^…/, '').replace(/…$/, ''));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('escapeHtml', () => {
  it('escapes the five characters', () => {
    expect(escapeHtml(`<a href="x">Tom's & co</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;Tom&#39;s &amp; co&lt;/a&gt;');
  });
});
