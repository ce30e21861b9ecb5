import type { OcrModel } from '../contract.ts';
import { modelScript } from '../engine/models.ts';

/**
 * The job's `language` (a BCP 47 tag, case-insensitive; its subtags ignored) → the model that reads
 * its pages first. Arabic, Persian and Urdu have their own models; other languages written in the
 * Arabic script (Pashto, Sindhi, Kurdish Sorani, Uyghur, Kashmiri, Ottoman Turkish...) share the most of
 * their letters with Persian and Arabic, and go to `ara`, the model measured on books here; every
 * other language goes to `eng`, whose Latin letters read most European languages' text (accents
 * aside). A page in the other script is read again with the other script's model (readPage).
 */
const modelOfLanguage: Record<string, OcrModel> = {
  ar: 'ara', fa: 'fas', ur: 'urd', en: 'eng',
  ps: 'ara', sd: 'ara', ckb: 'ara', ug: 'ara', ks: 'ara', ota: 'ara', bal: 'ara', prs: 'fas', pes: 'fas',
};

export const fallbackModel: OcrModel = 'eng';

export function modelFor(language: string): OcrModel {
  const primary = language.trim().toLowerCase().split(/[-_]/u)[0] ?? '';
  return modelOfLanguage[primary] ?? fallbackModel;
}

/** The model of the other script: what a page gets when the job's model reads it badly. */
export function otherScriptModel(model: OcrModel): OcrModel {
  return modelScript[model] === 'arabic' ? 'eng' : 'ara';
}
