import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LooseText, StoredText, TextPlacement } from '../../ocr/book-text.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { oldestBefore, type Db } from './table.ts';

/**
 * Notes of text objects that may be named by no record (lib/ocr/loose-texts.ts): one item each,
 * in a sparse gsi2 list, so the sweeper reads them by key and never lists the bucket.
 */
export function dynamoLooseTexts(db: Db) {
  const TableName = db.tableName;
  return {
    noteLooseText: async (text: LooseText) => {
      await db.client.send(new PutCommand({ TableName, Item: entities.looseText.item(text) }));
    },
    forgetLooseText: async (text: Pick<LooseText, 'jobId' | 'version'>) => {
      await db.client.send(new DeleteCommand({ TableName, Key: keys.looseText(text.jobId, text.version) }));
    },
    looseTexts: (before: string, limit: number) => oldestBefore<LooseText>(db, keys.looseTextsIndex, before, limit),
  };
}

/**
 * The notes a record write that replaces its text makes in its own transaction: the new text is
 * named now (its note goes), the replaced one may be a stray from now on (noted). Either both
 * happen with the record's change or neither does.
 */
export function looseTextWrites(TableName: string, jobId: string, text: TextPlacement | undefined, replaced: StoredText | undefined, at: string) {
  if (!text) return [];
  return [
    ...(text.stored ? [{ Delete: { TableName, Key: keys.looseText(jobId, text.stored.version) } }] : []),
    ...(replaced && replaced.version !== text.stored?.version
      ? [{ Put: { TableName, Item: entities.looseText.item({ jobId, version: replaced.version, at }) } }]
      : []),
  ];
}
