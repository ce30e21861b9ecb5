import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../lib/adapters/aws/clients.ts';
import { dynamoBookStore } from '../../lib/adapters/dynamo/books.ts';
import { dynamoOcrStores } from '../../lib/adapters/dynamo/ocr-stores.ts';
import { ensureTable } from '../../lib/adapters/dynamo/ensure-table.ts';
import type { Db } from '../../lib/adapters/dynamo/table.ts';
import type { User } from '../../lib/auth/users.ts';
import { parseTierCatalogue } from '../../lib/billing/tiers.ts';
import { dynamoSubscriptionStore } from '../../lib/adapters/dynamo/subscriptions.ts';
import { newJobId, newObjectId } from '../../lib/ids.ts';
import { newBookText } from '../../lib/ocr/book-text.ts';
import { importBook, maxImportCharacters, maxImportPages, sweepImports } from '../../lib/ocr/export/import.ts';
import { newPage } from '../../lib/ocr/pages/page.ts';

/**
 * Issue 12, finding 7 (import): an import either completes or leaves nothing behind, and a retry
 * never duplicates. A store that fails after N writes stands in for a function that times out part
 * way; the table is the test's own, so every Line in it can be counted (a Scan, in a test only).
 */
const tableName = `import-${randomUUID()}`;
const editor = { userId: newObjectId(), username: 'ed', email: 'ed@example.com', role: 'editor' } as User;

/** A document client whose BatchWriteItem calls fail once `allowed` of them have been made. */
function failingAfter(allowed: number): Db {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  let writes = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'BatchWriteItemCommand' && ++writes > allowed) throw new Error('Task timed out');
      return next(args);
    },
    { step: 'initialize', name: 'failAfter' },
  );
  return { client, tableName };
}

const db: Db = { client: dynamoDocumentClient(), tableName };
const depsOver = (over: Db, now = new Date()) => ({
  ...dynamoOcrStores(over),
  books: dynamoBookStore(over),
  subscriptions: dynamoSubscriptionStore(over),
  tierCatalogue: parseTierCatalogue(undefined),
  now: () => now,
});

async function digitized(pages: number) {
  const at = new Date().toISOString();
  const text = newBookText(
    { bookTextId: newObjectId(), jobId: newJobId(), fileId: newObjectId(), userId: editor.userId, fileName: 'big.pdf', status: 'completed', language: 'ar', tags: [], categories: [], visibility: 'private', pageCount: pages, metadata: {} },
    at,
  );
  expect(await dynamoOcrStores(db).ocrJobs.create(text)).toBe(true);
  if (pages) await dynamoOcrStores(db).pages.putPages(Array.from({ length: pages }, (_, i) => newPage(text.bookTextId, i + 1, { text: `page ${i + 1}` }, at)));
  return text.bookTextId;
}

/** Every Book and Line of the table. */
async function stored() {
  const items = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await db.client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey }));
    items.push(...(out.Items ?? []));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const lines = items.filter((i) => i.entity === 'Line');
  return { books: items.filter((i) => i.entity === 'Book'), lines, linesOf: (bookId: string) => lines.filter((l) => l.bookId === bookId) };
}

beforeAll(async () => {
  const client = new DynamoDBClient({});
  await ensureTable(client, tableName);
  client.destroy();
});

describe('importing a digitized book', () => {
  it('after an interruption part way, a retry makes exactly one book with every line and no orphans', async () => {
    const bookTextId = await digitized(200);
    await expect(importBook(depsOver(failingAfter(3)), editor, bookTextId)).rejects.toThrow();
    await expect(importBook(depsOver(failingAfter(6)), editor, bookTextId)).rejects.toThrow();
    const { bookId } = await importBook(depsOver(db), editor, bookTextId);
    const after = await stored();
    expect(after.books.filter((b) => b.metadata.importedFromVision === bookTextId)).toHaveLength(1);
    const lines = after.linesOf(bookId).sort((a, b) => (a.lineId < b.lineId ? -1 : 1));
    expect(lines.map((l) => l.arabic)).toEqual(Array.from({ length: 200 }, (_, i) => `page ${i + 1}`));
    // No line of this import lies outside its book.
    expect(after.lines.filter((l) => String(l.arabic).startsWith('page ') && l.bookId !== bookId && !after.books.some((b) => b.bookId === l.bookId))).toEqual([]);
    // Asking again gives the same book, writing nothing new.
    expect((await importBook(depsOver(db), editor, bookTextId)).bookId).toBe(bookId);
    expect((await stored()).books.filter((b) => b.metadata.importedFromVision === bookTextId)).toHaveLength(1);
  });

  it('makes one book from concurrent imports of the same text', async () => {
    const bookTextId = await digitized(60);
    const results = await Promise.all(Array.from({ length: 4 }, () => importBook(depsOver(db), editor, bookTextId)));
    expect(new Set(results.map((r) => r.bookId)).size).toBe(1);
    const after = await stored();
    expect(after.books.filter((b) => b.metadata.importedFromVision === bookTextId)).toHaveLength(1);
    expect(after.linesOf(results[0]!.bookId)).toHaveLength(60);
  });

  it('leaves nothing behind when an interrupted import is never retried: the sweeper removes its lines a day on', async () => {
    const bookTextId = await digitized(100);
    const before = (await stored()).lines.length;
    await expect(importBook(depsOver(failingAfter(2)), editor, bookTextId)).rejects.toThrow();
    expect((await stored()).lines.length).toBeGreaterThan(before);
    expect(await sweepImports(depsOver(db), new Date(Date.now() + 60 * 60 * 1000))).toMatchObject({ removed: 0 });
    expect(await sweepImports(depsOver(db), new Date(Date.now() + 25 * 60 * 60 * 1000))).toMatchObject({ removed: 1 });
    expect((await stored()).lines.length).toBe(before);
    // Imported later after all, it completes as a new book.
    const { bookId } = await importBook(depsOver(db), editor, bookTextId);
    expect((await stored()).linesOf(bookId)).toHaveLength(100);
  });

  it(`refuses a book of more than ${maxImportCharacters} characters with a 400, writing nothing`, async () => {
    const bookTextId = await digitized(0);
    const at = new Date().toISOString();
    const page = 'ن'.repeat(60_000);
    const pages = Math.ceil(maxImportCharacters / page.length) + 1;
    await dynamoOcrStores(db).pages.putPages(Array.from({ length: pages }, (_, i) => newPage(bookTextId, i + 1, { text: page }, at)));
    const before = (await stored()).lines.length;
    await expect(importBook(depsOver(db), editor, bookTextId)).rejects.toMatchObject({ kind: 'bad_request', message: `An import takes at most ${maxImportCharacters} characters of text; this book has more` });
    expect((await stored()).lines.length).toBe(before);
  });

  it(`refuses a book of more than ${maxImportPages} pages with a 400, writing nothing`, async () => {
    const bookTextId = await digitized(maxImportPages + 1);
    const before = (await stored()).lines.length;
    await expect(importBook(depsOver(db), editor, bookTextId)).rejects.toMatchObject({ kind: 'bad_request', message: `An import takes at most ${maxImportPages} pages; this book has more` });
    expect((await stored()).lines.length).toBe(before);
  }, 120_000);
});
