import { describe, expect, it } from 'vitest';
import { audioKey, contentHash, isCurrent, parseAudioKey } from '../../lib/audio/audio-key.ts';

const line = { bookId: 'b', lineId: 'l', arabic: 'نص', english: 'text', commentary: '', rootwords: 'ن ص ص' };

describe('audio keys (docs/SPEC.md 2.8)', () => {
  it('hashes every text field of the line and the voice', () => {
    const base = contentHash(line, 'alloy');
    for (const field of ['arabic', 'english', 'commentary', 'rootwords'] as const) {
      expect(contentHash({ ...line, [field]: `${line[field]}!` }, 'alloy')).not.toBe(base);
    }
    expect(contentHash(line, 'nova')).not.toBe(base);
    expect(contentHash({ ...line }, 'alloy')).toBe(base);
    // Moving text between fields is a different line.
    expect(contentHash({ ...line, arabic: '', commentary: 'نص' }, 'alloy')).not.toBe(base);
  });

  it('reads back the parts of a key, and knows a stale file', () => {
    const key = audioKey('b', 'l', 'arabic', 'nova', contentHash(line, 'nova'));
    expect(key).toMatch(/^b\/l\/arabic\/nova_[0-9a-f]{32}\.mp3$/);
    const parts = parseAudioKey(key)!;
    expect(parts).toMatchObject({ bookId: 'b', lineId: 'l', field: 'arabic', voice: 'nova' });
    expect(isCurrent(line, parts)).toBe(true);
    expect(isCurrent({ ...line, english: 'edited' }, parts)).toBe(false);
    expect(parseAudioKey('b/l/latin/nova_abc.mp3')).toBeUndefined();
    expect(parseAudioKey('b/l/arabic/readme.txt')).toBeUndefined();
  });
});
