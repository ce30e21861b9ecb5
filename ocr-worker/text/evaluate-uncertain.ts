/**
 * Measures the uncertain-word threshold (text/uncertain.ts): reads the Arabic evaluation pages as the
 * worker does (readPage: the model, the clean-up), matches each engine word to its word of the final
 * text, and prints, for each threshold, how many words it marks, how many of those are wrong (not a
 * word of the page's reference), and how many of the wrong words it marks; then the share of the word
 * errors the least confident tenth of pages holds. A word is wrong when the reference page lacks it.
 *
 *   npx tsx ocr-worker/text/evaluate-uncertain.ts
 */
import { createOcrEngine } from '../engine/choose-engine.ts';
import { readPage } from '../engine/read-page.ts';
import { arabicEvaluationPages } from '../fixtures/evaluation-set.ts';
import { textWords, matchWords } from './uncertain.ts';
const engine = createOcrEngine();
const pages = arabicEvaluationPages();
const samples: { conf: number; right: boolean }[] = [];
const pageStats: { conf: number; errors: number }[] = [];
for (const page of pages) {
  const r = await readPage(engine, page.png, 'ara');
  const tokens = textWords(r.text);
  const m = matchWords(r.words ?? [], tokens);
  const ref = new Map<string, number>();
  for (const t of page.reference.split(/\s+/u).filter(Boolean)) ref.set(t, (ref.get(t) ?? 0) + 1);
  const tokConf = new Map<number, number>();
  m.forEach((t, i) => { if (t >= 0) tokConf.set(t, Math.min(tokConf.get(t) ?? 999, r.words![i]!.confidence)); });
  let errors = 0;
  tokens.forEach((t, i) => {
    const word = r.text.slice(t.start, t.end);
    const right = (ref.get(word) ?? 0) > 0;
    if (right) ref.set(word, ref.get(word)! - 1); else errors++;
    if (tokConf.has(i)) samples.push({ conf: tokConf.get(i)!, right });
  });
  pageStats.push({ conf: r.confidence, errors });
}
await engine.close();
const wrong = samples.filter((s) => !s.right).length;
console.log('pages', pages.length, 'words', samples.length, 'wrong', wrong, `(${(100 * wrong / samples.length).toFixed(1)}%)`);
for (const th of [50, 60, 65, 70, 75, 80, 85, 90]) {
  const marked = samples.filter((s) => s.conf < th);
  const mw = marked.filter((s) => !s.right).length;
  const rest = samples.filter((s) => s.conf >= th);
  const rw = rest.filter((s) => !s.right).length;
  console.log(`<${th}: marked ${marked.length} (${(100 * marked.length / samples.length).toFixed(1)}%), wrong among marked ${(100 * mw / Math.max(1, marked.length)).toFixed(1)}%, wrong among rest ${(100 * rw / Math.max(1, rest.length)).toFixed(1)}%, wrong words marked ${(100 * mw / wrong).toFixed(1)}%`);
}
pageStats.sort((a, b) => a.conf - b.conf);
const tenth = Math.ceil(pageStats.length / 10);
const total = pageStats.reduce((n, p) => n + p.errors, 0);
console.log('least confident tenth of pages holds', (100 * pageStats.slice(0, tenth).reduce((n, p) => n + p.errors, 0) / total).toFixed(1), '% of word errors');
