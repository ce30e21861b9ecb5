import { normalize } from '../../lib/search/analysis.ts';
import type { ArabicKind, ArabicWord } from './arabic-words.ts';

/**
 * The surface forms of the corpus's Arabic words (bench/corpus/generate.ts): real texts write most
 * words with clitics and endings attached, so a page holds far more distinct forms than its words
 * have lemmas. Each time a word is drawn, `inflect` attaches what its kind (arabic-words.ts) and its
 * place in the sentence (`Position`) allow, with the shares below, chosen as plausible for running
 * text, not measured on a corpus: in the generated pages 17% of the words get a proclitic here
 * (besides the listed words that have one already, such as وقد or بالكتاب) and about one noun in six
 * (17%) a pronoun. A proclitic cannot stand on about 40% of the words (those a particle governs, the
 * second noun of an iḍāfa, an adjective after its noun), nor a pronoun on an iḍāfa's first noun: the
 * shares where they can are set so that these overall shares are what they were when words were
 * drawn one by one, regardless of their neighbours (twice those shares for the proclitics, 0.23
 * against 0.18 for a noun's pronoun).
 *
 * - every kind: the conjunction و or ف, unless the word has one already (it is another listed word
 *   with و or ف before it, or a particle beginning with و or ف) or never takes one (ثم أو بل ...);
 * - particles: nothing else (في → وفي);
 * - verbs: an imperfect (ي…, or a vocalized present of ت ن أ) may take the future س or the ل of purpose
 *   (يكتب → سيكتب، وليكتب). No object pronouns: the lists do not tell transitive verbs;
 * - nouns: the article ال, or a possessive pronoun (ه ها هم هما كم كن نا ي ك هن; ة → ت, ى → ا, a
 *   sound plural loses its ن before it), or neither; then one of the prepositions ب ل ك (ل + ال →
 *   لل). Never both the article and a pronoun;
 * - adjectives: the article or not, the feminine ة, the plurals ات and (participles in م… and nisba
 *   adjectives in ي only) ون ين, the dual ان ين, and the prepositions, rarely;
 * - names: the prepositions; ال only when the name has it.
 * A listed word that already carries a proclitic or a pronoun, or ends in the adverbial -an (ًا),
 * takes only the conjunction. The approximations: the kinds are the lists' (assigned by hand); a
 * noun ending like a pronoun (فقيه, مسكن) is taken to carry one, and a word like واحد, whose rest is
 * a listed word, to carry و; a noun's number and countability are unknown, so no noun gets a dual;
 * and the diacritics of a vocalized word are kept as they are, affixes written without.
 */

/** Nouns whose possessive forms are irregular (أب → أبوه): none is made. */
const irregular = new Set(['اب', 'اخ']);
/** Particles that never follow و or ف (normalized). */
const noConjunction = new Set(['ثم', 'او', 'بل', 'ام', 'يا', 'نعم', 'بلي', 'كلا', 'اي', 'ايها', 'امين']);
/** P(و), P(ف) at the start of a word of each kind, where it may take one (not governed: `Position`). */
const conjunction: Record<ArabicKind, [number, number]> = {
  particle: [0.16, 0.04],
  noun: [0.28, 0.06],
  adjective: [0.12, 0.02],
  name: [0.24, 0.04],
  verb: [0.3, 0.12],
};
/** P(ب), P(ل), P(ك) before a noun, an adjective or a name (after the conjunction), where it may take one. */
const preposition: Partial<Record<ArabicKind, [number, number, number]>> = {
  noun: [0.16, 0.1, 0.02],
  adjective: [0.04, 0.04, 0.01],
  name: [0.1, 0.1, 0.01],
};
/** A noun: P(article), P(possessive pronoun); the rest neither. An adjective: P(article). */
const nounArticle = 0.45;
const nounPossessive = 0.23;
const adjectiveArticle = 0.45;
/** Possessive pronouns and their weights. */
const possessives: [string, number][] = [
  ['ه', 30],
  ['ها', 17],
  ['هم', 20],
  ['هما', 3],
  ['كم', 6],
  ['كن', 1],
  ['نا', 8],
  ['ي', 8],
  ['ك', 5],
  ['هن', 2],
];
/** An adjective's endings (masculine singular otherwise): P(ة), P(ات), P(ون or ين), P(ان or ين). */
const adjectiveEndings = [0.22, 0.08, 0.1, 0.05] as const;
/** An imperfect verb: P(س), P(ل). */
const imperfectPrefix = [0.12, 0.04] as const;

const marks = /[\u064B-\u0652\u0670]/g;
const trailingMarks = /[\u064B-\u0652\u0670]+$/;
const bare = (word: string): string => word.replace(marks, '');
/** A sun letter's shadda after the article (النَّاس → نَاس). */
const sunShadda = /^([تثدذرزسشصضطظلن])([\u064B-\u0650\u0652]*)\u0651/;

/** What may be attached to one listed word, worked out once. */
export interface Shape {
  word: string;
  kind: ArabicKind;
  /** It may take و or ف (it has none). */
  conjunction: boolean;
  /** It is listed with a proclitic (و ف, or ب ل ك before ال): it cannot follow a word that governs it. */
  proclitic: boolean;
  /** It is listed with و or ف: it cannot follow a conjunction. */
  conjoined: boolean;
  /** As listed, it is definite (ال, or a pronoun); for the words with no stem, which keep their listed form. */
  listedDefinite: boolean;
  /** Nouns, adjectives, names: the stem clitics go on (no article, no tanween, no final vowel); none: only a conjunction. */
  stem?: string;
  /** Names: the name has the article (الله, البصرة). */
  definite?: boolean;
  /** Adjectives: which endings it may take. */
  endings?: 'masculine' | 'participle' | 'feminine' | 'none';
  /** Verbs: an imperfect. */
  imperfect?: boolean;
}

/** The shapes of listed words; `listed` holds every listed word normalized (to tell a conjunction from a root letter). */
export function shapeOf(entry: ArabicWord, listed: ReadonlySet<string>): Shape {
  const { word, kind } = entry;
  const b = bare(word);
  // A particle in و or ف is taken to have the conjunction already (وسلم, فقط: a few, such as فوق, lose it).
  const conjoined =
    (/^[وف]/.test(b) && (kind === 'particle' || (b.length > 2 && listed.has(normalize(b.slice(1)))))) || noConjunction.has(normalize(b));
  const withProclitic = /^[وفبكل]ال|^لل/.test(b);
  const shape: Shape = {
    word,
    kind,
    conjunction: !conjoined,
    proclitic: (conjoined && !noConjunction.has(normalize(b))) || (kind !== 'particle' && withProclitic),
    conjoined: (conjoined && !noConjunction.has(normalize(b))) || (kind !== 'particle' && /^[وف]([بكل]?ال|لل)/.test(b)),
    listedDefinite: /^([وف]?[بك]?ال|[وف]?لل)/.test(b) || (kind === 'noun' && b.length >= 4 && /(ه|ها|هم|هما|كم|كن|نا|هن)$/.test(b)),
  };
  if (kind === 'particle' || conjoined) return shape;
  if (kind === 'verb') {
    shape.imperfect = /^ي/.test(b) || (/^[تنأ][\u064E\u064F]/.test(word) && /(\u064F|ن\u064E)$/.test(word));
    return shape;
  }
  if (withProclitic || /\u064Bا?$|اً$/.test(word)) return shape; // a proclitic already, or adverbial -an
  const definite = b.startsWith('ال') && b.length > 3;
  const stemOf = (w: string) => (definite ? w.replace(/^ال[\u064B-\u0652]*/, '').replace(sunShadda, '$1$2') : w).replace(trailingMarks, '');
  const stem = stemOf(word);
  if (bare(stem).length < 2) return shape;
  if (kind === 'name') return { ...shape, stem, definite };
  // A noun with a pronoun already (no article: an article and a pronoun never go together).
  if (!definite && b.length >= 4 && /(ه|ها|هم|هما|كم|كن|نا|هن)$/.test(b)) return shape;
  shape.stem = stem;
  if (kind === 'adjective') {
    const s = bare(stem);
    shape.endings = /ة$/.test(s)
      ? 'feminine'
      : /(ات|ون|ين|ان|ى|ا|اء)$/.test(s)
        ? 'none'
        : /^م/.test(s) && s.length >= 4
          ? 'participle'
          : /ي$/.test(s)
            ? 'participle' // a nisba adjective: its plurals are sound too
            : 'masculine';
  }
  return shape;
}

const weighted = <T>(random: () => number, items: [T, number][]): T => {
  let u = random() * items.reduce((sum, [, w]) => sum + w, 0);
  for (const [item, w] of items) if ((u -= w) < 0) return item;
  return items.at(-1)![0];
};

/** A noun stem with a possessive pronoun: ة → ت, ى → ا, a sound plural without its ن; undefined when the spelling would change otherwise (ء). */
function withPossessive(stem: string, pronoun: string): string | undefined {
  const s = bare(stem);
  if (s.endsWith('ء') || irregular.has(normalize(s))) return undefined;
  if (s.endsWith('ة')) return `${stem.replace(/ة$/, 'ت')}${pronoun}`;
  if (s.endsWith('ى')) return `${stem.replace(/ى$/, 'ا')}${pronoun}`;
  if (s.length >= 6 && /(ون|ين)$/.test(s)) return `${stem.replace(/ن$/, '')}${pronoun}`; // not قانون, دين
  if (pronoun === 'ي' && /[يا]$/.test(s)) return undefined;
  return `${stem}${pronoun}`;
}

function withEnding(stem: string, endings: Shape['endings'], random: () => number): string {
  const u = random();
  const [feminine, femininePlural, masculinePlural, dual] = adjectiveEndings;
  const pair = (first: string, second: string) => (random() < 0.4 ? first : second);
  if (endings === 'feminine') return u < femininePlural ? stem.replace(/ة$/, 'ات') : stem;
  if (endings !== 'masculine' && endings !== 'participle') return stem;
  if (u < feminine) return `${stem}ة`;
  if (u < feminine + femininePlural) return `${stem}ات`;
  if (u < feminine + femininePlural + masculinePlural) return endings === 'participle' ? `${stem}${pair('ون', 'ين')}` : stem;
  if (u < feminine + femininePlural + masculinePlural + dual) return `${stem}${pair('ان', 'ين')}`;
  return stem;
}

/** The article on a stem after a preposition (ل + ال → لل; لل + ل… → لل…). */
function definiteAfter(prep: string, stem: string): string {
  if (prep === 'ل') return stem.startsWith('ل') ? `لل${stem.slice(1)}` : `لل${stem}`;
  return `${prep}ال${stem}`;
}

/**
 * Where a word stands in its sentence, as far as its form depends on it (generate.ts, syntax.ts):
 * - governed: a particle before it governs it (a preposition, إنّ, a demonstrative, a negation, قد,
 *   a relative, a subordinator), or it is the second term of an iḍāfa or an adjective after its
 *   noun: no و or ف, no ب ل ك, and a verb no س or ل (لم يكتب, في البيت, كتاب الله);
 * - conjunction: true: a noun coordinated with the noun before it takes و (العلم والعمل); false: a
 *   word after a conjunction (ثم أو بل لكن حتى إلا) takes no و or ف;
 * - article: a noun after a demonstrative takes the article (هذا الكتاب);
 * - construct: a noun with a noun or a name after it is the first term of an iḍāfa, with neither
 *   article nor pronoun (كتاب الله);
 * - definite: an adjective after a noun agrees with it, taking the article when the word before it
 *   is definite and only then (الكتاب الكبير, كتاب كبير).
 */
export interface Position {
  governed?: boolean;
  conjunction?: boolean;
  article?: boolean;
  construct?: boolean;
  definite?: boolean;
}

/** A form, and whether it is definite (an adjective after it agrees). */
export interface Form {
  form: string;
  definite: boolean;
}

/** Whether a listed word can stand at a position in the form it is listed in, or take the form the position asks. */
export function fits(shape: Shape, at: Position): boolean {
  if (at.governed && shape.proclitic) return false;
  if (at.conjunction === false && shape.conjoined) return false;
  if (shape.stem !== undefined || shape.kind === 'verb' || shape.kind === 'particle') return true;
  if (at.construct) return false;
  if (at.definite !== undefined && shape.kind === 'adjective') return shape.listedDefinite === at.definite;
  return true;
}

/** One surface form of a listed word, as a text uses it at a position in its sentence. */
export function inflect(shape: Shape, random: () => number, at: Position = {}): Form {
  const [and, so] = conjunction[shape.kind];
  const c = random();
  const conj = at.conjunction === true ? 'و' : !shape.conjunction || at.governed || at.conjunction === false ? '' : c < and ? 'و' : c < and + so ? 'ف' : '';
  if (shape.kind === 'verb') {
    if (!shape.imperfect || at.governed) return { form: conj + shape.word, definite: false };
    const p = random();
    return { form: conj + (p < imperfectPrefix[0] ? 'س' : p < imperfectPrefix[0] + imperfectPrefix[1] ? 'ل' : '') + shape.word, definite: false };
  }
  if (shape.stem === undefined) return { form: conj + shape.word, definite: shape.kind === 'name' || shape.listedDefinite };
  const [b, l, k] = preposition[shape.kind]!;
  const p = random();
  const prep = at.governed ? '' : p < b ? 'ب' : p < b + l ? 'ل' : p < b + l + k ? 'ك' : '';
  if (shape.kind === 'name') return { form: conj + (shape.definite ? definiteAfter(prep, shape.stem) : prep + shape.stem), definite: true };
  const s = random();
  if (shape.kind === 'adjective') {
    const stem = withEnding(shape.stem, shape.endings, random);
    const article = at.definite ?? s < adjectiveArticle;
    return { form: conj + (article ? definiteAfter(prep, stem) : prep + stem), definite: article };
  }
  if (at.construct) return { form: conj + prep + shape.stem, definite: false };
  if (at.article || s < nounArticle) return { form: conj + definiteAfter(prep, shape.stem), definite: true };
  if (s < nounArticle + nounPossessive) {
    const possessed = withPossessive(shape.stem, weighted(random, possessives));
    if (possessed !== undefined) return { form: conj + prep + possessed, definite: true };
  }
  return { form: conj + prep + shape.stem, definite: false };
}
