import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { audioContracts } from '../../functions/audio-api/contract.ts';
import type { AudioDeps } from '../../lib/audio/deps.ts';
import { allAudio, linesWithAudio } from '../../lib/audio/listing.ts';
import type { Book, Line } from '../../lib/books/book.ts';
import { newObjectId } from '../../lib/ids.ts';

/** The queries as the routes' contracts parse them before the handlers run. */
const linesQuery = (query: Record<string, string>) => v.parse(audioContracts['GET /audio/{bookId}/lines-with-audio'].query, query);
const allQuery = (query: Record<string, string>) => v.parse(audioContracts['GET /audio/{bookId}/all'].query, query);

/** The listings' rules on in-memory fakes: no store is asked about a voice that is none of the six. */
const bookId = newObjectId();
const book: Book = {
  bookId, title: 'Forty Hadith', author: 'an-Nawawi', ownerId: newObjectId(), contributors: [], visibility: 'public', accessModel: 'free',
  requiredSubscriptionTier: null, metadata: {}, lineCount: 1, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
};
const line: Line = { bookId, lineId: newObjectId(), arabic: 'الدين النصيحة', english: 'Religion is sincerity', commentary: '', rootwords: '' };

function fakes() {
  const asked: (string | undefined)[] = [];
  const deps = {
    books: { get: async () => book, lines: async () => [line] },
    audioFiles: { ofBook: async (_: string, voice?: string) => (asked.push(voice), []) },
    audio: { presignGetAll: async (_: string, keys: readonly string[]) => keys.map((k) => `https://media.example/${k}`) },
  } as unknown as AudioDeps;
  return { deps, asked };
}

describe('audio listings', () => {
  it('lists no audio for a voice that is none of the six, without asking the store', async () => {
    const { deps, asked } = fakes();
    const voice = 'x'.repeat(3000);
    const listed = await linesWithAudio(deps, { kind: 'anonymous' }, bookId, linesQuery({ voice }));
    expect(listed.lines[0]!.fields.arabic).toEqual({ text: 'الدين النصيحة', hasAudio: false, audioUrl: null });
    expect(await allAudio(deps, { kind: 'anonymous' }, bookId, allQuery({ voice }))).toMatchObject({ totalFiles: 0, lines: [] });
    expect(asked).toEqual([]);
  });

  it('asks for one voice, in lower case, or for every voice', async () => {
    const { deps, asked } = fakes();
    await linesWithAudio(deps, { kind: 'anonymous' }, bookId, linesQuery({ voice: 'NOVA' }));
    await allAudio(deps, { kind: 'anonymous' }, bookId, allQuery({}));
    expect(asked).toEqual(['nova', undefined]);
  });
});
