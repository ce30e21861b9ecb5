import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalogueSortKeys, compareSortKeys } from '../../lib/ocr/catalogue/sort-keys.ts';

/** The catalogue's sort keys (lib/ocr/catalogue/sort-keys.ts): the order of GET /ocr/books. */
const book = (fileName: string | null, pageCount = 0) => ({ bookTextId: 'b1', createdAt: '2026-01-01T00:00:00.000Z', fileName, pageCount });

describe('catalogueSortKeys', () => {
  it('orders names without regard to capitals or presentation forms, and pages as numbers', () => {
    expect(catalogueSortKeys(book('Alpha.PDF')).byName).toBe('alpha.pdf#b1');
    expect(catalogueSortKeys(book('ﻻ')).byName).toBe('لا#b1');
    expect(catalogueSortKeys(book(null, 12)).byPages).toBe('0000000012#b1');
    expect(compareSortKeys(catalogueSortKeys(book(null, 9)).byPages, catalogueSortKeys(book(null, 10)).byPages)).toBeLessThan(0);
  });

  it('never cuts a name inside a surrogate pair: the key is well-formed', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 150, maxLength: 260 }), (name) => {
        const key = catalogueSortKeys(book(name)).byName;
        expect(key).not.toMatch(/\p{Cs}/u); // no lone surrogate
        expect(key.length - '#b1'.length).toBeLessThanOrEqual(200);
      }),
    );
    expect(catalogueSortKeys(book(`${'a'.repeat(199)}😀b`)).byName).toBe(`${'a'.repeat(199)}#b1`);
  });

  it('compares as UTF-8 bytes (as DynamoDB and the search index order keys), not UTF-16 units', () => {
    // U+FF5E (3 bytes, one unit) sorts before U+1D538 (4 bytes, two units starting 0xD835) in UTF-8; UTF-16 says otherwise.
    expect(compareSortKeys('～', '𝔸')).toBeLessThan(0);
    expect('～' < '𝔸').toBe(false);
  });
});
