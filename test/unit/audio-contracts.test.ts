import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { audioContracts } from '../../functions/audio-api/contract.ts';
import { DomainError } from '../../lib/errors.ts';

/** The audio queries and bodies as their contracts parse them before the handlers run (docs/SPEC.md 4.2). */
const c = audioContracts;
const url = (query: Record<string, string>) => v.safeParse(c['GET /audio/{bookId}/lines/{lineId}/{field}/url'].query, query);
const all = (query: Record<string, string>) => v.parse(c['GET /audio/{bookId}/all'].query, query);
const thrown = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('did not throw');
};

describe('audio query parameters', () => {
  it('reads stream and url voices as one of the six ids, alloy by default, the case counting', () => {
    expect(url({}).output).toEqual({ voice: 'alloy', expires: 3600 });
    expect(url({ voice: '' }).output).toMatchObject({ voice: 'alloy' });
    expect(url({ voice: 'echo' }).output).toMatchObject({ voice: 'echo' });
    for (const voice of ['robot', 'NOVA']) expect(url({ voice }).issues?.[0].message).toBe('Invalid field or voice');
    expect(v.parse(c['GET /audio/{bookId}/lines/{lineId}/{field}/stream'].query, {})).toEqual({ voice: 'alloy' });
  });

  it('reads expires as whole seconds, 1 s to 7 days, 3600 otherwise', () => {
    const expires = (value: string) => v.parse(c['GET /audio/{bookId}/lines/{lineId}/{field}/url'].query, { expires: value }).expires;
    expect(expires('120')).toBe(120);
    expect(expires(' 60 ')).toBe(60);
    expect(expires('0')).toBe(1);
    expect(expires('999999999')).toBe(7 * 24 * 3600);
    expect(expires('9'.repeat(400))).toBe(7 * 24 * 3600);
    for (const value of ['', '-5', '1.5', 'soon']) expect(expires(value)).toBe(3600);
  });

  it('echoes the lines-with-audio voice as sent, alloy when none', () => {
    const query = c['GET /audio/{bookId}/lines-with-audio'].query;
    expect(v.parse(query, {})).toEqual({ voice: 'alloy' });
    expect(v.parse(query, { voice: 'NOVA' })).toEqual({ voice: 'NOVA' });
  });

  it('reads /all fields comma-separated in any case, all three by default, and the voice in lower case', () => {
    expect(all({})).toEqual({ fields: ['arabic', 'english', 'commentary'], voice: undefined });
    expect(all({ fields: ' ', voice: '' })).toEqual({ fields: ['arabic', 'english', 'commentary'], voice: undefined });
    expect(all({ fields: 'ARABIC, english,arabic', voice: 'Nova' })).toEqual({ fields: ['arabic', 'english'], voice: 'nova' });
  });

  it('refuses /all fields that are none of the three with the 400 listing them', () => {
    const error = thrown(() => all({ fields: 'arabic,latin' }));
    expect(error).toBeInstanceOf(DomainError);
    expect({ kind: error.kind, message: error.message, fields: error.fields }).toEqual({
      kind: 'bad_request',
      message: 'Invalid fields',
      fields: { invalidFields: ['latin'], availableFields: ['arabic', 'english', 'commentary'] },
    });
  });

  it('reads the delete voice as optional', () => {
    const query = c['DELETE /audio/{bookId}/lines/{lineId}/{field}'].query;
    expect(v.parse(query, {})).toEqual({ voice: undefined });
    expect(v.parse(query, { voice: '' })).toEqual({ voice: undefined });
    expect(v.parse(query, { voice: 'onyx' })).toEqual({ voice: 'onyx' });
  });
});

describe('the whole-book job body', () => {
  it('takes any voice, and alloy for one that is missing, empty or not text (docs/SPEC.md 4.2: not validated)', () => {
    const body = (value: Record<string, unknown>) => v.parse(c['POST /audio/{bookId}/generate'].body.schema, value);
    expect(body({ voice: 'robot' })).toEqual({ voice: 'robot' });
    for (const voice of [undefined, '', null, 5, ['nova']]) expect(body({ voice })).toEqual({ voice: 'alloy' });
  });
});
