import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BookTextPage } from '../../ocr/pages/page.ts';
import { pageDefaults } from '../../ocr/pages/page.ts';
import type { PageChange, PageStore } from '../../ocr/pages/store.ts';
import { batchPut } from './books.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { batchGet, countAll, queryAll, record, type Db } from './table.ts';
import { Update } from './update-expression.ts';

/**
 * The update of a page that changes only the given fields (PATCH with `pages` as an object). It
 * also drops what an edit too large for one transaction staged on the page (book-text-edits.ts):
 * this write is newer, so no undo of that edit may put the page back.
 */
export function pageUpdate(bookTextId: string, c: PageChange, at: string): Update {
  const u = new Update()
    .set(['entity'], entities.bookTextPage.name)
    .set(['bookTextId'], bookTextId)
    .set(['pageNumber'], c.pageNumber)
    .set(['updatedAt'], at)
    .setIfMissing(['pageId'], c.pageId)
    .remove([stagedAttribute]);
  // A supplied field is written; any other keeps its value, or takes the default on a new page.
  const fields = { text: c.text, storageKey: c.storageKey, isAIGenerated: c.isAIGenerated };
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) u.setIfMissing([name], pageDefaults[name as keyof typeof fields]);
    else u.set([name], value);
  }
  // The uncertain words indexed the engine's text (changedPage in lib/ocr/pages/store.ts says the same).
  if (c.text !== undefined) u.remove(['uncertain']);
  return u;
}

/** Where an edit too large for one transaction keeps, on each page it wrote, the page as it was (book-text-edits.ts). */
export const stagedAttribute = 'staged';

/** A page as read: without what an edit staged on it, which no reader is shown. */
export function pageRecord(item: Record<string, unknown>): BookTextPage {
  const { [stagedAttribute]: _staged, ...page } = record<BookTextPage & Record<string, unknown>>(item);
  return page as BookTextPage;
}

/** A BookText's pages (lib/ocr/pages/store.ts), each its own item in the BookText's partition. */
export function dynamoPageStore(db: Db): PageStore {
  const TableName = db.tableName;
  return {
    putPages: (pages) =>
      batchPut(
        db,
        pages.map((page) => entities.bookTextPage.item(page)),
      ),

    pages: (bookTextId) =>
      queryAll<Record<string, unknown>>(db, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.bookTextPartition(bookTextId), ':prefix': keys.pagePrefix },
        ConsistentRead: true,
      }).then((items) => items.map(pageRecord)),

    // A batch may not name an item twice.
    pagesAt: (pages) =>
      batchGet<Record<string, unknown>>(
        db,
        [...new Map(pages.map((p) => [`${p.bookTextId}#${p.pageNumber}`, keys.bookTextPage(p.bookTextId, p.pageNumber)])).values()],
      ).then((items) => items.map(pageRecord)),

    async pageWindow(bookTextId, offset, limit) {
      const partition = {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.bookTextPartition(bookTextId), ':prefix': keys.pagePrefix },
        ConsistentRead: true,
      };
      const window = async () => {
        // Page numbers need not be contiguous, so the offset is skipped by counting, not by key.
        let ExclusiveStartKey: Record<string, unknown> | undefined;
        for (let skipped = 0; skipped < offset; ) {
          const out = await db.client.send(
            new QueryCommand({ TableName, ...partition, Select: 'COUNT', Limit: offset - skipped, ExclusiveStartKey }),
          );
          skipped += out.Count ?? 0;
          ExclusiveStartKey = out.LastEvaluatedKey;
          if (!ExclusiveStartKey) return [];
        }
        const pages: BookTextPage[] = [];
        while (pages.length < limit) {
          const out = await db.client.send(new QueryCommand({ TableName, ...partition, Limit: limit - pages.length, ExclusiveStartKey }));
          pages.push(...(out.Items ?? []).map(pageRecord));
          ExclusiveStartKey = out.LastEvaluatedKey;
          if (!ExclusiveStartKey) break;
        }
        return pages;
      };
      const [total, pages] = await Promise.all([countAll(db, partition), window()]);
      return { total, pages };
    },

    // Only the two attributes are returned, though DynamoDB counts the whole items read.
    confidences: (bookTextId) =>
      queryAll<{ pageNumber: number; confidence?: number | null }>(db, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.bookTextPartition(bookTextId), ':prefix': keys.pagePrefix },
        ProjectionExpression: 'pageNumber, confidence',
        ConsistentRead: true,
      }).then((items) => items.map((p) => ({ pageNumber: p.pageNumber, confidence: typeof p.confidence === 'number' ? p.confidence : null }))),

    async updatePages(bookTextId, changes, at) {
      const updateOne = (c: (typeof changes)[number]) => {
        const u = pageUpdate(bookTextId, c, at);
        return db.client.send(
          new UpdateCommand({
            TableName,
            Key: keys.bookTextPage(bookTextId, c.pageNumber),
            UpdateExpression: u.expression,
            ExpressionAttributeNames: u.names,
            ExpressionAttributeValues: u.values,
          }),
        );
      };
      // A few at a time: a request may change thousands of pages.
      for (let i = 0; i < changes.length; i += 16) await Promise.all(changes.slice(i, i + 16).map(updateOne));
    },

  };
}
