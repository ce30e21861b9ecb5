import type { OcrModel } from '../contract.ts';

/**
 * Clean-up of Tesseract's Arabic-script output. Each rule is measured on the evaluation set
 * (`npx tsx ocr-worker/text/evaluate-cleanup.ts` prints the table) and only the rules that lowered
 * the character error rate are applied (`kept`); the others stay listed with their numbers so the
 * next change is measured against them too.
 */
export interface CleanupRule {
  name: string;
  /** What it fixes, and its measured effect (CER before → after on the evaluation set, 2026-11-27; evaluate-cleanup.ts prints it anew). */
  why: string;
  kept: boolean;
  apply(text: string, model: OcrModel): string;
}

const arabicLetter = '\\p{Script=Arabic}';
/** Bidirectional marks Tesseract puts around numbers in right-to-left lines; never printed. */
const directionMarks = /[\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069]/gu;
/**
 * What comes before a word-final hamza that cannot be one: tanween on an alef (`مرارًا`, `مراراً`; a word
 * in `اء` takes its tanween on the hamza, `ماءً`), or another hamza.
 */
const noHamzaAfter = '(?:[\\u064B-\\u0652]*\\u064B[\\u064B-\\u0652]*\\u0627|\\u0627[\\u064B-\\u0652]*\\u064B[\\u064B-\\u0652]*|\\u0621)';
const westernToArabicIndic = (d: string): string => String.fromCharCode(0x0660 + d.charCodeAt(0) - 0x30);
const persianToArabicIndic = (d: string): string => String.fromCharCode(0x0660 + d.charCodeAt(0) - 0x06f0);

export const cleanupRules: readonly CleanupRule[] = [
  {
    name: 'direction-marks',
    why: 'LRM/RLM marks around numbers (`\u200E١374\u200F`) are not text (CER % 4.98 → 4.78).',
    kept: true,
    apply: (t) => t.replace(directionMarks, ''),
  },
  {
    name: 'latin-comma',
    why: 'The Arabic comma read as a Latin comma after an Arabic word (CER % 4.98 → 4.62).',
    kept: true,
    apply: (t) => t.replace(new RegExp(`(${arabicLetter}[\\u064B-\\u0652]*),(?=\\s|$)`, 'gmu'), '$1،'),
  },
  {
    name: 'guillemet-comma',
    why: 'The Arabic comma read as `»` after an Arabic word, when no `«` quotation is open on the line (CER % 4.98 → 4.81).',
    kept: true,
    apply: (t) =>
      t.split('\n').map((line) => {
        let open = 0;
        return line.replace(/[«»]/gu, (mark, offset: number) => {
          if (mark === '«') { open++; return mark; }
          if (open > 0) { open--; return mark; }
          return new RegExp(`${arabicLetter}[\\u064B-\\u0652]*$`, 'u').test(line.slice(0, offset)) ? '،' : mark;
        });
      }).join('\n'),
  },
  {
    name: 'hamza-comma',
    why:
      'The Arabic comma glued to a word read as a final hamza (`مرارًا،` → `مرارًاء`) where no hamza can stand: after tanween on an alef, or after another hamza (`هدوء،` → `هدوءء`); such a hamza before a comma Tesseract printed as well is dropped (CER % 4.98 → 4.90). Most of these readings follow a bare alef (`يكفيناء`), as genuine final hamzas do (`سماء`): see alef-hamza-comma.',
    kept: true,
    apply: (t) =>
      t.replace(new RegExp(`(${noHamzaAfter})\\u0621(?=[ \\t]|$)`, 'gmu'), '$1،').replace(new RegExp(`(${noHamzaAfter})\\u0621(?=[,،])`, 'gu'), '$1'),
  },
  {
    name: 'alef-hamza-comma',
    why: 'Every `اء` before another word read as `ا،`: 18 of the 23 commas read as a hamza follow an alef, but so do most genuine final hamzas (سماء، أصدقاء، علماء) (CER % 4.98 → 5.15).',
    kept: false,
    apply: (t) => t.replace(new RegExp(`\\u0627\\u0621(?=[ \\t]+${arabicLetter})`, 'gu'), 'ا،'),
  },
  {
    name: 'ya-before-hamza',
    why: 'A dotless ya read before a final hamza (`شىء`, as Egyptian print spells it) is the ya of `شيء`: ى never stands before ء in standard spelling (CER % 4.98 → 4.96).',
    kept: true,
    apply: (t) => t.replace(/\u0649(?=[\u064B-\u0652]*\u0621)/gu, 'ي'),
  },
  {
    name: 'latin-question-semicolon',
    why: 'Latin `?` and `;` after an Arabic word are the Arabic `؟` and `؛` (CER % 4.98 → 4.98: Tesseract printed ؟ and ؛ itself).',
    kept: false,
    apply: (t) =>
      t.replace(new RegExp(`(${arabicLetter}[\\u064B-\\u0652]*)\\s?([?;])`, 'gu'), (_, word: string, mark: string) => `${word}${mark === '?' ? '؟' : '؛'}`),
  },
  {
    name: 'mixed-digit-runs',
    why: 'A number read half in Arabic-Indic, half in Western digits was printed in Arabic-Indic: fold the run (CER % 4.98 → 4.95).',
    kept: true,
    apply: (t) => t.replace(/[0-9\u0660-\u0669]+/gu, (run) => (/[\u0660-\u0669]/u.test(run) && /[0-9]/u.test(run) ? run.replace(/[0-9]/gu, westernToArabicIndic) : run)),
  },
  {
    name: 'persian-digits',
    why: 'The Arabic model reading Persian digits (۴ ۵ ۶ and the rest) for Arabic-Indic ones (CER % 4.98 → 4.98: none seen).',
    kept: false,
    apply: (t, model) => (model === 'ara' ? t.replace(/[\u06F0-\u06F9]/gu, persianToArabicIndic) : t),
  },
  {
    name: 'tatweel',
    why: 'Kashida (tatweel) stretches words in print; removing it would change nothing the reader sees (CER % 4.98 → 4.98: none read).',
    kept: false,
    apply: (t) => t.replace(new RegExp(`(?<=${arabicLetter})\\u0640+(?=${arabicLetter})`, 'gu'), ''),
  },
  {
    name: 'stray-symbols',
    why: 'Specks read as ©, quotes or a lone dot standing alone at the start of a line (CER % 4.98 → 4.95).',
    kept: true,
    apply: (t) => t.replace(/^[ \t]*[©®“”"'`.·•,_~|-][ \t]+(?=\p{Script=Arabic})/gmu, ''),
  },
  {
    name: 'stray-dots',
    why: 'Specks read as dots at the end of a line: a lone run of dots after the sentence\'s own mark (`العربي. .`, `شتوية! ...`), one or two lone dots after a word (`كامل ..`), and a second dot glued to the first (`والباحثون..`); a spaced ellipsis (`. . .`) stays (CER % 4.98 → 4.74).',
    kept: true,
    apply: (t) =>
      t
        .replace(/(?<=[^\s.][.!؟?])[ \t]+\.+[ \t]*$/gmu, '')
        .replace(/(?<=[^\s.!؟?])[ \t]+\.{1,2}[ \t]*$/gmu, '')
        .replace(/(?<=[^\s.])\.\.[ \t]*$/gmu, '.'),
  },
  {
    name: 'spaces',
    why: 'Runs of spaces and trailing spaces, and more than one blank line, folded (CER % 4.98 → 4.98: CER ignores whitespace; the text is left as Tesseract lays it out).',
    kept: false,
    apply: (t) => t.replace(/[ \t]+/gu, ' ').replace(/ +$/gmu, '').replace(/^ +/gmu, '').replace(/\n{3,}/gu, '\n\n').trim(),
  },
];

/** Tesseract's Arabic-script output with the kept rules applied. */
export function cleanArabic(text: string, model: OcrModel = 'ara', rules: readonly CleanupRule[] = cleanupRules.filter((r) => r.kept)): string {
  return rules.reduce((t, rule) => rule.apply(t, model), text);
}
