import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { BookEdit, BookText, BookTextPage, FileRecord, OcrStore, PageProgress, ResultUpdate, Visibility } from '../../ocr/book-text.ts';
import { batchPut } from './books.ts';
import { keys } from './keys.ts';
import { catalogue } from './catalogue.ts';
import { batchGet, contentionPause, countAll, failedConditions, ifConditionHolds, isConflictOnly, queryAll, record, type Db } from './table.ts';

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

  /** Sets the attribute only where the item has none (a new item's default). */
  setIfMissing(path: string[], value: unknown): this {
    const name = this.path(path);
    this.sets.push(`${name} = if_not_exists(${name}, ${this.value(value)})`);
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

/** The BookText as stored: the record plus the keys of the owner's job lists and of the catalogue. */
export const bookTextItem = (bookText: BookText) => ({
  ...keys.bookText(bookText.bookTextId),
  ...keys.ownerJobs(bookText.userId, bookText.createdAt, bookText.bookTextId),
  ...keys.ownerJobsByStatus(bookText.userId, bookText.status, bookText.createdAt, bookText.bookTextId),
  catalogue: keys.catalogue(bookText.visibility),
  ...keys.catalogueSort(bookText),
  entity: 'BookText',
  ...bookText,
});

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
  for (let attempt = 0; ; attempt++) {
    try {
      await db.client.send(new TransactWriteCommand(input));
      return;
    } catch (error) {
      if (!isConflictOnly(error) || attempt >= 12) throw error;
      await contentionPause(attempt);
    }
  }
}

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
      const ifNew = 'attribute_not_exists(pk)';
      try {
        await transact(db, {
          TransactItems: [
            { Put: { TableName, Item: claim, ConditionExpression: ifNew } },
            { Put: { TableName, Item: bookTextItem(bookText), ConditionExpression: ifNew } },
            ...(file ? [{ Put: { TableName, Item: { ...keys.file(file.fileId), entity: 'File', ...file }, ConditionExpression: ifNew } }] : []),
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
      if (progress.pageCount) u.set(['pageCount'], progress.pageCount).set(['byPages'], keys.cataloguePages(progress.pageCount, book.bookTextId));
      if (progress.pageError) u.set(['pageErrors', String(progress.pageError.pageNumber)], progress.pageError);
      await update(book.bookTextId, u);
      if (progress.pagesProcessed !== undefined) await raisePagesProcessed(book.bookTextId, progress.pagesProcessed);
    },

    async applyResult(book, r: ResultUpdate) {
      const u = new Update().set(['updatedAt'], r.at);
      if (r.status) withStatus(u, book, r.status);
      if (r.status === 'completed') u.set(['completedAt'], r.at);
      if (r.language !== undefined) u.set(['language'], r.language);
      if (r.pageCount !== undefined) u.set(['pageCount'], r.pageCount).set(['byPages'], keys.cataloguePages(r.pageCount, book.bookTextId));
      if (r.extractedText !== undefined) u.set(['extractedText'], r.extractedText);
      if (r.textStorage) u.set(['metadata', 'textStorageKey'], r.textStorage.key).set(['metadata', 'textLength'], r.textStorage.length);
      if (r.textStorage === null) u.remove(['metadata', 'textStorageKey']).remove(['metadata', 'textLength']);
      if (r.error !== undefined) u.set(['error'], r.error);
      if (r.processingTime !== undefined) u.set(['processingTime'], r.processingTime);
      await update(book.bookTextId, u);
      if (r.metadata && Object.keys(r.metadata).length) await setMetadata(book.bookTextId, r.metadata, r.at);
    },

    setMetadata,

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
          .set(['entity'], 'BookTextPage')
          .set(['bookTextId'], bookTextId)
          .set(['pageNumber'], c.pageNumber)
          .set(['updatedAt'], at)
          .setIfMissing(['pageId'], c.pageId);
        // A supplied field is written; any other keeps its value, or takes the default on a new page.
        const fields = { text: [c.text, ''], storageKey: [c.storageKey, null], isAIGenerated: [c.isAIGenerated, true] } as const;
        for (const [name, [value, fallback]] of Object.entries(fields)) {
          if (value === undefined) u.setIfMissing([name], fallback);
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
      for (let attempt = 0; ; attempt++) {
        const current = attempt === 0 ? book : await get(book.bookTextId);
        if (!current) throw new Error(`BookText ${book.bookTextId} is gone`);
        const u = new Update().set(['updatedAt'], e.at);
        if (e.fileName !== undefined) u.set(['fileName'], e.fileName).set(['byName'], keys.catalogueName(e.fileName, book.bookTextId));
        if (e.language !== undefined) u.set(['language'], e.language);
        if (e.tags) u.set(['tags'], e.tags);
        if (e.categories) u.set(['categories'], e.categories);
        if (e.extractedText !== undefined) u.set(['extractedText'], e.extractedText);
        if (e.textStorage) u.set(['metadata', 'textStorageKey'], e.textStorage.key).set(['metadata', 'textLength'], e.textStorage.length);
        if (e.textStorage === null) u.remove(['metadata', 'textStorageKey']).remove(['metadata', 'textLength']);
        const moves = e.visibility && e.visibility !== current.visibility;
        if (moves) u.set(['visibility'], e.visibility).set(['catalogue'], keys.catalogue(e.visibility!));
        // The counters move with the visibility they saw: a concurrent change makes this one read again.
        const condition = `attribute_exists(pk) AND #visibility = ${u.value(current.visibility)}`;
        u.names['#visibility'] = 'visibility';
        const file = e.file && (e.file.fileName !== undefined || e.file.author !== undefined) ? e.file : undefined;
        const fileUpdate = new Update().set(['updatedAt'], e.at);
        if (file?.fileName !== undefined) fileUpdate.set(['fileName'], file.fileName);
        if (file?.author !== undefined) fileUpdate.set(['author'], file.author);
        try {
          await transact(db, {
            TransactItems: [
              {
                Update: {
                  TableName,
                  Key: keys.bookText(book.bookTextId),
                  UpdateExpression: u.expression,
                  ConditionExpression: condition,
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
          return;
        } catch (error) {
          if (!failedConditions(error)?.includes(0) || attempt >= 5) throw error;
        }
      }
    },

    catalogue: (query) => catalogue(db, query),

    async jobsOf(userId, { status, limit, offset }) {
      const index = status
        ? { IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :pk', ExpressionAttributeValues: { ':pk': keys.ownerJobsByStatusIndex(userId, status) } }
        : { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': keys.ownerJobsIndex(userId) } };
      // The size of one owner's list: grows with that owner's jobs, never with the table.
      const [total, items] = await Promise.all([countAll(db, index), firstItems(db, index, offset + limit)]);
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
