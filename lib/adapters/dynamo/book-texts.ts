import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { BookEdit, BookText, FileRecord, OcrStore, PageProgress, ResultUpdate, Visibility } from '../../ocr/book-text.ts';
import type { BookTextPage } from '../../ocr/pages/page.ts';
import { pageDefaults } from '../../ocr/pages/page.ts';
import { batchPut } from './books.ts';
import { bookTextItem, setFields, setText } from './book-text-item.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { catalogue } from './catalogue.ts';
import { maxWindow } from '../../paging.ts';
import { policies, retry } from '../../retry.ts';
import { batchGet, countAll, failedConditions, ifConditionHolds, isConflictOnly, keyFits, queryAll, record, type Db } from './table.ts';
import { Update } from './update-expression.ts';

export { bookTextItem };

/** Client metadata keys are merged this many to an update, well inside the 4 KB expression limit. */
const metadataKeysPerUpdate = 100;

/**
 * The catalogue's counters moved by a number of BookTexts per visibility: each BookText counts in the
 * table-wide count of its visibility, a private one also in its owner's (the totals of GET /ocr/books).
 * One update per counter item, as a transaction touches an item once.
 */
function countMoves(TableName: string, userId: string, moves: Partial<Record<Visibility, number>>) {
  const entries = Object.entries(moves).filter(([, delta]) => delta !== 0);
  const update = (Key: Record<string, unknown>, adds: [string, number][]) => ({
    Update: {
      TableName,
      Key,
      UpdateExpression: `ADD ${adds.map((_, i) => `#n${i} :d${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(adds.map(([name], i) => [`#n${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(adds.map(([, delta], i) => [`:d${i}`, delta])),
    },
  });
  return [
    ...(entries.length ? [update(keys.catalogueCounts, entries)] : []),
    ...(moves.private ? [update(keys.ownerCatalogueCounts(userId), [['private', moves.private]])] : []),
  ];
}

/** Sends a transaction again while it only collides with others in flight (the catalogue counters are shared). */
async function transact(db: Db, input: TransactWriteCommandInput): Promise<void> {
  await retry(() => db.client.send(new TransactWriteCommand(input)), { ...policies.contention, retryable: isConflictOnly });
}

export function dynamoOcrStore(db: Db): OcrStore {
  const TableName = db.tableName;

  const get = async (bookTextId: string) => {
    const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.bookText(bookTextId), ConsistentRead: true }));
    return Item ? record<BookText>(Item) : undefined;
  };

  /** Updates an existing BookText; the condition keeps an update from creating a stray item. */
  const update = async (bookTextId: string, u: Update, condition?: string) => {
    await db.client.send(
      new UpdateCommand({
        TableName,
        Key: keys.bookText(bookTextId),
        UpdateExpression: u.expression,
        ConditionExpression: condition ? `attribute_exists(pk) AND (${condition})` : 'attribute_exists(pk)',
        ExpressionAttributeNames: u.names,
        ExpressionAttributeValues: u.values,
      }),
    );
  };

  /**
   * Runs `write` against the record as last read; when its condition fails because another writer
   * changed what it depends on, reads again and retries (a bounded number of times).
   */
  const withCurrent = <T>(book: BookText, write: (current: BookText) => Promise<T>, isStale: (error: unknown) => boolean): Promise<T> =>
    retry(
      async (attempt) => {
        const current = attempt === 1 ? book : await get(book.bookTextId);
        if (!current) throw new Error(`BookText ${book.bookTextId} is gone`);
        return write(current);
      },
      { ...policies.contention, attempts: 9, retryable: isStale },
    );

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
    async create(bookText, file) {
      const claim = entities.ocrJob.item({ jobId: bookText.jobId, bookTextId: bookText.bookTextId });
      const ifNew = 'attribute_not_exists(pk)';
      try {
        await transact(db, {
          TransactItems: [
            { Put: { TableName, Item: claim, ConditionExpression: ifNew } },
            { Put: { TableName, Item: bookTextItem(bookText), ConditionExpression: ifNew } },
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

    get,

    async getFile(fileId) {
      const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.file(fileId) }));
      return Item ? record<FileRecord>(Item) : undefined;
    },

    putPages: (pages) =>
      batchPut(
        db,
        pages.map((page) => entities.bookTextPage.item(page)),
      ),

    pages: (bookTextId) =>
      queryAll<BookTextPage>(db, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.bookTextPartition(bookTextId), ':prefix': keys.pagePrefix },
        ConsistentRead: true,
      }),

    async recordPage(book, progress: PageProgress) {
      const u = setFields(new Update(), book, { status: 'processing', pageCount: progress.pageCount || undefined })
        .set(['updatedAt'], progress.at)
        .set(['lastPageUpdate'], progress.at);
      if (progress.pageError) u.set(['pageErrors', String(progress.pageError.pageNumber)], progress.pageError);
      await update(book.bookTextId, u);
      if (progress.pagesProcessed !== undefined) await raisePagesProcessed(book.bookTextId, progress.pagesProcessed);
    },

    async applyResult(book, r: ResultUpdate) {
      const written = await withCurrent(
        book,
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
          await update(book.bookTextId, u, condition);
          return { replaced: r.text ? current.storedText : undefined };
        },
        (error) => error instanceof ConditionalCheckFailedException,
      );
      if (r.metadata && Object.keys(r.metadata).length) await setMetadata(book.bookTextId, r.metadata, r.at);
      return written;
    },

    async setUsage(bookTextId, outcome, at) {
      const u = new Update().set(['updatedAt'], at);
      if ('usageInfo' in outcome) u.set(['usageInfo'], outcome.usageInfo).remove(['usageError']);
      else u.set(['usageError'], outcome.usageError);
      await update(bookTextId, u);
    },

    async getFiles(fileIds) {
      const files = await batchGet<FileRecord>(db, [...new Set(fileIds)].map((id) => keys.file(id)));
      return new Map(files.map((file) => [file.fileId, file]));
    },

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
          pages.push(...(out.Items ?? []).map((item) => record<BookTextPage>(item)));
          ExclusiveStartKey = out.LastEvaluatedKey;
          if (!ExclusiveStartKey) break;
        }
        return pages;
      };
      const [total, pages] = await Promise.all([countAll(db, partition), window()]);
      return { total, pages };
    },

    async updatePages(bookTextId, changes, at) {
      const updateOne = (c: (typeof changes)[number]) => {
        const u = new Update()
          .set(['entity'], entities.bookTextPage.name)
          .set(['bookTextId'], bookTextId)
          .set(['pageNumber'], c.pageNumber)
          .set(['updatedAt'], at)
          .setIfMissing(['pageId'], c.pageId);
        // A supplied field is written; any other keeps its value, or takes the default on a new page.
        const fields = { text: c.text, storageKey: c.storageKey, isAIGenerated: c.isAIGenerated };
        for (const [name, value] of Object.entries(fields)) {
          if (value === undefined) u.setIfMissing([name], pageDefaults[name as keyof typeof fields]);
          else u.set([name], value);
        }
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

    async edit(book, e: BookEdit) {
      return withCurrent(
        book,
        async (current) => {
          const moves = e.visibility !== undefined && e.visibility !== current.visibility;
          const u = setFields(new Update(), current, {
            fileName: e.fileName,
            language: e.language,
            tags: e.tags,
            categories: e.categories,
            visibility: moves ? e.visibility : undefined,
          }).set(['updatedAt'], e.at);
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
                  Key: keys.bookText(book.bookTextId),
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
                        Key: keys.file(book.fileId),
                        UpdateExpression: fileUpdate.expression,
                        ConditionExpression: 'attribute_exists(pk)',
                        ExpressionAttributeNames: fileUpdate.names,
                        ExpressionAttributeValues: fileUpdate.values,
                      },
                    },
                  ]
                : []),
              ...(moves ? countMoves(TableName, book.userId, { [current.visibility]: -1, [e.visibility!]: 1 }) : []),
            ],
          });
          return { replaced: e.text ? current.storedText : undefined };
        },
        (error) => Boolean(failedConditions(error)?.includes(0)),
      );
    },

    catalogue: (query) => catalogue(db, query),

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
