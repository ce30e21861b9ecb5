import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shorten, shortenToBytes } from '../../lib/shorten.ts';

/** Names, reasons and alerts cut to fit (lib/shorten.ts): Arabic, emoji and Latin alike. */

const text = fc.string({ unit: fc.constantFrom('a', ' ', 'ب', 'ك', 'é', '😀', '中', '\u064e'), maxLength: 400 });

describe('shorten', () => {
  it('keeps text that fits, and cuts the rest to the limit with … after a prefix of whole code points', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 300 }), (t, max) => {
        const out = shorten(t, max);
        if ([...t].length <= max) {
          expect(out).toBe(t);
          return;
        }
        expect([...out]).toHaveLength(max);
        expect(out.endsWith('…')).toBe(true);
        expect(t.startsWith(out.slice(0, -1))).toBe(true);
      }),
    );
  });

  it('keeps the bytes of UTF-8 within the limit, never splitting a character', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 4, max: 1200 }), (t, max) => {
        const out = shortenToBytes(t, max);
        if (Buffer.byteLength(t) <= max) {
          expect(out).toBe(t);
          return;
        }
        expect(Buffer.byteLength(out)).toBeLessThanOrEqual(max);
        expect(out.endsWith('…')).toBe(true);
        const kept = out.slice(0, -1);
        expect(t.startsWith(kept)).toBe(true);
        // As much as fits: the next character would not.
        const next = [...t.slice(kept.length)][0]!;
        expect(Buffer.byteLength(kept + next) + 3).toBeGreaterThan(max);
        expect(Buffer.from(out).toString()).toBe(out);
      }),
    );
  });

  it('cuts an Arabic file name of 150 letters to 100, the last one …', () => {
    const name = 'كتاب'.repeat(40);
    expect(shorten(name, 100)).toBe(`${name.slice(0, 99)}…`);
  });
});
