import { describe, expect, it } from 'vitest';
import { awsEstimate } from '../../bench/ocr/aws-arithmetic.ts';
import { confidenceRanking } from '../../bench/ocr/confidence-ranking.ts';
import type { OcrRow, Rates, WorkerReading } from '../../bench/ocr/rows.ts';
import { forms, isBadlyDamaged, isScan, isTwoColumnPage } from '../../bench/ocr/evaluation-set.ts';
import { ocrTargets, targetsOf } from '../../bench/ocr/targets.ts';

/** The OCR bench's arithmetic (bench/ocr): the confidence ranking and the targets, on small made-up rows; the bench itself is not run. */

describe('confidenceRanking', () => {
  const page = (confidence: number | undefined, reference: string, hypothesis: string) => ({ confidence, reference, hypothesis });

  it('gives the share of the character errors on the least confident tenth of the pages, at least one page', () => {
    const pages = [page(90, 'abcd', 'abcd'), page(40, 'abcd', 'xbcy'), page(70, 'abcd', 'abcx'), page(80, 'abcd', 'abcd')];
    // Confidence 40, 70, 80, 90 against errors 2, 1, 0, 0: ordered but for the tie at 0 (rho 0.95).
    expect(confidenceRanking(pages)).toEqual({ pages: 4, tenth: 1, errors: 3, tenthErrors: 2, share: 2 / 3, bestShare: 2 / 3, rankCorrelation: expect.closeTo(0.9487, 4) });
  });

  it('rounds a tenth down, keeps the order of ties and leaves out pages without a confidence (a text layer)', () => {
    const pages = Array.from({ length: 20 }, (_, i) => page(i < 3 ? 10 : 50 + i, 'aaaa', i === 2 ? 'bbbb' : i === 0 ? 'aaab' : 'aaaa'));
    const ranked = confidenceRanking([...pages, page(undefined, 'aaaa', 'zzzz')]);
    // 20 pages → 2; the third page ties with the first two at 10 but comes after them.
    expect(ranked).toMatchObject({ pages: 20, tenth: 2, errors: 5, tenthErrors: 1 });
    expect(ranked.share).toBeCloseTo(0.2);
    // The two pages with the most errors (4 and 1) hold all 5: what a perfect ranking would reach.
    expect(ranked.bestShare).toBe(1);
  });

  it('tells a confidence that orders the pages from one that does not, whatever the spread of the errors', () => {
    const evenly = [page(60, 'abcdefgh', 'xxcdefgh'), page(70, 'abcdefgh', 'abcdefgh'), page(65, 'abcdefgh', 'xbcdefgh'), page(55, 'abcdefgh', 'xxxdefgh')];
    expect(confidenceRanking(evenly).rankCorrelation).toBeCloseTo(1);
    const reversed = evenly.map((p) => ({ ...p, confidence: 130 - p.confidence! }));
    expect(confidenceRanking(reversed).rankCorrelation).toBeCloseTo(-1);
  });

  it('is 0 with no errors and no pages', () => {
    expect(confidenceRanking([page(50, 'ab', 'ab')]).share).toBe(0);
    expect(confidenceRanking([])).toMatchObject({ pages: 0, tenth: 0, share: 0 });
  });
});

describe('targetsOf', () => {
  const rates = (cer: number, cerNoDiacritics = cer): Rates => ({ cer, cerNoDiacritics });
  const reading = (cer: number, pagesPerMinPerCore: number, share = 0.5): WorkerReading => ({
    ...rates(cer),
    wallMs: 1,
    cpuMs: 1,
    cores: 1,
    pagesPerMinPerCore,
    initMs: 0,
    peakRssMb: 1,
    textLayerPages: 0,
    readTwice: 0,
    confidence: undefined,
    sourceMs: 0,
    readMs: 0,
    ranking: { pages: 10, tenth: 1, errors: 100, tenthErrors: share * 100, share, bestShare: 0.5, rankCorrelation: 0.5 },
  });
  const row = (name: string, over: Partial<OcrRow>): OcrRow => ({ name, language: 'ar', form: 'scans', pages: 10, characters: 100, engines: {}, layouts: {}, ...over });
  const cli = { ...rates(0.1), wallMs: 1, cpuMs: 1, cores: 1, pagesPerMinPerCore: 40, initMs: 0 };
  const aws = awsEstimate(ocrTargets.awsPages, 2, 0.3);
  const inputs = (native: { speed: number; share: number; cer: number }, layouts: OcrRow['layouts']) => {
    const engines = { native: reading(native.cer, native.speed, native.share), 'tesseract.js': reading(0.1, 20) };
    return {
      rows: [row('ar born-digital PDF', { form: 'born-digital-pdf', engines: { native: reading(0, 80), 'tesseract.js': reading(0, 80) }, cli })],
      aggregates: [row('ar scans', { engines, cli, layouts }), row('en scans', { language: 'en', engines, cli }), row('all scans', { engines, cli })],
      aws,
      worker: 'native' as const,
    };
  };
  const find = (targets: ReturnType<typeof targetsOf>, words: string) => targets.find((t) => t.name.includes(words));

  it('holds native to 0.9 × the command line, tesseract.js to 0.8, the confidence tenth to a third, the layout to the better fixed one', () => {
    const met = targetsOf(inputs({ speed: 36, share: 0.34, cer: 0.1 }, { auto: rates(0.1), 'single-block': rates(0.2) }));
    expect(find(met, 'native: pages/min/core')!.ok).toBe(true);
    expect(find(met, 'tesseract.js: pages/min/core')!.ok).toBe(false);
    expect(find(met, 'least confident tenth')!.ok).toBe(true);
    expect(find(met, "worker's layout")!.ok).toBe(true);

    const missed = targetsOf(inputs({ speed: 35.9, share: 0.33, cer: 0.1 }, { auto: rates(0.2), 'single-block': rates(0.094) }));
    expect(find(missed, 'native: pages/min/core')!.ok).toBe(false);
    expect(find(missed, 'least confident tenth')!.ok).toBe(false);
    expect(find(missed, "worker's layout")!.ok).toBe(false);
    expect(find(missed, "worker's layout")!.detail).toContain('better fixed layout 9.40%');
  });

  it('keeps the earlier targets for each engine, and without the command line checks absolute bounds and leaves out speed', () => {
    const met = targetsOf(inputs({ speed: 36, share: 0.5, cer: 0.1 }, {}));
    expect(met.filter((t) => t.name.includes("CER no worse than the command line's"))).toHaveLength(4);
    expect(find(met, 'ar born-digital PDF, native: CER far better')!.ok).toBe(true);
    expect(find(met, "worker's layout")).toBeUndefined();

    const alone = inputs({ speed: 36, share: 0.5, cer: 0.1 }, {});
    for (const r of [...alone.rows, ...alone.aggregates]) delete r.cli;
    const without = targetsOf(alone);
    expect(without.some((t) => t.name.includes('pages/min/core'))).toBe(false);
    expect(find(without, 'ar scans, native: CER under 22.00% (no command line)')!.ok).toBe(true);
    expect(find(without, 'en scans, native: CER under 1.50% (no command line)')!.ok).toBe(false);
  });
});

describe('the evaluation set\'s badly damaged pages', () => {
  const pages = [0, 1, 2, 3, 4, 5];

  it('damages one scanned page in six: one per scanned form, a two-column Arabic page among them, no born-digital page', () => {
    const bad = forms.map((form) => pages.filter((p) => isBadlyDamaged(form, p)));
    expect(bad).toEqual([[5], [3], [1], []]);
    expect(forms.filter(isScan).some((form) => pages.some((p) => isBadlyDamaged(form, p) && isTwoColumnPage('ar', p)))).toBe(true);
    expect(forms.filter(isScan).some((form) => pages.some((p) => isBadlyDamaged(form, p) && !isTwoColumnPage('ar', p)))).toBe(true);
  });

  it('damages other pages, still one in six, in the held-out part (another seed offset)', () => {
    const held = pages.filter((p) => isBadlyDamaged('png', p, 1));
    expect(held).toEqual([4]);
    expect(Array.from({ length: 60 }, (_, p) => p).filter((p) => isBadlyDamaged('tiff', p, 7))).toHaveLength(10);
  });
});
