import { arabicLines, englishLines } from '../../ocr-worker/fixtures/texts.ts';

/**
 * The bench's text: the fixtures' lines plus more, so that a page is a full page of varied lines.
 * Arabic: classical verse and prose fully vowelled (as editions of poetry print them), classical
 * prose without diacritics, modern prose without, and modern sentences vowelled as school books
 * print them. The verse is public domain; the prose sentences are written for this project in the
 * style of their period. English: public-domain openings and modern sentences.
 */
const classicalVowelled = [
  'قِفَا نَبْكِ مِنْ ذِكْرَى حَبِيبٍ وَمَنْزِلِ بِسِقْطِ اللِّوَى بَيْنَ الدَّخُولِ فَحَوْمَلِ',
  'إِنَّمَا الأَعْمَالُ بِالنِّيَّاتِ، وَإِنَّمَا لِكُلِّ امْرِئٍ مَا نَوَى.',
  'أَنَا الَّذِي نَظَرَ الأَعْمَى إِلَى أَدَبِي وَأَسْمَعَتْ كَلِمَاتِي مَنْ بِهِ صَمَمُ',
  'إِذَا غَامَرْتَ فِي شَرَفٍ مَرُومٍ فَلا تَقْنَعْ بِمَا دُونَ النُّجُومِ',
  'وَمَنْ يَتَهَيَّبْ صُعُودَ الْجِبَالِ يَعِشْ أَبَدَ الدَّهْرِ بَيْنَ الْحُفَرِ',
  'إِذَا الشَّعْبُ يَوْمًا أَرَادَ الْحَيَاةَ فَلا بُدَّ أَنْ يَسْتَجِيبَ الْقَدَرْ',
  'قَالَ ابْنُ الْمُقَفَّعِ: إِنَّ الْعَاقِلَ لا يَنْبَغِي أَنْ يَغْتَرَّ بِقَوْلِ النَّاسِ.',
  'بِسْمِ اللَّهِ الرَّحْمَنِ الرَّحِيمِ، الْحَمْدُ لِلَّهِ الَّذِي عَلَّمَ بِالْقَلَمِ.',
  'وَمَا نَيْلُ الْمَطَالِبِ بِالتَّمَنِّي وَلَكِنْ تُؤْخَذُ الدُّنْيَا غِلابَا',
  'أَعَزُّ مَكَانٍ فِي الدُّنَى سَرْجُ سَابِحٍ وَخَيْرُ جَلِيسٍ فِي الزَّمَانِ كِتَابُ',
  'لِكُلِّ شَيْءٍ إِذَا مَا تَمَّ نُقْصَانُ فَلا يُغَرَّ بِطِيبِ الْعَيْشِ إِنْسَانُ',
  'الْعِلْمُ يَرْفَعُ بَيْتًا لا عِمَادَ لَهُ وَالْجَهْلُ يَهْدِمُ بَيْتَ الْعِزِّ وَالشَّرَفِ',
];

const classicalPlain = [
  'زعموا أن أسدا كان في أرض كثيرة المياه والعشب، وكان معه ثعلب.',
  'اعلم أن الإنسان مدني بالطبع، أي لا بد له من الاجتماع.',
  'وكان أبو حنيفة يقول: علمنا هذا رأي، وهو أحسن ما قدرنا عليه.',
  'قال الخليل بن أحمد: الرجال أربعة، رجل يدري ويدري أنه يدري.',
  'ومن كتب الأدب المشهورة البيان والتبيين والكامل للمبرد.',
  'فلما أصبح الملك دعا وزيره وقال له: ما رأيك في هذا الأمر؟',
  'وقد رتبت هذا الكتاب على حروف المعجم ليسهل على طالبه.',
  'حدثنا محمد بن إسحاق قال: خرج القوم من مكة في أول الشهر.',
  'والشعر ديوان العرب، به حفظت الأنساب وعرفت المآثر.',
  'قيل لبعض الحكماء: ما الغنى؟ قال: قلة تمنيك ورضاك بما يكفيك.',
  'ونزلنا بمدينة فاس، وهي من أعظم مدن المغرب وأكثرها عمرانا.',
  'وأول من دون العلوم في الإسلام جماعة من العلماء في القرن الثاني.',
];

const modernPlain = [
  'أعلنت وزارة الثقافة عن إطلاق منصة رقمية للكتب العربية المجانية.',
  'يبلغ عدد سكان المدينة نحو ثلاثة ملايين نسمة، وفق إحصاء ٢٠٢٠.',
  'تحولت المخطوطات القديمة إلى نسخ رقمية يمكن البحث فيها بسهولة.',
  'شارك في المؤتمر أكثر من ١٥٠ باحثا من ٢٢ دولة عربية وأجنبية.',
  'يعتمد نجاح المشروع على تعاون المكتبات والجامعات ودور النشر.',
  'صدرت الطبعة الأولى من الرواية عام 1956، وترجمت إلى عشر لغات.',
  'تقع المكتبة في الطابق الثاني، وتفتح من التاسعة صباحا حتى المساء.',
  'أظهرت الدراسة أن القراءة اليومية تحسن التركيز وتنمي المفردات.',
  'اشترى الطالب ثلاثة كتب في النحو والصرف والبلاغة من معرض الكتاب.',
  'تستغرق رحلة الطائرة من الرباط إلى عمان نحو ست ساعات ونصف.',
  'يرى بعض النقاد أن القصة القصيرة أصعب فنون الكتابة السردية.',
  'أرسل المحرر ملاحظاته إلى الكاتب، فعدل الفصل الأخير مرتين.',
];

const modernVowelled = [
  'يَذْهَبُ الأَطْفَالُ إِلَى الْمَدْرَسَةِ كُلَّ صَبَاحٍ مَعَ أَصْدِقَائِهِمْ.',
  'تُعَدُّ الْقِرَاءَةُ غِذَاءً لِلْعَقْلِ كَمَا أَنَّ الطَّعَامَ غِذَاءٌ لِلْجِسْمِ.',
  'كَتَبَ الطَّالِبُ مَقَالَةً عَنْ أَهَمِّيَّةِ الْمُحَافَظَةِ عَلَى الْبِيئَةِ.',
  'فِي فَصْلِ الرَّبِيعِ تَتَفَتَّحُ الأَزْهَارُ وَتَخْضَرُّ الْحُقُولُ.',
];

const moreEnglish = [
  'Call me Ishmael. Some years ago, never mind how long precisely,',
  'having little or no money in my purse, I thought I would sail.',
  'It was the best of times, it was the worst of times.',
  'All happy families are alike; each unhappy family is unhappy.',
  'The catalogue lists 2,418 volumes, of which 312 are manuscripts.',
  'Scholars in Baghdad translated Greek works on medicine and logic.',
  'The reading room closes at 6 p.m. on weekdays.',
  'Please return borrowed books within fourteen days of the loan.',
  'The second volume covers the years from 1798 to 1882.',
  'Paper mills spread from Samarkand to Baghdad, Cairo and Fez.',
  'A good index saves the reader hours of searching.',
  'Her thesis compares three editions of the same medieval text.',
  'The printer set each page by hand, letter by letter.',
  'Footnotes on pages 45-47 cite the original Arabic sources.',
  'Digitized books can be searched, quoted and read aloud.',
  'The museum holds over 10,000 coins, maps and letters.',
  'He walked to the market, bought bread, and came home at noon.',
  'Some books are to be tasted, others to be swallowed.',
  'The committee met on 3 March and approved the new budget.',
  'Chapter 12 ends with a short glossary of technical terms.',
  'The old bridge was rebuilt in stone after the flood of 1907.',
  'Why did the author change the ending in the later edition?',
  'Rain fell all night, and by morning the river had risen.',
  'The letters were bound together in a red leather cover.',
  'Our survey of 540 readers found that most prefer print.',
  'Light travels faster than sound, so we see lightning first.',
  'The map shows the caravan routes across the Sahara.',
  'Each entry gives the author, title, place and date of printing.',
];

export const benchLines = {
  ar: [...arabicLines, ...classicalVowelled, ...classicalPlain, ...modernPlain, ...modernVowelled],
  en: [...englishLines, ...moreEnglish],
} as const;
