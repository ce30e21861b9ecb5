import { createRequire } from 'node:module';
import { seeded } from '../../ocr-worker/fixtures/random.ts';
import { wordsOf, type CorpusBook, type CorpusLanguage } from './generate.ts';

/**
 * Real text for the search bench (issue 17): the Quran in Arabic (Uthmani script, fully vocalized,
 * with its Quranic marks) and in English (Saheeh International's translation), from the
 * devDependency quran-json 3.1.2 by Risan Bagja Pradana (https://github.com/risan/quran-json),
 * licensed CC-BY-4.0; attribution in docs/benchmarks.md ("Search").
 *
 * Made into books and pages as the bench's generated corpus is: pages of 250 to 350 words (as
 * `wordsOf` counts them) in reading order, cut between verses, inside a verse (between two words)
 * only when a verse would take the page past 350 words before it has 250; books are ranges of
 * whole chapters, per language, aiming at 150 pages each (131 to 141 as cut). The same on every run.
 */

interface Verse {
  id: number;
  text: string;
  translation?: string;
}

interface Chapter {
  id: number;
  verses: Verse[];
}

const require = createRequire(import.meta.url);

/** Each chapter's verses as text, in one language. */
function chapters(language: CorpusLanguage): string[][] {
  if (language === 'ar') return (require('quran-json/dist/quran.json') as Chapter[]).map((c) => c.verses.map((v) => v.text));
  return (require('quran-json/dist/quran_en.json') as Chapter[]).map((c) => c.verses.map((v) => v.translation ?? ''));
}

export interface RealBook extends CorpusBook {
  /** The chapters it holds, from and to (1-based). */
  chapters: [number, number];
  pages: string[];
}

const minWords = 250;
const maxWords = 350;
const pagesPerBook = 150;

/** The pages of a run of verses: 250 to 350 words each, cut between verses where possible, never inside a word. */
function paginate(verses: string[], random: () => number): string[] {
  const pages: string[] = [];
  let page: string[] = [];
  let count = 0;
  let target = minWords + Math.floor(random() * (maxWords - minWords + 1));
  const close = () => {
    pages.push(page.join(' '));
    page = [];
    count = 0;
    target = minWords + Math.floor(random() * (maxWords - minWords + 1));
  };
  for (const verse of verses) {
    let words = verse.split(/\s+/).filter((w) => w !== '');
    let length = wordsOf(verse).length;
    while (length > 0) {
      if (count + length <= target || (count < minWords && count + length <= maxWords)) {
        page.push(words.join(' '));
        count += length;
        length = 0;
      } else if (count >= minWords) close();
      else {
        // Too long to fit and the page still short: cut the verse between words (a space).
        let taken = 0;
        let n = 0;
        while (n < words.length && count + taken + wordsOf(words[n]!).length <= target) taken += wordsOf(words[n++]!).length;
        if (n === 0) n = 1;
        page.push(words.slice(0, n).join(' '));
        words = words.slice(n);
        length = wordsOf(words.join(' ')).length;
        close();
      }
      if (count >= target) close();
    }
  }
  if (page.length > 0) close();
  return pages;
}

/** The books of one language: ranges of whole chapters of about `pagesPerBook` pages each. */
export function realBooks(language: CorpusLanguage, firstIndex = 0): RealBook[] {
  const text = chapters(language);
  const words = text.map((verses) => verses.reduce((sum, v) => sum + wordsOf(v).length, 0));
  const total = words.reduce((s, n) => s + n, 0);
  const bookCount = Math.max(1, Math.round(total / (((minWords + maxWords) / 2) * pagesPerBook)));
  const random = seeded(language === 'ar' ? 114 : 6236);
  const books: RealBook[] = [];
  let from = 0;
  let sum = 0;
  for (let b = 0; b < bookCount; b++) {
    // The book ends at the chapter end nearest its share of the words.
    const share = (total * (b + 1)) / bookCount;
    let to = from;
    sum += words[to]!;
    while (to + 1 < text.length && (b === bookCount - 1 || Math.abs(sum + words[to + 1]! - share) < Math.abs(sum - share))) sum += words[++to]!;
    const pages = paginate(text.slice(from, to + 1).flat(), random);
    books.push({
      index: firstIndex + b,
      bookTextId: `quran-${language}-${b + 1}`,
      language,
      userId: 'user-00',
      visibility: 'public',
      pageCount: pages.length,
      chapters: [from + 1, to + 1],
      pages,
    });
    from = to + 1;
  }
  return books;
}
