/**
 * Measures each Arabic clean-up rule: reads the Arabic evaluation pages once with the `ara` model,
 * then prints the character error rate (with and without diacritics) of the raw output, of each
 * rule alone, and of the kept rules together.
 *
 *   npx tsx ocr-worker/text/evaluate-cleanup.ts
 */
import { createTesseractEngine } from '../engine/tesseract-engine.ts';
import { arabicEvaluationPages } from '../fixtures/evaluation-set.ts';
import { cleanArabic, cleanupRules } from './cleanup.ts';
import { corpusCer } from './cer.ts';

const engine = createTesseractEngine();
const pages = arabicEvaluationPages();
const read: { reference: string; hypothesis: string }[] = [];
for (const page of pages) read.push({ reference: page.reference, hypothesis: (await engine.recognize(page.png, 'ara')).text });
await engine.close();

const rate = (clean: (t: string) => string): string => {
  const pairs = read.map((p) => ({ reference: p.reference, hypothesis: clean(p.hypothesis) }));
  return `${(100 * corpusCer(pairs)).toFixed(2)}% / ${(100 * corpusCer(pairs, { ignoreDiacritics: true })).toFixed(2)}%`;
};

const before = rate((t) => t);
console.log(`Arabic evaluation set: ${pages.length} pages, ${read.reduce((n, p) => n + [...p.reference].length, 0)} characters`);
console.log('CER with / without diacritics\n');
console.log(['rule', 'kept', 'before', 'after'].join(' | '));
for (const rule of cleanupRules) console.log([rule.name, rule.kept ? 'yes' : 'no', before, rate((t) => rule.apply(t, 'ara'))].join(' | '));
console.log(['all kept rules', '', before, rate((t) => cleanArabic(t))].join(' | '));
