import { describe, expect, it } from 'vitest';
import { cleanArabic } from '../../ocr-worker/text/cleanup.ts';
import { cer, corpusCer } from '../../ocr-worker/text/cer.ts';

describe('Arabic clean-up', () => {
  it('restores the Arabic comma read as a Latin comma or as »', () => {
    expect(cleanArabic('الحمد لله رب العالمين, والصلاة')).toBe('الحمد لله رب العالمين، والصلاة');
    expect(cleanArabic('سافرت إلى دمشق وبغداد والقيروان» ورأيت')).toBe('سافرت إلى دمشق وبغداد والقيروان، ورأيت');
  });

  it('keeps » that closes a quotation, and commas between Latin words', () => {
    expect(cleanArabic('قال: «العلم نور» ثم سكت')).toBe('قال: «العلم نور» ثم سكت');
    expect(cleanArabic('see Smith, Jones')).toBe('see Smith, Jones');
  });

  it('restores the Arabic comma read as a final hamza where no hamza can stand', () => {
    expect(cleanArabic('كتبنا إليكم مرارًاء فلم يصلنا')).toBe('كتبنا إليكم مرارًا، فلم يصلنا');
    expect(cleanArabic('كتبنا إليكم مراراًء فلم يصلنا')).toBe('كتبنا إليكم مراراً، فلم يصلنا');
    expect(cleanArabic('إن مع العسر يسرًّاء\nفلا تيأس')).toBe('إن مع العسر يسرًّا،\nفلا تيأس');
    expect(cleanArabic('فقرأناها في هدوءء ثم رددناها')).toBe('فقرأناها في هدوء، ثم رددناها');
    // The comma read twice, as a hamza and as itself: one comma.
    expect(cleanArabic('ليس عيبًاء, فالعلماء يقرؤون')).toBe('ليس عيبًا، فالعلماء يقرؤون');
  });

  it('leaves words that end in a genuine hamza alone, before a word, a comma or the line end', () => {
    const genuine = [
      'نظرنا إلى السماء ولا شيء أنفع من جزء صغير في ضوء القمر',
      'دفء البيت وبطء القراءة وملء الكف وعبء الأسرة، وشربنا ماءً',
      'واجتمع الأصدقاء، والعلماء في هدوء،',
      'ثم جاء الشتاء',
    ].join('\n');
    expect(cleanArabic(genuine)).toBe(genuine);
    expect(cleanArabic('ننظر إلى السماء, ونشرب الماء» ونتحدث')).toBe('ننظر إلى السماء، ونشرب الماء، ونتحدث');
  });

  it('leaves a hamza read for a comma after a bare alef: the text cannot tell it from a genuine one', () => {
    // تكفونا، read as تكفوناء spells like سماء; the rule that changed every such word raised the error (alef-hamza-comma).
    expect(cleanArabic('تكفوناء وما عندكم')).toBe('تكفوناء وما عندكم');
    expect(cleanArabic('إلى السماء وما فيها')).toBe('إلى السماء وما فيها');
  });

  it('writes the ya of شيء read dotless before the hamza', () => {
    expect(cleanArabic('يغنينا عن كل شىء، حتى عن السفر')).toBe('يغنينا عن كل شيء، حتى عن السفر');
    expect(cleanArabic('مشى إلى البيت')).toBe('مشى إلى البيت');
  });

  it('drops specks read as dots at the end of a line', () => {
    expect(cleanArabic('من كتب النحو العربي. .\nفي ليلة شتوية! ...\nبأني كامل ..\nالطلاب والباحثون..')).toBe(
      'من كتب النحو العربي.\nفي ليلة شتوية!\nبأني كامل\nالطلاب والباحثون.',
    );
  });

  it('keeps an ellipsis, glued or spaced, and dots inside a line', () => {
    const kept = 'ثم سكت...\nثم قال . . .\nفي الصفحة ١٢. ثم';
    expect(cleanArabic(kept)).toBe(kept);
  });

  it('drops the direction marks around numbers and folds half-Western Arabic-Indic numbers', () => {
    expect(cleanArabic('نحو \u200E35٠\u200F صفحة')).toBe('نحو ٣٥٠ صفحة');
    expect(cleanArabic('رقم 4 في الصفحة 127')).toBe('رقم 4 في الصفحة 127');
  });

  it('drops a speck read as a symbol before the first word of a line', () => {
    expect(cleanArabic('© قرأ الطالب')).toBe('قرأ الطالب');
  });
});

describe('character error rate', () => {
  it('counts code-point edits over the reference length, whitespace folded', () => {
    expect(cer('كتاب', 'كتاب')).toBe(0);
    expect(cer('كتاب', 'كاب')).toBe(0.25);
    expect(cer('a  b\nc', 'a b c')).toBe(0);
  });

  it('can leave the diacritics out', () => {
    expect(cer('عِلْمًا', 'علما')).toBeGreaterThan(0);
    expect(cer('عِلْمًا', 'علما', { ignoreDiacritics: true })).toBe(0);
  });

  it('weights a set of pages by their length', () => {
    expect(corpusCer([{ reference: 'abcd', hypothesis: 'abcd' }, { reference: 'ab', hypothesis: 'ax' }])).toBeCloseTo(1 / 6);
  });
});
