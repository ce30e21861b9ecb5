import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BookText, BookTextPage, FileRecord, OcrStore, PageProgress, ResultUpdate } from '../../ocr/book-text.ts';
import { batchPut } from './books.ts';
import { keys } from './keys.ts';
import { failedConditions, ifConditionHolds, queryAll, record, type Db } from './table.ts';

/** A DynamoDB update expression built from named parts, so optional fields stay readable. */
class Update {
  private readonly sets: string[] = [];
  private readonly removes: string[] = [];
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private n = 0;

  /** `path` is a list of attribute names, e.g. ['metadata', 'usageInfo']. */
  set(path: string[], value: unknown): this {
    this.sets.push(`${this.path(path)} = ${this.value(value)}`);
    return this;
  }

  remove(path: string[]): this {
    this.removes.push(this.path(path));
    return this;
  }

  private path(path: string[]): string {
    return path
      .map((part) => {
        const name = `#n${this.n++}`;
        this.names[name] = part;
        return name;
      })
      .join('.');
  }

  value(value: unknown): string {
    const name = `:v${this.n++}`;
    this.values[name] = value;
    return name;
  }

  get expression(): string {
    return [this.sets.length ? `SET ${this.sets.join(', ')}` : '', this.removes.length ? `REMOVE ${this.removes.join(', ')}` : '']
      .filter(Boolean)
      .join(' ');
  }
}

/** Client metadata keys are merged this many to an update, well inside the 4 KB expression limit. */
const metadataKeysPerUpdate = 100;

export function dynamoOcrStore(db: Db): OcrStore {
  const TableName = db.tableName;

  const get = async (bookTextId: string) => {
    const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.bookText(bookTextId), ConsistentRead: true }));
    return Item ? record<BookText>(Item) : undefined;
  };

  /** Updates an existing BookText; the condition keeps an update from creating a stray item. */
  const update = async (bookTextId: string, u: Update) => {
    await db.client.send(
      new UpdateCommand({
        TableName,
        Key: keys.bookText(bookTextId),
        UpdateExpression: u.expression,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: u.names,
        ExpressionAttributeValues: u.values,
      }),
    );
  };

  const withStatus = (u: Update, book: BookText, status: string) =>
    u.set(['status'], status).set(['gsi2pk'], keys.ownerJobsByStatus(book.userId, status, book.createdAt, book.bookTextId).gsi2pk);

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
      const claim = { ...keys.ocrJob(bookText.jobId), entity: 'OcrJob', jobId: bookText.jobId, bookTextId: bookText.bookTextId };
      const item = {
        ...keys.bookText(bookText.bookTextId),
        ...keys.ownerJobs(bookText.userId, bookText.createdAt, bookText.bookTextId),
        ...keys.ownerJobsByStatus(bookText.userId, bookText.status, bookText.createdAt, bookText.bookTextId),
        entity: 'BookText',
        ...bookText,
      };
      const ifNew = 'attribute_not_exists(pk)';
      try {
        await db.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName, Item: claim, ConditionExpression: ifNew } },
              { Put: { TableName, Item: item, ConditionExpression: ifNew } },
              ...(file ? [{ Put: { TableName, Item: { ...keys.file(file.fileId), entity: 'File', ...file }, ConditionExpression: ifNew } }] : []),
            ],
          }),
        );
        return true;
      } catch (error) {
        if (failedConditions(error)?.includes(0)) return false;
        throw error;
      }
    },

    async byJobId(jobId) {
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
        pages.map((page) => ({ ...keys.bookTextPage(page.bookTextId, page.pageNumber), entity: 'BookTextPage', ...page })),
      ),

    pages: (bookTextId) =>
      queryAll<BookTextPage>(db, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.bookTextPartition(bookTextId), ':prefix': keys.pagePrefix },
        ConsistentRead: true,
      }),

    async recordPage(book, progress: PageProgress) {
      const u = withStatus(new Update(), book, 'processing').set(['updatedAt'], progress.at).set(['lastPageUpdate'], progress.at);
      if (progress.pageCount) u.set(['pageCount'], progress.pageCount);
      if (progress.pageError) u.set(['pageErrors', String(progress.pageError.pageNumber)], progress.pageError);
      await update(book.bookTextId, u);
      if (progress.pagesProcessed !== undefined) await raisePagesProcessed(book.bookTextId, progress.pagesProcessed);
    },

    async applyResult(book, r: ResultUpdate) {
      const u = new Update().set(['updatedAt'], r.at);
      if (r.status) withStatus(u, book, r.status);
      if (r.status === 'completed') u.set(['completedAt'], r.at);
      if (r.language !== undefined) u.set(['language'], r.language);
      if (r.pageCount !== undefined) u.set(['pageCount'], r.pageCount);
      if (r.extractedText !== undefined) u.set(['extractedText'], r.extractedText);
      if (r.textStorage) u.set(['metadata', 'textStorageKey'], r.textStorage.key).set(['metadata', 'textLength'], r.textStorage.length);
      if (r.textStorage === null) u.remove(['metadata', 'textStorageKey']).remove(['metadata', 'textLength']);
      if (r.error !== undefined) u.set(['error'], r.error);
      if (r.processingTime !== undefined) u.set(['processingTime'], r.processingTime);
      await update(book.bookTextId, u);
      if (r.metadata && Object.keys(r.metadata).length) await setMetadata(book.bookTextId, r.metadata, r.at);
    },

    setMetadata,

    async jobsOf(userId, { status, limit, offset }) {
      const index = status
        ? { IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :pk', ExpressionAttributeValues: { ':pk': keys.ownerJobsByStatusIndex(userId, status) } }
        : { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': keys.ownerJobsIndex(userId) } };
      const [total, items] = await Promise.all([count(db, index), firstItems(db, index, offset + limit)]);
      return { total, items: items.slice(offset) };
    },
  };
}

type IndexQuery = { IndexName: string; KeyConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> };

/** The size of one owner's list: grows with that owner's jobs, never with the table. */
async function count(db: Db, query: IndexQuery): Promise<number> {
  let total = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await db.client.send(new QueryCommand({ TableName: db.tableName, ...query, Select: 'COUNT', ExclusiveStartKey }));
    total += out.Count ?? 0;
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return total;
}

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
