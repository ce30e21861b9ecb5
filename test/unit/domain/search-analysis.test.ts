import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze, maxTermLength, normalize, stem, tokens } from '../../../lib/search/analysis.ts';
import { isIndexTerm } from '../../../lib/search/rules.ts';
import { stemArabic } from '../../../lib/search/arabic-stemmer.ts';
import { stemEnglish } from '../../../lib/search/english-stemmer.ts';

/** Issue 17: the one analysis of indexed and queried text (lib/search/analysis.ts). */

describe('normalize', () => {
  it.each([
    ['الْحَمْدُ', 'الحمد'], // harakat
    ['إِسْلَام', 'اسلام'], // alef with hamza below
    ['أحمد', 'احمد'],
    ['آمن', 'امن'],
    ['مكتبـــة', 'مكتبه'], // tatweel; teh marbuta → heh
    ['على', 'علي'], // alef maksura → yeh
    ['ٱلرَّحْمَٰنِ', 'الرحمن'], // alef wasla, superscript alef
    ['ﻻ', 'لا'], // presentation form (OCR, PDFs)
    ['ﺍﻟﻜﺘﺎﺏ', 'الكتاب'],
    ['ﷲ', 'الله'],
    ['ﷺ', 'صلي الله عليه وسلم'], // one character, four words
    ['٣٤', '34'],
    ['۱۲', '12'],
    ['کتاب', 'كتاب'], // Persian keheh
    ['فارسی', 'فارسي'], // Farsi yeh
    ['ھے', 'هي'], // Urdu heh doachashmee, yeh barree
    ['خانۀ', 'خانه'], // heh with yeh above
    ['ذٰلِكَ ٱلْكِتَٰبُ لَا رَيْبَ ۛ فِيهِ ۛ', 'ذلك الكتب لا ريب  فيه '], // Quranic annotation marks go
    ['Café', 'cafe'],
    ['ÉCOLE Ångström', 'ecole angstrom'],
    ['naïve', 'naive'],
    ['e\u0301', 'e'], // decomposed accent
    ['ﬁle', 'file'], // Latin ligature
  ])('%s → %s', (input, expected) => {
    expect(normalize(input)).toBe(expected);
  });

  it('removes the superscript alef, not writing it as alef: Quranic الكتٰب is not الكتاب', () => {
    // Modern spelling writes some of these long vowels with alef (الكتاب) and some without (ذلك, الرحمن, هذا).
    expect(normalize('هَٰذَا')).toBe('هذا');
    expect(normalize('ٱلْكِتَٰبُ')).toBe('الكتب');
  });

  it('keeps hamza on waw and yeh, and bare hamza, as Lucene does', () => {
    expect(normalize('مَسْؤُول')).toBe('مسؤول');
    expect(normalize('رَئِيس')).toBe('رئيس');
    expect(normalize('سماء')).toBe('سماء');
    // A decomposed waw + hamza above is composed first, so both encodings agree.
    expect(normalize('\u0648\u0654')).toBe('ؤ');
  });

  it('leaves other scripts’ marks alone', () => {
    expect(normalize('हिन्दी')).toBe('हिन्दी');
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const once = normalize(s);
        expect(normalize(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });

  it('is idempotent on Arabic-heavy text', () => {
    const arabic = fc.integer({ min: 0x0600, max: 0x06ff }).map((c) => String.fromCharCode(c));
    const forms = fc.integer({ min: 0xfb50, max: 0xfeff }).map((c) => String.fromCharCode(c));
    const text = fc.array(fc.oneof(arabic, forms, fc.constantFrom(' ', 'a', 'É', '\u0301', '\u0654')), { maxLength: 40 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(text, (s) => {
        const once = normalize(s);
        expect(normalize(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('Arabic stems (Light10 as Lucene’s ArabicStemmer)', () => {
  it.each([
    ['والكتاب', 'كتاب'], // وال-
    ['بالمدرسة', 'مدرس'], // بال-, then ه (the normalized ة)
    ['المعلمون', 'معلم'], // ال-, -ون
    ['كتابها', 'كتاب'], // -ها
    ['فالعلم', 'علم'],
    ['كالبحر', 'بحر'],
    ['للطلاب', 'طلاب'],
    ['وكتب', 'كتب'], // و- on a word of four
    ['المسلمات', 'مسلم'], // ال-, -ات
    ['مدرستين', 'مدرست'], // -ين
    ['الله', 'له'], // Lucene strips ال- when two letters remain
  ])('%s → %s', (word, expected) => {
    expect(stem(normalize(word))).toBe(expected);
  });

  it('leaves short words alone', () => {
    expect(stemArabic('و')).toBe('و');
    expect(stemArabic('وهو')).toBe('وهو'); // و- needs four letters
    expect(stemArabic('ال')).toBe('ال');
    expect(stemArabic('الم')).toBe('الم'); // ال- needs two letters left
    expect(stemArabic('اله')).toBe('ال'); // but -ه needs only two
    expect(stemArabic('به')).toBe('به');
  });

  it('strips one prefix, the first that fits in Lucene’s order', () => {
    expect(stemArabic('وللكتاب')).toBe('للكتاب'); // و- only, not then لل-
    expect(stemArabic('والد')).toBe('الد'); // وال- would leave one letter, so و- (Lucene's rules, odd as it is here)
  });

  it('strips several suffixes in one ordered pass', () => {
    expect(stemArabic('كتابيها')).toBe('كتاب'); // -ها, then -ي
  });
});

describe('English stems (Porter)', () => {
  // Examples from Porter (1980) and its published vocabulary.
  it.each([
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['ties', 'ti'],
    ['caress', 'caress'],
    ['cats', 'cat'],
    ['feed', 'feed'],
    ['agreed', 'agre'],
    ['plastered', 'plaster'],
    ['bled', 'bled'],
    ['motoring', 'motor'],
    ['sing', 'sing'],
    ['conflated', 'conflat'],
    ['troubled', 'troubl'],
    ['sized', 'size'],
    ['hopping', 'hop'],
    ['tanned', 'tan'],
    ['falling', 'fall'],
    ['hissing', 'hiss'],
    ['fizzed', 'fizz'],
    ['failing', 'fail'],
    ['filing', 'file'],
    ['happy', 'happi'],
    ['sky', 'sky'],
    ['relational', 'relat'],
    ['conditional', 'condit'],
    ['rational', 'ration'],
    ['digitizer', 'digit'],
    ['vietnamization', 'vietnam'],
    ['predication', 'predic'],
    ['operator', 'oper'],
    ['feudalism', 'feudal'],
    ['decisiveness', 'decis'],
    ['hopefulness', 'hope'],
    ['callousness', 'callous'],
    ['formaliti', 'formal'],
    ['sensitiviti', 'sensit'],
    ['sensibiliti', 'sensibl'],
    ['triplicate', 'triplic'],
    ['formative', 'form'],
    ['formalize', 'formal'],
    ['electriciti', 'electr'],
    ['electrical', 'electr'],
    ['hopeful', 'hope'],
    ['goodness', 'good'],
    ['revival', 'reviv'],
    ['allowance', 'allow'],
    ['inference', 'infer'],
    ['airliner', 'airlin'],
    ['gyroscopic', 'gyroscop'],
    ['adjustable', 'adjust'],
    ['defensible', 'defens'],
    ['irritant', 'irrit'],
    ['replacement', 'replac'],
    ['adjustment', 'adjust'],
    ['dependent', 'depend'],
    ['adoption', 'adopt'],
    ['communism', 'commun'],
    ['activate', 'activ'],
    ['angulariti', 'angular'],
    ['homologous', 'homolog'],
    ['effective', 'effect'],
    ['bowdlerize', 'bowdler'],
    ['probate', 'probat'],
    ['rate', 'rate'],
    ['cease', 'ceas'],
    ['controlling', 'control'],
    ['roll', 'roll'],
    ['generalizations', 'gener'],
    ['oscillators', 'oscil'],
    ['running', 'run'],
    ['libraries', 'librari'],
    ['cement', 'cement'], // -ement fails m > 1; -ment is not tried
    // The reference implementation's departures from the paper.
    ['possibly', 'possibl'], // bli → ble
    ['archaeology', 'archaeolog'], // logi → log
    ['as', 'as'], // two letters stay
    ['is', 'is'],
  ])('%s → %s', (word, expected) => {
    expect(stemEnglish(word)).toBe(expected);
  });
});

describe('stem by script', () => {
  it('uses Light10 for Arabic script, Porter for a–z, nothing for the rest', () => {
    expect(stem('والكتاب')).toBe('كتاب');
    expect(stem('running')).toBe('run');
    expect(stem('straße')).toBe('straße');
    expect(stem('mp3s')).toBe('mp3s');
    expect(stem('1999')).toBe('1999');
    expect(stem('हिन्दी')).toBe('हिन्दी');
  });
});

describe('tokens', () => {
  it('gives each word its term, stem and original offsets', () => {
    const text = 'قالَ: «الْكِتَابُ» — Running, cafés!';
    const all = tokens(text);
    expect(all.map((t) => [t.term, t.stem, text.slice(t.start, t.end)])).toEqual([
      ['قال', 'قال', 'قالَ'],
      ['الكتاب', 'كتاب', 'الْكِتَابُ'],
      ['running', 'run', 'Running'],
      ['cafes', 'cafe', 'cafés'],
    ]);
  });

  it('slices presentation forms and tatweel words whole', () => {
    const text = 'ﺍﻟﻜﺘﺎﺏ مكتبـــة ﻻ';
    expect(tokens(text).map((t) => [t.term, text.slice(t.start, t.end)])).toEqual([
      ['الكتاب', 'ﺍﻟﻜﺘﺎﺏ'],
      ['مكتبه', 'مكتبـــة'],
      ['لا', 'ﻻ'],
    ]);
  });

  it('gives every word of ﷺ the ligature’s offsets', () => {
    const text = 'النبي ﷺ قال';
    const all = tokens(text);
    expect(all.map((t) => t.term)).toEqual(['النبي', 'صلي', 'الله', 'عليه', 'وسلم', 'قال']);
    for (const t of all.slice(1, 5)) expect([t.start, t.end]).toEqual([6, 7]);
  });

  it('drops words that normalize to nothing', () => {
    expect(tokens('\u064E \u0670 ـ')).toEqual([]);
  });

  it('splits at punctuation and the zero-width non-joiner, keeps digits', () => {
    expect(tokens('می‌خواهم ٢٠٢٤-01 e-mail').map((t) => t.term)).toEqual(['مي', 'خواهم', '2024', '01', 'e', 'mail']);
  });

  it(`cuts terms to ${maxTermLength} characters, offsets still the whole word`, () => {
    const long = 'ب'.repeat(100);
    const [t] = tokens(` ${long} `);
    expect(t?.term).toBe('ب'.repeat(maxTermLength));
    expect([t?.start, t?.end]).toEqual([1, 101]);
    // Characters, not UTF-16 units: never half a surrogate pair.
    const [astral] = tokens('a' + '𐌰'.repeat(100));
    expect(astral?.term).toBe('a' + '𐌰'.repeat(maxTermLength - 1));
  });

  it('slices the original text: in order, non-empty, not overlapping across words', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        let lastEnd = 0;
        let lastStart = -1;
        for (const t of tokens(text)) {
          expect(t.end).toBeGreaterThan(t.start);
          expect(text.slice(t.start, t.end).length).toBeGreaterThan(0);
          if (t.start === lastStart) continue; // another word of the same source word (ﷺ)
          expect(t.start).toBeGreaterThanOrEqual(lastEnd);
          lastStart = t.start;
          lastEnd = t.end;
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('analyze', () => {
  it('gives exact and stemmed terms position by position', () => {
    expect(analyze('والكتاب المعلمون running')).toEqual({
      exact: ['والكتاب', 'المعلمون', 'running'],
      stemmed: ['كتاب', 'معلم', 'run'],
    });
  });

  it('makes a phrase typed without diacritics and with other alef/yeh forms the same terms', () => {
    const original = 'إِنَّ اللَّهَ عَلَى كُلِّ شَيْءٍ قَدِيرٌ، وَأَنْزَلْنَا إِلَيْكَ الْكِتَابَ بِالْحَقِّ';
    const typed = 'ان الله علي كل شيء قدير، وانزلنا اليك الكتاب بالحق';
    expect(analyze(typed)).toEqual(analyze(original));
    const persian = 'کتاب فارسی'; // keheh, Farsi yeh
    expect(analyze(persian)).toEqual(analyze('كتاب فارسي'));
  });

  it('never throws; exact and stemmed have the same length; no stem is longer than its term', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const { exact, stemmed } = analyze(text);
        expect(stemmed).toHaveLength(exact.length);
        exact.forEach((term, i) => {
          expect(term.length).toBeGreaterThan(0);
          expect([...term].length).toBeLessThanOrEqual(maxTermLength);
          expect(stemmed[i]!.length).toBeLessThanOrEqual(term.length);
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('gives only index terms, exact and stemmed, so every engine takes them (lib/search/rules.ts)', () => {
    expect(analyze('ΟΔΟΣ οδος ſ µ Straße').exact.every(isIndexTerm)).toBe(true);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const { exact, stemmed } = analyze(text);
        for (const term of [...exact, ...stemmed]) expect(isIndexTerm(term), JSON.stringify(term)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('stems every Arabic and English word no longer than it', () => {
    const arabicWord = fc.array(fc.constantFrom(...'اأإآبتةثجحخدذرسشصضطظعغفقكلمنهويىءؤئ'), { minLength: 1, maxLength: 12 }).map((cs) => cs.join(''));
    const englishWord = fc.stringMatching(/^[a-z]{1,15}$/);
    fc.assert(
      fc.property(fc.oneof(arabicWord, englishWord), (word) => {
        for (const t of tokens(word)) expect(t.stem.length).toBeLessThanOrEqual(t.term.length);
      }),
      { numRuns: 2000 },
    );
  });
});
