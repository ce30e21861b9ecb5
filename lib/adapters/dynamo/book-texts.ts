import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { BookText, BookTextEdit, BookTextStore, FileRecord } from '../../ocr/book-text.ts';
import { bookTextItem, setFields, setText } from './book-text-item.ts';
import { bookTextRecords, countMoves, transact } from './book-text-writes.ts';
import { keys } from './keys.ts';
import { batchGet, failedConditions, record, type Db } from './table.ts';
import { Update } from './update-expression.ts';

export { bookTextItem };

/** BookTexts and their Files (lib/ocr/book-text.ts). */
export function dynamoBookTextStore(db: Db): BookTextStore {
  const TableName = db.tableName;
  const { get, withCurrent } = bookTextRecords(db);
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
      return withCurrent(
        bookText,
        async (current) => {
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
                  ExpressionAttributeNames: u.names,
                  ExpressionAttributeValues: u.values,
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
            ],
          });
          return { replaced: e.text ? current.storedText : undefined };
        },
        (error) => Boolean(failedConditions(error)?.includes(0)),
      );
    },

  };
}
