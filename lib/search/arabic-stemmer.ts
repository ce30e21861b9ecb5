/**
 * Arabic light stemming: Light10 (Larkey, Ballesteros and Connell, "Light Stemming for Arabic
 * Information Retrieval", 2007) exactly as Apache Lucene implements it in
 * org.apache.lucene.analysis.ar.ArabicStemmer (lucene/analysis/common/src/java/org/apache/lucene/analysis/ar/ArabicStemmer.java):
 * the same affix lists in the same order and the same length rules, so our terms are the ones an
 * OpenSearch/Elasticsearch `arabic` analyzer would index.
 *
 * It expects a normalized term (analysis.ts): ة is already ه there, so the suffixes ة and ية never
 * match in practice; they stay because Lucene lists them.
 */

/** Tried in this order; the first that fits is stripped, and only one. */
const prefixes = ['ال', 'وال', 'بال', 'كال', 'فال', 'لل', 'و'] as const;

/** One pass in this order; each that fits (on what is left) is stripped, so ها then ه can both go. */
const suffixes = ['ها', 'ان', 'ات', 'ون', 'ين', 'يه', 'ية', 'ه', 'ة', 'ي'] as const;

/** A stem keeps at least two letters; و- (a one-letter prefix) needs a word of four or more, as in Lucene. */
function prefixFits(word: string, prefix: string): boolean {
  if (prefix.length === 1 && word.length < 4) return false;
  return word.length >= prefix.length + 2 && word.startsWith(prefix);
}

function suffixFits(word: string, suffix: string): boolean {
  return word.length >= suffix.length + 2 && word.endsWith(suffix);
}

/** The Light10 stem of a normalized Arabic term (never longer than the term). */
export function stemArabic(term: string): string {
  let word = term;
  for (const prefix of prefixes) {
    if (prefixFits(word, prefix)) {
      word = word.slice(prefix.length);
      break;
    }
  }
  for (const suffix of suffixes) {
    if (suffixFits(word, suffix)) word = word.slice(0, -suffix.length);
  }
  return word;
}
