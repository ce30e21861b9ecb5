import { beforeEach, describe, expect, it, vi } from 'vitest';
import { editAs } from '../../support/bodies.ts';
import type { User } from '../../../lib/auth/users.ts';
import { bookFieldLimits, languageTooLong, textKey, tooManyValues, valueTooLong, type BookText } from '../../../lib/ocr/book-text.ts';
import { bookUpdated } from '../../../lib/ocr/pages/edit.ts';
import { newPage, pageIdOf } from '../../../lib/ocr/pages/page.ts';
import { sweepHalfSavedWrites, writerGoneAfterMs } from '../../../lib/ocr/loose-texts.ts';
import { fakeWorld, type FakeWorld } from '../../support/fakes/index.ts';
import { storedJob, storedUser } from './fixtures.ts';

/** PATCH /ocr/books/:bookTextId (docs/SPEC.md 4.1; docs/decisions.md "`PATCH /ocr/books/:bookTextId`", "Maxima and caps"). */
let world: FakeWorld;
let owner: User;
let book: BookText;
const earlier = '2026-03-01T00:00:00.000Z';

beforeEach(async () => {
  world = fakeWorld({ now: '2026-03-15T12:00:00.000Z' });
  owner = await storedUser(world);
  ({ book } = await storedJob(world, owner.userId, { status: 'completed', pageCount: 3, tags: ['fiqh'] }));
  await world.ocr.putPages([
    newPage(book.bookTextId, 1, { text: 'one', storageKey: `ocr-pages/${book.jobId}/1.png`, isAIGenerated: false }, earlier),
    newPage(book.bookTextId, 2, { text: 'two', isAIGenerated: false }, earlier),
    newPage(book.bookTextId, 3, { text: 'three' }, earlier),
  ]);
});

const edit = (body: Record<string, unknown>, user: User = owner) => editAs(world.editDeps(), user, book.bookTextId, body);
const pages = async () => (await world.ocr.pages(book.bookTextId)).map(({ pageNumber, text, storageKey, isAIGenerated, updatedAt }) => ({ pageNumber, text, storageKey, isAIGenerated, updatedAt }));
const stored = async () => (await world.ocr.get(book.bookTextId))!;
const now = '2026-03-15T12:00:00.000Z';

describe('page edits', () => {
  it('as an array, replaces each listed page whole (absent fields take the defaults) and leaves the others', async () => {
    await edit({ pages: [{ pageNumber: 2, text: 'TWO' }, { pageNumber: 5, storageKey: 'elsewhere.png' }] });
    expect(await pages()).toEqual([
      { pageNumber: 1, text: 'one', storageKey: `ocr-pages/${book.jobId}/1.png`, isAIGenerated: false, updatedAt: earlier },
      { pageNumber: 2, text: 'TWO', storageKey: null, isAIGenerated: true, updatedAt: now },
      { pageNumber: 3, text: 'three', storageKey: null, isAIGenerated: true, updatedAt: earlier },
      { pageNumber: 5, text: '', storageKey: 'elsewhere.png', isAIGenerated: true, updatedAt: now },
    ]);
  });

  it('as an object keyed by page number, changes only the fields given; a missing page is created with the defaults', async () => {
    await edit({ pages: { 1: { text: 'ONE' }, '2': { isAIGenerated: true }, 7: { storageKey: null } } });
    expect(await pages()).toEqual([
      { pageNumber: 1, text: 'ONE', storageKey: `ocr-pages/${book.jobId}/1.png`, isAIGenerated: false, updatedAt: now },
      { pageNumber: 2, text: 'two', storageKey: null, isAIGenerated: true, updatedAt: now },
      { pageNumber: 3, text: 'three', storageKey: null, isAIGenerated: true, updatedAt: earlier },
      { pageNumber: 7, text: '', storageKey: null, isAIGenerated: true, updatedAt: now },
    ]);
    expect((await world.ocr.pages(book.bookTextId)).find((p) => p.pageNumber === 7)?.pageId).toBe(pageIdOf(book.bookTextId, 7));
  });

  it('takes the last entry for a page named twice, and leaves pageCount alone', async () => {
    await edit({ pages: [{ pageNumber: 3, text: 'first' }, { pageNumber: 3, text: 'last' }, { pageNumber: 40 }] });
    expect((await pages()).find((p) => p.pageNumber === 3)?.text).toBe('last');
    expect((await stored()).pageCount).toBe(3);
  });

  it.each([
    ['2,001 pages as an array', { pages: Array.from({ length: 2_001 }, (_, i) => ({ pageNumber: i })) }, 'pages may list at most 2000 pages in one request'],
    ['2,001 pages as an object', { pages: Object.fromEntries(Array.from({ length: 2_001 }, (_, i) => [i, { text: 'x' }])) }, 'pages may list at most 2000 pages in one request'],
    ['page 100,000', { pages: [{ pageNumber: 100_000 }] }, 'pages[0].pageNumber must be at most 99999'],
    ['page key 100,000', { pages: { 100000: { text: 'x' } } }, 'pages key 100000 must be at most 99999'],
    ['60,001 characters', { pages: [{ pageNumber: 1, text: 'x'.repeat(60_001) }] }, 'pages[0].text is longer than 60000 characters'],
  ])('refuses %s with a 400, writing nothing', async (_, body, message) => {
    await expect(edit({ ...body, tags: 'changed' })).rejects.toMatchObject({ kind: 'bad_request', message });
    expect((await pages()).map((p) => p.updatedAt)).toEqual([earlier, earlier, earlier]);
    expect((await stored()).tags).toEqual(['fiqh']);
  });

  it('accepts the caps themselves: 2,000 pages, page 99,999, 60,000 characters', async () => {
    await edit({ pages: Array.from({ length: 2_000 }, (_, i) => ({ pageNumber: i })) });
    await edit({ pages: [{ pageNumber: 99_999, text: 'x'.repeat(60_000) }] });
    expect(await world.ocr.pageWindow(book.bookTextId, 2_000, 5)).toMatchObject({ total: 2_001, pages: [{ pageNumber: 99_999 }] });
  });

  it.each([
    [{ pages: [{ pageNumber: -1 }] }, 'pages[0].pageNumber must be a whole number, 0 or more'],
    [{ pages: [{ pageNumber: 1.5 }] }, 'pages[0].pageNumber must be a whole number, 0 or more'],
    [{ pages: { one: {} } }, 'pages key one must be a whole number, 0 or more'],
    [{ pages: [{ pageNumber: 1, text: 5 }] }, 'pages[0].text must be a string'],
    [{ pages: [{ pageNumber: 1, isAIGenerated: 'yes' }] }, 'pages[0].isAIGenerated must be a boolean'],
    [{ pages: 'all' }, 'pages must be an array or an object keyed by page number'],
    [{ pages: null }, 'pages must be an array or an object keyed by page number'],
    // An item that is not an object has no page number; a keyed page's fields must be an object (not an array).
    [{ pages: [5] }, 'pages[0].pageNumber must be a whole number, 0 or more'],
    [{ pages: [{ pageNumber: 1 }, []] }, 'pages[1].pageNumber must be a whole number, 0 or more'],
    [{ pages: { 2: [] } }, 'pages.2 must be an object'],
    [{ pages: { 2: { storageKey: 5 } } }, 'pages.2.storageKey must be a string or null'],
    // The text's type is checked before the names, as the spec's order has it.
    [{ fileName: ' ', extractedText: 5 }, 'extractedText must be a string'],
  ])('answers a malformed page with the validation 500: %j', async (body, message) => {
    await expect(edit(body)).rejects.toMatchObject({ kind: 'internal', message });
    expect((await pages()).map((p) => p.updatedAt)).toEqual([earlier, earlier, earlier]);
  });
});

describe('book fields', () => {
  it('changes only what is sent, and answers the book as it now is', async () => {
    const answer = await edit({ fileName: '  New name.pdf ', author: 'Ibn Kathir', language: 'en' });
    expect(answer).toMatchObject({ success: true, message: bookUpdated, book: { fileName: 'New name.pdf', author: 'Ibn Kathir', language: 'en', visibility: 'private', tags: ['fiqh'], pageCount: 3, updatedAt: now } });
    expect(await stored()).toMatchObject({ fileName: 'New name.pdf', language: 'en', tags: ['fiqh'], categories: [] });
    expect(await world.ocr.getFile(book.fileId)).toMatchObject({ fileName: 'New name.pdf', author: 'Ibn Kathir' });
  });

  it('takes visibility only as public or private; anything else leaves it', async () => {
    await edit({ visibility: 'public' });
    expect((await stored()).visibility).toBe('public');
    for (const visibility of ['PUBLIC', 'unlisted', 1, null]) {
      expect((await edit({ visibility })).book.visibility).toBe('public');
      expect((await stored()).visibility).toBe('public');
    }
    await edit({ visibility: 'private' });
    expect((await stored()).visibility).toBe('private');
  });

  it('takes tags and categories as an array or a comma-separated string (trimmed, empties dropped)', async () => {
    await edit({ tags: ' hadith, , sira ,', categories: ['history', ' law '] });
    expect(await stored()).toMatchObject({ tags: ['hadith', 'sira'], categories: ['history', 'law'] });
    await edit({ tags: [] });
    expect((await stored()).tags).toEqual([]);
    await expect(edit({ tags: [1, 2] })).rejects.toMatchObject({ kind: 'internal', message: 'tags must be an array of strings or a comma-separated string' });
    await expect(edit({ categories: { a: 1 } })).rejects.toMatchObject({ kind: 'internal' });
  });

  it('refuses more tags or categories than a book carries, a longer one, or a longer language, changing nothing', async () => {
    const { listValues, listValueChars, languageChars } = bookFieldLimits;
    const before = await stored();
    const many = Array.from({ length: listValues + 1 }, (_, i) => `t${i}`);
    await expect(edit({ tags: many })).rejects.toMatchObject({ kind: 'internal', message: tooManyValues('tags') });
    await expect(edit({ categories: many.join(',') })).rejects.toMatchObject({ kind: 'internal', message: tooManyValues('categories') });
    await expect(edit({ tags: ['x'.repeat(listValueChars + 1)] })).rejects.toMatchObject({ kind: 'internal', message: valueTooLong('tags') });
    await expect(edit({ language: 'x'.repeat(languageChars + 1) })).rejects.toMatchObject({ kind: 'internal', message: languageTooLong });
    expect(await stored()).toEqual(before);
    // At the caps exactly, and with characters past the BMP counted once each.
    await edit({ tags: many.slice(1), categories: ['𝔸'.repeat(listValueChars)], language: 'x'.repeat(languageChars) });
    expect(await stored()).toMatchObject({ tags: many.slice(1), categories: ['𝔸'.repeat(listValueChars)] });
  });

  it('refuses empty names with the validation 500', async () => {
    for (const name of ['fileName', 'author', 'language']) {
      await expect(edit({ [name]: '   ' })).rejects.toMatchObject({ kind: 'internal', message: `${name} must be a non-empty string` });
    }
  });

  it('stores a long extractedText with a preview, and a short one inline, removing the stored one', async () => {
    await edit({ extractedText: 'ن'.repeat(12_000) });
    const long = await stored();
    expect(long.extractedText).toHaveLength(1_000);
    expect(world.uploads.keys()).toEqual([textKey(book.jobId, long.storedText!.version)]);
    await edit({ extractedText: 'قصير' });
    expect(await stored()).toMatchObject({ extractedText: 'قصير' });
    expect(world.uploads.keys()).toEqual([]);
  });

  it('ignores an orphan’s author (there is no File to go to)', async () => {
    const { book: orphan } = await storedJob(world, owner.userId, {}, null);
    const answer = await editAs(world.editDeps(), owner, orphan.bookTextId, { author: 'Someone', fileName: 'Named' });
    expect(answer.book).toMatchObject({ author: null, fileName: 'Named' });
    expect((await world.ocr.get(orphan.bookTextId))?.fileName).toBe('Named');
  });
});

describe('who may edit', () => {
  it('lets the owner, editors and admins edit; refuses another member with 403, and an unknown book with 404', async () => {
    await expect(edit({ tags: 'x' }, await storedUser(world, 'member'))).rejects.toMatchObject({ kind: 'forbidden', message: 'Unauthorized to update this book' });
    await expect(edit({ tags: 'x' }, await storedUser(world, 'editor'))).resolves.toMatchObject({ success: true });
    await expect(edit({ tags: 'y' }, await storedUser(world, 'admin'))).resolves.toMatchObject({ success: true });
    await expect(editAs(world.editDeps(), owner, '0123456789abcdef01234567', {})).rejects.toMatchObject({ kind: 'not_found', message: 'Book not found' });
  });
});

/**
 * Issue 29, item 6: a PATCH that answers an error has changed nothing: not its pages, its fields, its
 * File nor its text; and a text object no record names (a removal that failed) is swept.
 */
describe('all or nothing', () => {
  const longText = (letter: string) => letter.repeat(12_000);
  const down = () => Promise.reject(new Error('storage unavailable'));
  /** Everything a PATCH may change, as stored. */
  const everything = async () => ({
    record: await stored(),
    file: await world.ocr.getFile(book.fileId),
    pages: await pages(),
    objects: world.uploads.keys(),
  });
  const afterSweep = () => new Date(Date.parse(now) + writerGoneAfterMs + 1);
  const sweep = () => sweepHalfSavedWrites({ ...world.ocr.ports(), uploads: world.uploads }, afterSweep());
  const body = { tags: 'changed', author: 'Someone else', visibility: 'public', extractedText: longText('ج'), pages: { 1: { text: 'ONE' }, 2: { text: 'TWO' }, 9: { text: 'NINE' } } };

  beforeEach(async () => {
    // A long text already stored, so an edit's replacement has one to remove.
    await edit({ extractedText: longText('ا') });
  });

  it.each([
    ['the note of the new text', () => vi.spyOn(world.ocr, 'noteLooseText').mockImplementation(down)],
    ['the put of the new text', () => vi.spyOn(world.uploads, 'put').mockImplementation(down)],
    [
      'a page write part way',
      () => {
        const write = world.ocr.updatePages.bind(world.ocr);
        vi.spyOn(world.ocr, 'updatePages').mockImplementation(async (id, changes, at) => {
          await write(id, changes.slice(0, 1), at);
          throw new Error('table unavailable');
        });
      },
    ],
    ['the record write', () => vi.spyOn(world.ocr, 'edit').mockImplementation(down)],
  ])('fails at %s: answers the error, and the book, its File, pages and texts are as before', async (_, fail) => {
    const before = await everything();
    fail();
    await expect(edit(body)).rejects.toThrow();
    expect(await everything()).toEqual(before);
    // A note may outlive a put that failed (it may have stored the object all the same): the sweep
    // clears it and changes nothing a reader sees.
    vi.restoreAllMocks();
    await sweep();
    expect(await everything()).toEqual(before);
    expect(world.ocr.looseTextNotes.size).toBe(0);
  });

  it('leaves a new text whose removal failed after a failed record write noted, and the sweeper removes it', async () => {
    const before = await everything();
    vi.spyOn(world.ocr, 'edit').mockImplementation(down);
    vi.spyOn(world.uploads, 'delete').mockImplementation(down);
    await expect(edit(body)).rejects.toThrow();
    const [stray] = world.uploads.keys().filter((key) => !before.objects.includes(key));
    expect(stray).toBeDefined();
    vi.mocked(world.uploads.delete).mockRestore();
    expect(await sweep()).toEqual({ editsUndone: 0, looseTextsRemoved: 1 });
    expect(await everything()).toEqual(before);
    expect(world.ocr.looseTextNotes.size).toBe(0);
  });

  it('notes a replaced text whose removal failed (the edit itself answered and saved), and the sweeper removes it, never the named one', async () => {
    const replaced = textKey(book.jobId, (await stored()).storedText!.version);
    vi.spyOn(world.uploads, 'delete').mockImplementation(down);
    await expect(edit(body)).resolves.toMatchObject({ success: true });
    const named = textKey(book.jobId, (await stored()).storedText!.version);
    expect(world.uploads.keys()).toEqual([replaced, named].sort());
    vi.mocked(world.uploads.delete).mockRestore();
    // Too young: a writer may still be at work.
    expect(await sweepHalfSavedWrites({ ...world.ocr.ports(), uploads: world.uploads }, new Date(now))).toEqual({ editsUndone: 0, looseTextsRemoved: 0 });
    expect(await sweep()).toEqual({ editsUndone: 0, looseTextsRemoved: 1 });
    expect(world.uploads.keys()).toEqual([named]);
    expect(world.uploads.text(named)).toBe(longText('ج'));
  });

  it('keeps an object its record names even when a note of it outlived its write', async () => {
    const named = (await stored()).storedText!.version;
    await world.ocr.noteLooseText({ jobId: book.jobId, version: named, at: earlier });
    expect(await sweep()).toEqual({ editsUndone: 0, looseTextsRemoved: 0 });
    expect(world.uploads.keys()).toEqual([textKey(book.jobId, named)]);
    expect(world.ocr.looseTextNotes.size).toBe(0);
  });
});
