const letters = 'ابتثجحخدذرزسشصضطظعغفقكلمنهوية';

/**
 * A dense Arabic page of random letters, the same for the same seed: it compresses worse than any
 * real book (2.5 to 1 against about 4 to 1), so bodies built from it are as large as a 1,000-page
 * book's get.
 */
export function arabicPage(seedValue: number, length = 4_000): string {
  let state = seedValue;
  const chars: string[] = [];
  for (let i = 0; i < length; i++) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    chars.push(i % 5 === 4 ? ' ' : letters[state % letters.length]!);
  }
  return chars.join('');
}

/** A 32-bit linear congruential step, exact in JavaScript numbers (Math.imul). */
const nextState = (state: number): number => (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;

/** 5,000 made-up Arabic words of 2 to 8 letters, the same every run. */
const vocabulary: string[] = (() => {
  let state = 7;
  return Array.from({ length: 5_000 }, () => {
    state = nextState(state);
    const size = 2 + ((state >>> 16) % 7);
    let word = '';
    for (let i = 0; i < size; i++) {
      state = nextState(state);
      word += letters[(state >>> 16) % letters.length];
    }
    return word;
  });
})();

/**
 * A page of Arabic prose-like text, the same for the same seed: words of a fixed vocabulary drawn
 * with a skew (a few words common, most rare), so it compresses about as real text does (Brotli 9
 * about 4.4 to 1 on 2,000 pages, gzip about 3 to 1), unlike `arabicPage`'s letters.
 */
export function arabicProse(seedValue: number, length = 4_000): string {
  let state = seedValue >>> 0;
  const words: string[] = [];
  let size = 0;
  while (size < length) {
    state = nextState(state);
    const u = ((state >>> 8) & 0xffff) / 0x10000;
    const word = vocabulary[Math.floor(vocabulary.length * u * u * u)]!;
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ').slice(0, length);
}
