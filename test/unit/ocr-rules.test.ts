import { describe, expect, it } from 'vitest';
import { jobFieldsOf } from '../support/bodies.ts';
import { splitPages } from '../../lib/billing/usage.ts';
import { splitList } from '../../lib/ocr/book-text.ts';
import { uploadKey } from '../../lib/ocr/jobs/fields.ts';
import { bookFieldLimits, languageTooLong, tooManyValues, valueTooLong } from '../../lib/ocr/book-text.ts';

describe('page credits (docs/SPEC.md section 1)', () => {
  it.each([
    // credits, used before, pages -> free, overage
    [100, 0, 10, 10, 0],
    [100, 90, 10, 10, 0],
    [100, 95, 10, 5, 5],
    [100, 100, 3, 0, 3],
    [100, 130, 1, 0, 1],
    [0, 0, 4, 0, 4],
  ])('with %i credits, %i used, %i pages: %i free, %i overage', (credits, used, pages, free, overage) => {
    expect(splitPages(credits, used, pages)).toEqual({ freePages: free, overagePages: overage });
  });

  it('gives unlimited (null) credits every page free', () => {
    expect(splitPages(null, 10_000, 500)).toEqual({ freePages: 500, overagePages: 0 });
  });
});

describe('upload fields (docs/SPEC.md 4.1 POST /ocr)', () => {
  it('applies the defaults', () => {
    expect(jobFieldsOf({})).toEqual({
      fileName: undefined,
      language: 'ar',
      author: 'Unknown',
      tags: [],
      categories: [],
      visibility: 'private',
      customPrompt: undefined,
      metadata: {},
    });
  });

  it('splits comma-separated lists and takes visibility only as public or private', () => {
    expect(splitList(' a, b ,,c ')).toEqual(['a', 'b', 'c']);
    expect(jobFieldsOf({ visibility: 'public' }).visibility).toBe('public');
    expect(jobFieldsOf({ visibility: 'everyone' }).visibility).toBe('private');
  });

  it('refuses more tags or categories than a book carries, a longer one, or a longer language, with a 400', () => {
    const { listValues, listValueChars, languageChars } = bookFieldLimits;
    const many = Array.from({ length: listValues + 1 }, (_, i) => `t${i}`).join(',');
    expect(() => jobFieldsOf({ tags: many })).toThrow(expect.objectContaining({ kind: 'bad_request', message: tooManyValues('tags') }));
    expect(() => jobFieldsOf({ categories: `a,${'b'.repeat(listValueChars + 1)}` })).toThrow(expect.objectContaining({ kind: 'bad_request', message: valueTooLong('categories') }));
    expect(() => jobFieldsOf({ language: 'x'.repeat(languageChars + 1) })).toThrow(expect.objectContaining({ kind: 'bad_request', message: languageTooLong }));
    expect(jobFieldsOf({ tags: many.split(',').slice(1).join(',') }).tags).toHaveLength(listValues);
  });

  it('refuses jobMetadata that is not a JSON object (a 500, as the spec says)', () => {
    for (const jobMetadata of ['{', '"text"', '[1]', 'null']) {
      expect(() => jobFieldsOf({ jobMetadata })).toThrow(expect.objectContaining({ kind: 'internal' }));
    }
    expect(jobFieldsOf({ jobMetadata: '{"a":{"b":1}}' }).metadata).toEqual({ a: { b: 1 } });
  });

  it('makes the original name safe for a key, keeping Arabic letters', () => {
    expect(uploadKey('../../etc/passwd')).toMatch(/^ocr\/[0-9a-f-]{36}-etc_passwd$/);
    expect(uploadKey('صحيح البخاري (1).pdf')).toMatch(/^ocr\/[0-9a-f-]{36}-صحيح_البخاري_1_.pdf$/);
    expect(uploadKey('')).toMatch(/-file$/);
  });
});
