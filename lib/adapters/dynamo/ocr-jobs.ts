import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BookText } from '../../ocr/book-text.ts';
import type { OcrJobStore, PageProgress, ResultUpdate } from '../../ocr/jobs/store.ts';
import { maxWindow } from '../../paging.ts';
import { bookTextItem, setFields, setText } from './book-text-item.ts';
import { bookTextRecords, countMoves, transact } from './book-text-writes.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { oweUsage } from './owed-usage.ts';
import { looseTextWrites } from './loose-texts.ts';
import { countAll, failedConditions, ifConditionHolds, keyFits, record, type Db } from './table.ts';
import { Update } from './update-expression.ts';

/** Client metadata keys are merged this many to an update, well inside the 4 KB expression limit. */
const metadataKeysPerUpdate = 100;

/** An OCR job's life (lib/ocr/jobs/store.ts): the BookText's creation, the callbacks' writes, usage, the owner's list. */
export function dynamoOcrJobStore(db: Db): OcrJobStore {
  const TableName = db.tableName;
  const { get, update, updateInput, withCurrent } = bookTextRecords(db);

  /** Callbacks arrive out of order; the count only goes up, so a late small one cannot undo progress. */
  const raisePagesProcessed = (bookTextId: string, pages: number) =>
    ifConditionHolds(() =>
      db.client.send(
        new UpdateCommand({
          TableName,
          Key: keys.bookText(bookTextId),
          UpdateExpression: 'SET pagesProcessed = :n',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(pagesProcessed) OR pagesProcessed < :n)',
          ExpressionAttributeValues: { ':n': pages },
        }),
      ),
    );

  const setMetadata = async (bookTextId: string, entries: Record<string, unknown>, at: string) => {
    const names = Object.keys(entries).filter((name) => name !== '');
    for (let i = 0; i === 0 || i < names.length; i += metadataKeysPerUpdate) {
      const u = new Update().set(['updatedAt'], at);
      for (const name of names.slice(i, i + metadataKeysPerUpdate)) u.set(['metadata', name], entries[name]);
      await update(bookTextId, u);
    }
  };

  return {
    async create(bookText, file, queued) {
      const claim = entities.ocrJob.item({
        jobId: bookText.jobId,
        bookTextId: bookText.bookTextId,
        ...(queued ? { createdAt: bookText.createdAt, queued } : {}),
      });
      const ifNew = 'attribute_not_exists(pk)';
      try {
        await transact(db, {
          TransactItems: [
            { Put: { TableName, Item: claim, ConditionExpression: ifNew } },
            { Put: { TableName, Item: bookTextItem({ ...bookText, rev: 1 }), ConditionExpression: ifNew } },
            ...(file ? [{ Put: { TableName, Item: entities.file.item(file), ConditionExpression: ifNew } }] : []),
            ...countMoves(TableName, bookText.userId, { [bookText.visibility]: 1 }),
          ],
        });
        return true;
      } catch (error) {
        if (failedConditions(error)?.includes(0)) return false;
        throw error;
      }
    },

    async byJobId(jobId) {
      if (!keyFits(keys.ocrJob(jobId))) return undefined;
      const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.ocrJob(jobId), ConsistentRead: true }));
      return Item ? get(String(Item.bookTextId)) : undefined;
    },

    async recordPage(bookText, progress: PageProgress) {
      const u = setFields(new Update(), bookText, { status: 'processing', pageCount: progress.pageCount || undefined })
        .set(['updatedAt'], progress.at)
        .set(['lastPageUpdate'], progress.at);
      if (progress.pageError) u.set(['pageErrors', String(progress.pageError.pageNumber)], progress.pageError);
      await update(bookText.bookTextId, u);
      if (progress.pagesProcessed !== undefined) await raisePagesProcessed(bookText.bookTextId, progress.pagesProcessed);
    },

    async applyResult(bookText, r: ResultUpdate) {
      const written = await withCurrent(
        bookText,
        async (current) => {
          const u = setFields(new Update(), current, {
            status: r.status,
            completedAt: r.status === 'completed' ? r.at : undefined,
            language: r.language,
            pageCount: r.pageCount,
            error: r.error,
            processingTime: r.processingTime,
          }).set(['updatedAt'], r.at);
          const condition = r.text ? setText(u, r.text, current.storedText) : undefined;
          // What must commit with the record: the usage a completion owes (a completed job is never
          // left with neither usage nor marker), and the notes of loose texts (loose-texts.ts: the
          // replaced text is noted exactly when the record stops naming it).
          const together = [
            ...(r.owed ? [oweUsage(TableName, r.owed)] : []),
            ...(r.text ? looseTextWrites(TableName, current.jobId, r.text, current.storedText, r.at) : []),
          ];
          if (together.length > 0) {
            await transact(db, { TransactItems: [{ Update: updateInput(bookText.bookTextId, u, condition) }, ...together] });
          } else {
            await update(bookText.bookTextId, u, condition);
          }
          return { replaced: r.text ? current.storedText : undefined };
        },
        (error) => error instanceof ConditionalCheckFailedException || Boolean(failedConditions(error)?.includes(0)),
      );
      if (r.metadata && Object.keys(r.metadata).length) await setMetadata(bookText.bookTextId, r.metadata, r.at);
      return written;
    },

    async setUsage(bookTextId, outcome, at) {
      const u = new Update().set(['updatedAt'], at);
      if ('usageInfo' in outcome) u.set(['usageInfo'], outcome.usageInfo).remove(['usageError']);
      else u.set(['usageError'], outcome.usageError);
      await update(bookTextId, u);
    },

    async jobsOf(userId, { status, limit, offset }) {
      const index = status
        ? { IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :pk', ExpressionAttributeValues: { ':pk': keys.ownerJobsByStatusIndex(userId, status) } }
        : { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': keys.ownerJobsIndex(userId) } };
      // The size of one owner's list, counted up to the listing window: a bounded read however many jobs.
      const [total, items] = await Promise.all([countAll(db, index, maxWindow), firstItems(db, index, Math.min(offset + limit, maxWindow))]);
      return { total, items: items.slice(offset) };
    },
  };
}

type IndexQuery = { IndexName: string; KeyConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> };

/** The newest `n` items of an owner's list. */
async function firstItems(db: Db, query: IndexQuery, n: number): Promise<BookText[]> {
  const items: BookText[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  while (items.length < n) {
    const out = await db.client.send(
      new QueryCommand({ TableName: db.tableName, ...query, ScanIndexForward: false, Limit: n - items.length, ExclusiveStartKey }),
    );
    items.push(...(out.Items ?? []).map((item) => record<BookText>(item)));
    ExclusiveStartKey = out.LastEvaluatedKey;
    if (!ExclusiveStartKey) break;
  }
  return items;
}
