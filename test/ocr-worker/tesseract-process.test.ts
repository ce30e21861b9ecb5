import { describe, expect, it } from 'vitest';
import { splitPageOutput } from '../../ocr-worker/engine/tesseract-process.ts';

describe('a long-lived tesseract’s page output', () => {
  const tsv = ['1\t3\t0\t0\t0\t0\t0\t0\t100\t50\t-1\t', '5\t3\t1\t1\t1\t1\t10\t10\t20\t8\t91.5\tكتب'].join('\n') + '\n';

  it('parts the TSV rows from the text that follows them', () => {
    expect(splitPageOutput(`${tsv}كتب\n\n`)).toEqual({ tsv, text: 'كتب\n\n' });
  });

  it('gives an empty text for a page with no words, and keeps a text without a final line break', () => {
    expect(splitPageOutput(tsv)).toEqual({ tsv, text: '' });
    expect(splitPageOutput(`${tsv}book`)).toEqual({ tsv, text: 'book' });
  });
});
