import type { UncertainRange } from './page.ts';

/** The uncertain words a page callback reports (docs/interface.md, "Confidence"), as the service checks them. */

export const uncertainRefused = 'uncertain must be an array of [start, end] pairs of whole numbers';

/** Why these ranges cannot mark words of a text `length` long, or undefined when they can: each non-empty and within it, ascending and apart. */
export function uncertainProblem(ranges: readonly UncertainRange[], length: number): string | undefined {
  let end = 0;
  for (const [start, stop] of ranges) {
    if (stop > length) return `uncertain ranges must lie within the page's text (${length} characters)`;
    if (start >= stop) return 'uncertain ranges must not be empty: start before end';
    if (start < end) return 'uncertain ranges must be in order and must not overlap';
    end = stop;
  }
  return undefined;
}
