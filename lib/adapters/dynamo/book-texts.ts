import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { BookText, BookTextEdit, BookTextStore, FileRecord } from '../../ocr/book-text.ts';
import { bookTextItem, setFields, setText } from './book-text-item.ts';
import { bookTextRecords, countMoves, transact } from './book-text-writes.ts';
import { commitOfStaged, plannedPages, stagedEdits, type PageEditLock, type TransactItem } from './book-text-edits.ts';
import { dynamoLooseTexts, looseTextWrites } from './loose-texts.ts';
import { keys } from './keys.ts';
import { batchGet, failedConditions, record, type Db } from './table.ts';
import { Update } from './update-expression.ts';

export { bookTextItem };

/** BookTexts and their Files (lib/ocr/book-text.ts). */
export function dynamoBookTextStore(db: Db): BookTextStore {
  const TableName = db.tableName;
  const { get, withCurrent } = bookTextRecords(db);
  const staged = stagedEdits(db);

  /**
   * The edit's one transaction: the record, its File, the counters its visibility moves, the notes
   * of the texts it names and replaces, and its pages (or, for a staged edit, the lock's release).
   */
  const commit = (bookText: BookText, e: BookTextEdit, pageWrites: TransactItem[], lock?: PageEditLock) =>
    withCurrent(
      bookText,
      async (current) => {
        // An undo has begun (the sweeper's, after a long stall): this edit can no longer commit.
        const held = (current as BookText & { pageEdit?: PageEditLock }).pageEdit;
        if (lock && (held?.editId !== lock.editId || held.undoing)) throw new Error('The page edit was undone before it committed');
        const moves = e.visibility !== undefined && e.visibility !== current.visibility;
        const u = setFields(new Update(), current, {
          fileName: e.fileName,
          language: e.language,
          tags: e.tags,
          categories: e.categories,
          visibility: moves ? e.visibility : undefined,
        })
          .set(['updatedAt'], e.at)
          .add(['rev'], 1);
        // The counters move with the visibility they saw, and a text replaces the one it read:
        // a concurrent change of either makes this edit read again.
        const conditions = [`${u.path(['visibility'])} = ${u.value(current.visibility)}`];
        if (e.text) conditions.push(setText(u, e.text, current.storedText));
        const release = commitOfStaged(TableName, lock);
        if (lock) {
          u.remove(['pageEdit']);
          conditions.push(release.condition!);
        }
        const file = e.file && (e.file.fileName !== undefined || e.file.author !== undefined) ? e.file : undefined;
        const fileUpdate = new Update().set(['updatedAt'], e.at);
        if (file?.fileName !== undefined) fileUpdate.set(['fileName'], file.fileName);
        if (file?.author !== undefined) fileUpdate.set(['author'], file.author);
        await transact(db, {
          TransactItems: [
            {
              Update: {
                TableName,
                Key: keys.bookText(bookText.bookTextId),
                UpdateExpression: u.expression,
                ConditionExpression: `attribute_exists(pk) AND ${conditions.join(' AND ')}`,
                ExpressionAttributeNames: { ...u.names, ...release.names },
                ExpressionAttributeValues: { ...u.values, ...release.values },
              },
            },
            ...(file
              ? [
                  {
                    Update: {
                      TableName,
                      Key: keys.file(bookText.fileId),
                      UpdateExpression: fileUpdate.expression,
                      ConditionExpression: 'attribute_exists(pk)',
                      ExpressionAttributeNames: fileUpdate.names,
                      ExpressionAttributeValues: fileUpdate.values,
                    },
                  },
                ]
              : []),
            ...(moves ? countMoves(TableName, bookText.userId, { [current.visibility]: -1, [e.visibility!]: 1 }) : []),
            ...looseTextWrites(TableName, current.jobId, e.text, current.storedText, e.at),
            ...release.items,
            ...pageWrites,
          ],
        });
        return { replaced: e.text ? current.storedText : undefined };
      },
      (error) => Boolean(failedConditions(error)?.includes(0)),
    );

  return {
    get,

    async getMany(bookTextIds) {
      const found = await batchGet<BookText>(db, [...new Set(bookTextIds)].map((id) => keys.bookText(id)));
      return new Map(found.map((bookText) => [bookText.bookTextId, bookText]));
    },

    async getFile(fileId) {
      const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.file(fileId) }));
      return Item ? record<FileRecord>(Item) : undefined;
    },

    async edit(bookText, e: BookTextEdit) {
      // Pages that fit go in the record's own transaction; more are staged (book-text-edits.ts).
      const pageWrites = e.pages ? await plannedPages(db, bookText.bookTextId, e.pages, e.at) : [];
      if (pageWrites) return commit(bookText, e, pageWrites);
      // The commit reads the record as the lock left it (the lock is part of its condition).
      return staged.save(bookText, e.pages!, e.at, async (lock) => commit((await get(bookText.bookTextId)) ?? bookText, e, [], lock));
    },

    ...dynamoLooseTexts(db),

    undoStaleEdits: (before, limit) => staged.undoStale(before, limit),
  };
}
