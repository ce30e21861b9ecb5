import type { ArabicClass } from './arabic-words.ts';
import type { EnglishClass } from './english-words.ts';

/**
 * The generator's model of sentences (bench/corpus/generate.ts): a first-order Markov chain over the
 * words' syntactic classes (arabic-words.ts `arabicClassOf`, english-words.ts `englishClassOf`), so
 * that a preposition is followed by its noun, an article by its noun phrase, قد by a verb, as in
 * real text, and not by any word at all. Each sentence draws its first class from `start`, each next
 * one from the row of the class before it in `next`, and its last from the classes in `end` only
 * (the row of the one before, kept to those); the words are then drawn within their class.
 *
 * The weights (percentages of a row) are not measured on a corpus: they are rough shares that
 * follow from the grammar of each language, stated row by row below. What they must get right is
 * which classes may follow which (a zero is a sequence the grammar does not make); within that, a
 * more frequent continuation has the larger weight. Over the sentences of 6 to 20 words the
 * generator makes, the chains give: Arabic nouns 26%, verbs 17%, prepositions 12%, adjectives 9%,
 * names 8%, complete adverbial phrases 6%, the other function words 22% (besides the clitics on the
 * words); English content words 48%, determiners 17%, prepositions 14%, pronouns 8%, conjunctions
 * 7%, auxiliaries 6%, negations 1%. In English about half the words of running text are function
 * words; in Arabic fewer are, as many are clitics written on the next word. (Drawn one by one from
 * the whole lists, as the generator did before, the words were 43% Arabic particles, 29% nouns, 17%
 * verbs, 6% names, 5% adjectives, and 59% English content words, 9% determiners.)
 */
export interface Model<C extends string> {
  start: Partial<Record<C, number>>;
  next: Record<C, Partial<Record<C, number>>>;
  /** The classes a sentence may end on. */
  end: readonly C[];
}

/**
 * Arabic. Verbal sentences (verb first) are the most common kind in classical and modern prose,
 * then sentences opened by a preposition, a noun (a nominal sentence), إنّ, a subordinator (إذا),
 * a negation or قد. A verb is followed by its subject or object (a noun or a name), a prepositional
 * or complete adverbial phrase (قال له), or a second verb (كان يقول), أن, إنّ, a demonstrative (فعل
 * ذلك). A noun is followed by an adjective (agreement, the most common), another noun (iḍāfa: كتاب
 * الله), a prepositional phrase, a verb (the subject of a nominal sentence), a relative (الكتاب
 * الذي), a conjunction. A preposition governs a noun, a name, a demonstrative (في هذا) or a relative
 * (مما, من الذين); never a verb or another particle. A pronoun is followed by its predicate; a
 * demonstrative mostly by the noun it points at (هذا الكتاب); إنّ by its noun; a relative, a
 * subordinator and a negation mostly by a verb; قد and سوف by a verb only.
 */
export const arabicSyntax: Model<ArabicClass> = {
  start: {
    verb: 30,
    noun: 12,
    name: 4,
    preposition: 12,
    conjunction: 5,
    inna: 7,
    pronoun: 6,
    negation: 5,
    preverb: 5,
    subordinator: 7,
    demonstrative: 4,
    relative: 2,
    phrase: 1,
  },
  next: {
    verb: {
      noun: 28,
      name: 12,
      preposition: 18,
      phrase: 12,
      adjective: 3,
      pronoun: 2,
      conjunction: 4,
      subordinator: 6,
      inna: 4,
      verb: 5,
      demonstrative: 4,
      relative: 2,
    },
    noun: {
      adjective: 25,
      noun: 18,
      name: 4,
      preposition: 15,
      phrase: 5,
      verb: 8,
      conjunction: 6,
      relative: 5,
      subordinator: 4,
      demonstrative: 2,
      inna: 1,
      negation: 2,
      pronoun: 3,
      preverb: 2,
    },
    adjective: {
      adjective: 10,
      noun: 12, // a new phrase, or an adjective's own iḍāfa (كثير الكلام)
      preposition: 27,
      phrase: 8,
      conjunction: 14,
      verb: 8,
      relative: 6,
      subordinator: 5,
      negation: 2,
      pronoun: 2,
      inna: 2,
      name: 2,
      demonstrative: 2,
    },
    name: {
      name: 8,
      noun: 10,
      phrase: 16, // الله تعالى, رضي الله عنه
      verb: 10,
      preposition: 18,
      conjunction: 10,
      adjective: 5,
      relative: 6,
      subordinator: 5,
      inna: 2,
      pronoun: 3,
      negation: 2,
      preverb: 2,
      demonstrative: 3,
    },
    preposition: { noun: 68, name: 17, demonstrative: 10, relative: 3, adjective: 2 },
    phrase: {
      verb: 15,
      noun: 18,
      name: 8,
      preposition: 15,
      phrase: 8,
      conjunction: 10,
      subordinator: 6,
      inna: 4,
      relative: 4,
      negation: 3,
      pronoun: 2,
      preverb: 3,
      adjective: 2,
      demonstrative: 2,
    },
    pronoun: { verb: 35, noun: 20, adjective: 10, preposition: 15, phrase: 5, name: 5, negation: 5, preverb: 3, relative: 2 },
    demonstrative: { noun: 60, name: 5, relative: 8, inna: 5, preposition: 8, phrase: 5, adjective: 4, verb: 3, conjunction: 2 },
    relative: { verb: 65, preposition: 10, phrase: 5, negation: 8, pronoun: 5, noun: 4, preverb: 3 },
    inna: { noun: 50, name: 12, demonstrative: 8, preposition: 15, phrase: 10, adjective: 5 },
    conjunction: {
      verb: 30,
      noun: 20,
      name: 8,
      preposition: 14,
      pronoun: 6,
      negation: 5,
      preverb: 4,
      demonstrative: 4,
      inna: 3,
      subordinator: 3,
      adjective: 3,
    },
    subordinator: { verb: 60, negation: 10, noun: 10, name: 5, pronoun: 5, preposition: 4, preverb: 3, demonstrative: 3 },
    negation: { verb: 70, noun: 8, preposition: 8, adjective: 4, name: 3, phrase: 4, demonstrative: 3 },
    preverb: { verb: 100 },
  },
  end: ['noun', 'adjective', 'name', 'verb', 'phrase', 'demonstrative'],
};

/**
 * English. A sentence opens with a noun phrase (a determiner, or a content word: a name, a plural),
 * a pronoun, a preposition (In the ...) or a conjunction. A determiner is followed by its noun
 * phrase (an adjective or a noun: content words only). A preposition takes a noun phrase: a
 * determiner, a bare noun (of men, in time) or a pronoun (to them). A content word is followed by
 * another (adjective → noun, verb → adverb, compound nouns), a preposition, a determiner (a verb's
 * object: saw the), a conjunction, an auxiliary (the men were), now and then a pronoun (gave him).
 * A pronoun is followed by a verb or an auxiliary (he said, they were); an auxiliary by a verb or
 * adjective, a negation, a noun phrase, another auxiliary (has been); not and never by a verb, an
 * auxiliary (not be), a noun phrase or a preposition; a conjunction by a new clause or phrase.
 */
export const englishSyntax: Model<EnglishClass> = {
  start: { determiner: 30, pronoun: 25, content: 22, preposition: 13, conjunction: 10 },
  next: {
    determiner: { content: 100 },
    content: { content: 31, preposition: 28, determiner: 12, conjunction: 14, auxiliary: 10, pronoun: 5 },
    preposition: { determiner: 55, content: 33, pronoun: 12 },
    pronoun: { content: 43, auxiliary: 32, preposition: 10, determiner: 8, conjunction: 7 },
    auxiliary: { content: 50, negation: 14, determiner: 14, preposition: 10, auxiliary: 7, pronoun: 5 },
    negation: { content: 60, auxiliary: 12, determiner: 14, preposition: 14 },
    conjunction: { determiner: 30, pronoun: 25, content: 30, preposition: 10, negation: 5 },
  },
  end: ['content', 'pronoun'],
};

/** A model made ready to draw from: cumulative weights per row. */
export interface Chain<C extends string> {
  draw(previous: C | undefined, last: boolean, random: () => number): C;
}

type Row<C> = { classes: C[]; cumulative: number[] };

function row<C extends string>(weights: Partial<Record<C, number>>, keep: (c: C) => boolean): Row<C> {
  const classes = (Object.keys(weights) as C[]).filter((c) => keep(c) && weights[c]! > 0);
  const cumulative: number[] = [];
  let sum = 0;
  for (const c of classes) cumulative.push((sum += weights[c]!));
  if (classes.length === 0) throw new Error('a row of the syntax model with no class to draw');
  return { classes, cumulative: cumulative.map((x) => x / sum) };
}

const fromRow = <C>({ classes, cumulative }: Row<C>, u: number): C => {
  let i = 0;
  while (i < classes.length - 1 && cumulative[i]! <= u) i++;
  return classes[i]!;
};

export function chainOf<C extends string>(model: Model<C>): Chain<C> {
  const any = () => true;
  const ending = (c: C) => model.end.includes(c);
  const start = [row(model.start, any), row(model.start, ending)] as const;
  const next = new Map<C, readonly [Row<C>, Row<C>]>(
    (Object.entries(model.next) as [C, Partial<Record<C, number>>][]).map(([c, weights]) => [c, [row(weights, any), row(weights, ending)]]),
  );
  return {
    draw(previous, last, random) {
      const rows = previous === undefined ? start : next.get(previous)!;
      return fromRow(rows[last ? 1 : 0], random());
    },
  };
}
