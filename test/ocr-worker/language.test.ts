import { describe, expect, it } from 'vitest';
import { modelFor, otherScriptModel } from '../../ocr-worker/text/language.ts';

describe('the job language picks the model', () => {
  it.each([
    ['ar', 'ara'], ['AR', 'ara'], ['ar-EG', 'ara'], ['ar_SA', 'ara'],
    ['fa', 'fas'], ['fa-IR', 'fas'], ['ur', 'urd'], ['ur-PK', 'urd'],
    ['en', 'eng'], ['en-GB', 'eng'],
    ['ps', 'ara'], ['ckb', 'ara'],
    ['fr', 'eng'], ['de-CH', 'eng'], ['', 'eng'], ['something', 'eng'],
  ])('%s → %s', (language, model) => {
    expect(modelFor(language)).toBe(model);
  });

  it('reads the other script with the other script’s model', () => {
    expect(otherScriptModel('ara')).toBe('eng');
    expect(otherScriptModel('fas')).toBe('eng');
    expect(otherScriptModel('eng')).toBe('ara');
  });
});
