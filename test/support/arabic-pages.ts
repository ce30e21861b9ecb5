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
