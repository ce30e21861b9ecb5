import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { editAs } from '../support/bodies.ts';
import { dynamoDocumentClient } from '../../lib/adapters/aws/clients.ts';
import { oneTransaction } from '../../lib/adapters/dynamo/book-text-edits.ts';
import { keys } from '../../lib/adapters/dynamo/keys.ts';
import { dynamoOcrStores } from '../../lib/adapters/dynamo/ocr-stores.ts';
import type { Db } from '../../lib/adapters/dynamo/table.ts';
import type { User } from '../../lib/auth/users.ts';
import { newJobId, newObjectId } from '../../lib/ids.ts';
import { newBookText, textKey, type FileRecord } from '../../lib/ocr/book-text.ts';
import { sweepHalfSavedWrites, writerGoneAfterMs } from '../../lib/ocr/loose-texts.ts';
import { newPage } from '../../lib/ocr/pages/page.ts';
import { writeWithText } from '../../lib/ocr/text-storage.ts';
import { indexWrites } from '../../lib/search/read-after-write.ts';
import { FakeObjects } from '../support/fakes/objects.ts';
import { FakeSearchEngine } from '../support/fakes/search-engine.ts';
import { ensureTestTable } from '../support/stores.ts';

/**
 * Issue 29, item 6, through the SDK against DynamoDB Local: a PATCH that answers an error has changed
 * nothing, whether its pages fit in the record's transaction or are staged, and whichever call
 * fails; what a stopped writer leaves is undone or removed by the sweeper. The table is this file's
 * own, so the sweeper's lists hold only its edits.
 */
const tableName = `edits-${randomUUID()}`;
const db: Db = { client: dynamoDocumentClient(), tableName };
const owner = { userId: newObjectId(), username: 'owner', email: 'owner@example.com', role: 'member' } as User;
const uploads = new FakeObjects();
const oldText = 'ا'.repeat(12_000);

/** A document client whose calls fail when `fails(command, nth call of that command)` says so (the low-level names: PutItemCommand, ...). */
function failing(fails: (command: string, n: number) => boolean): Db {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  const calls = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      const n = (calls.get(command) ?? 0) + 1;
      calls.set(command, n);
      if (fails(command, n)) throw new Error(`injected: ${command} #${n} failed`);
      return next(args);
    },
    { step: 'initialize', name: 'injectFailure' },
  );
  return { client, tableName };
}

const depsOver = (over: Db) => {
  const stores = dynamoOcrStores(over);
  return { ...stores, uploads, index: indexWrites({ engine: new FakeSearchEngine(), ...stores }), now: () => new Date() };
};

/** A completed book of `pages` pages with a long text stored. */
async function aBook(pages: number) {
  const at = new Date(Date.now() - 60_000).toISOString();
  const file: FileRecord = {
    fileId: newObjectId(), userId: owner.userId, fileName: 'book.pdf', author: 'an-Nawawi', fileType: 'application/pdf', fileSize: 1, tags: [], categories: [], visibility: 'private', storageKey: 'ocr/x.pdf', createdAt: at, updatedAt: at,
  };
  const book = newBookText({ bookTextId: newObjectId(), jobId: newJobId(), fileId: file.fileId, userId: owner.userId, fileName: file.fileName, status: 'completed', pageCount: pages, tags: ['fiqh'] }, at);
  const stores = dynamoOcrStores(db);
  expect(await stores.ocrJobs.create(book, file)).toBe(true);
  await stores.pages.putPages(Array.from({ length: pages }, (_, i) => newPage(book.bookTextId, i + 1, { text: `page ${i + 1}` }, at)));
  await editAs(depsOver(db), owner, book.bookTextId, { extractedText: oldText });
  return book.bookTextId;
}

/**
 * Every item of the book's partition as stored (raw: staged pages, locks and all), its File, the
 * sweeper's list of open edits and the book's text objects. Less `rev`: an undo raises it, so the
 * index takes the pages put back over any read of the edit's (docs/architecture.md, "Read after write").
 */
async function everything(bookTextId: string) {
  const out = await db.client.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.bookTextPartition(bookTextId) }, ConsistentRead: true }));
  const record = (await dynamoOcrStores(db).bookTexts.get(bookTextId))!;
  const file = await dynamoOcrStores(db).bookTexts.getFile(record.fileId);
  const openEdits = await db.client.send(new QueryCommand({ TableName: tableName, IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :pk', ExpressionAttributeValues: { ':pk': keys.openPageEditsIndex } }));
  const items = out.Items?.map(({ rev: _rev, ...item }) => item);
  return { items, file, openEdits: openEdits.Items, objects: uploads.keys(`ocr-results/${record.jobId}/`) };
}

const bigEdit = (marker: string) => ({
  tags: marker,
  author: marker,
  extractedText: marker.repeat(11_000),
  pages: Array.from({ length: oneTransaction.pages + 26 }, (_, i) => ({ pageNumber: i + 1, text: `${marker} ${i + 1}` })),
});
const smallEdit = { tags: 'changed', author: 'Someone', visibility: 'public', extractedText: 'ب'.repeat(11_000), pages: { 1: { text: 'ONE' }, 4: { text: 'FOUR' } } };
const later = () => new Date(Date.now() + writerGoneAfterMs + 60_000);

beforeAll(async () => {
  await ensureTestTable(tableName);
});

describe('an edit that fails has changed nothing', () => {
  it.each([
    ['its one transaction', smallEdit, (c: string) => c === 'TransactWriteItemsCommand'],
    ['the note of its new text', smallEdit, (c: string) => c === 'PutItemCommand'],
    ['a staged page', bigEdit('x'), (c: string, n: number) => c === 'PutItemCommand' && n === 40],
    ['the staged edit’s commit', bigEdit('x'), (c: string, n: number) => c === 'TransactWriteItemsCommand' && n === 2],
    ['reading the pages it replaces', bigEdit('x'), (c: string) => c === 'BatchGetItemCommand'],
  ])('fails at %s: the error is answered and the book reads back unchanged', async (_, body, fails) => {
    const bookTextId = await aBook(oneTransaction.pages + 20);
    const before = await everything(bookTextId);
    await expect(editAs(depsOver(failing(fails)), owner, bookTextId, body)).rejects.toThrow(/injected/);
    expect(await everything(bookTextId)).toEqual(before);
  });

  it('leaves a staged edit whose undo failed too for the sweeper, which undoes it', async () => {
    const bookTextId = await aBook(oneTransaction.pages + 20);
    const before = await everything(bookTextId);
    // The table goes away at the commit and stays away: neither commit nor undo is written.
    let down = false;
    const over = failing((c, n) => (down ||= c === 'TransactWriteItemsCommand' && n === 2));
    await expect(editAs(depsOver(over), owner, bookTextId, bigEdit('y'))).rejects.toThrow(/injected/);
    const halfSaved = await everything(bookTextId);
    expect(halfSaved.openEdits).toHaveLength(1);
    expect(halfSaved.items).not.toEqual(before.items);
    // A writer may still be at work: left alone.
    expect(await sweepHalfSavedWrites(depsOver(db), new Date())).toMatchObject({ editsUndone: 0 });
    expect(await sweepHalfSavedWrites(depsOver(db), later())).toMatchObject({ editsUndone: 1 });
    expect(await everything(bookTextId)).toEqual(before);
  });
});

describe('an edit that succeeds', () => {
  it('writes a staged edit whole: every page, the fields, the text, and nothing of the staging left', async () => {
    const bookTextId = await aBook(oneTransaction.pages + 20);
    await editAs(depsOver(db), owner, bookTextId, bigEdit('z'));
    const pages = await dynamoOcrStores(db).pages.pages(bookTextId);
    expect(pages.map((p) => p.text)).toEqual(Array.from({ length: oneTransaction.pages + 26 }, (_, i) => `z ${i + 1}`));
    const { items, openEdits, objects, file } = await everything(bookTextId);
    expect(items!.filter((item) => 'staged' in item || 'pageEdit' in item)).toEqual([]);
    expect(openEdits).toEqual([]);
    expect(file?.author).toBe('z');
    const record = (await dynamoOcrStores(db).bookTexts.get(bookTextId))!;
    expect(record.tags).toEqual(['z']);
    expect(objects).toEqual([textKey(record.jobId, record.storedText!.version)]);
  });

  it('of two staged edits racing, leaves the pages of one whole, never a mix', async () => {
    const bookTextId = await aBook(oneTransaction.pages + 20);
    const results = await Promise.allSettled(['p', 'q'].map((marker) => editAs(depsOver(db), owner, bookTextId, bigEdit(marker))));
    expect(results.some((r) => r.status === 'fulfilled')).toBe(true);
    const texts = (await dynamoOcrStores(db).pages.pages(bookTextId)).map((p) => p.text);
    const winner = texts[0]!.split(' ')[0]!;
    expect(texts).toEqual(Array.from({ length: oneTransaction.pages + 26 }, (_, i) => `${winner} ${i + 1}`));
    expect((await dynamoOcrStores(db).bookTexts.get(bookTextId))!.tags).toEqual([winner]);
    for (const r of results) if (r.status === 'rejected') expect(String(r.reason)).toMatch(/being saved/);
  });
});

describe('text objects no record names', () => {
  it('are noted in the record’s own write and removed by the sweeper: a replaced text whose removal failed, from PATCH and from the final result', async () => {
    const bookTextId = await aBook(2);
    const record = (await dynamoOcrStores(db).bookTexts.get(bookTextId))!;
    const first = textKey(record.jobId, record.storedText!.version);
    const deleteFails = Object.assign(Object.create(uploads) as FakeObjects, { delete: () => Promise.reject(new Error('storage unavailable')) });
    const stores = dynamoOcrStores(db);
    await editAs({ ...depsOver(db), uploads: deleteFails }, owner, bookTextId, { extractedText: 'ب'.repeat(11_000) });
    const second = textKey(record.jobId, (await stores.bookTexts.get(bookTextId))!.storedText!.version);
    // The final result's path (POST /ocr/result) writes its text the same way.
    const current = (await stores.bookTexts.get(bookTextId))!;
    await writeWithText({ uploads: deleteFails, bookTexts: stores.bookTexts, now: () => new Date() }, record.jobId, 'ت'.repeat(11_000), (text) =>
      stores.ocrJobs.applyResult(current, { at: new Date().toISOString(), text }),
    );
    const named = textKey(record.jobId, (await stores.bookTexts.get(bookTextId))!.storedText!.version);
    expect(uploads.keys(`ocr-results/${record.jobId}/`)).toEqual([first, second, named].sort());
    expect(await sweepHalfSavedWrites(depsOver(db), later())).toEqual({ editsUndone: 0, looseTextsRemoved: 2 });
    expect(uploads.keys(`ocr-results/${record.jobId}/`)).toEqual([named]);
    expect(uploads.text(named)).toBe('ت'.repeat(11_000));
    // Their notes are gone: the next sweep has nothing to do.
    expect(await sweepHalfSavedWrites(depsOver(db), later())).toEqual({ editsUndone: 0, looseTextsRemoved: 0 });
  });

  it('a new text stored before its record write failed, and whose removal failed too', async () => {
    const bookTextId = await aBook(2);
    const before = await everything(bookTextId);
    const deleteFails = Object.assign(Object.create(uploads) as FakeObjects, { delete: () => Promise.reject(new Error('storage unavailable')) });
    await expect(
      editAs({ ...depsOver(failing((c) => c === 'TransactWriteItemsCommand')), uploads: deleteFails }, owner, bookTextId, { extractedText: 'ث'.repeat(11_000) }),
    ).rejects.toThrow(/injected/);
    expect((await everything(bookTextId)).objects).toHaveLength(2);
    expect(await sweepHalfSavedWrites(depsOver(db), later())).toEqual({ editsUndone: 0, looseTextsRemoved: 1 });
    expect(await everything(bookTextId)).toEqual(before);
  });
});
